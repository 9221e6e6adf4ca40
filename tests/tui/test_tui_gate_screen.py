from textual.app import App
from textual.widgets import Button, Checkbox, Input

from tclk_tui.engine.gates import GateFact, GateRefused
from tclk_tui.tui.gate_screen import MARK_BLOCKS, MARK_NOTE, MARK_OK, GateScreen, fact_text
from tests.tui.conftest import HOSTILE, screen_text, wait_for
from tests.tui.contract_wallet import SECRET_VALUE, gate_request


class Host(App[None]):
    def __init__(self, screen: GateScreen) -> None:
        super().__init__()
        self.animation_level = "none"
        self.gate = screen
        self.results: list[object] = []

    def on_mount(self) -> None:
        self.push_screen(self.gate, self.results.append)


def test_fact_marks():
    assert fact_text(GateFact("a", True, "x")).plain.startswith(MARK_OK)
    assert fact_text(GateFact("a", False, "x")).plain.startswith(MARK_BLOCKS)
    assert fact_text(GateFact("a", None, "x")).plain.startswith(MARK_NOTE)


async def test_shows_every_fact_and_never_the_secret():
    calls: list[tuple[str | None, bool]] = []

    def perform(code, ack):
        calls.append((code, ack))
        return SECRET_VALUE  # what a secret-reveal confirm returns

    app = Host(GateScreen(gate_request("secret-reveal"), perform))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "lock on memory" in text and "verified on the rail" in text
        assert "25m left before claimByMs" in text
        assert "0xabcd" in text  # the contract id the code is read from
        await pilot.press(*"ABCD")  # case does not matter
        await wait_for(pilot, lambda: not app.screen.query_one("#gate-confirm").disabled)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results, what="dismiss")
        assert calls == [("ABCD", False)]
        assert app.results == [SECRET_VALUE]
        assert SECRET_VALUE not in screen_text(app)


async def test_blockers_disable_confirm_whatever_is_typed():
    request = gate_request("reveal", blockers=("the refund window is open",))
    app = Host(GateScreen(request, lambda code, ack: None))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"abcd")
        await pilot.pause()
        assert app.screen.query_one("#gate-confirm", Button).disabled
        assert "the refund window is open" in screen_text(app)
        assert not app.screen.ready()


async def test_late_needs_the_box_ticked():
    app = Host(GateScreen(gate_request("reveal", late=True), lambda code, ack: "ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"abcd")
        assert not app.screen.ready()
        app.screen.query_one(Checkbox).value = True
        await pilot.pause()
        assert app.screen.ready()
        await pilot.click("#gate-confirm")
        await wait_for(pilot, lambda: app.results == ["ok"])


async def test_refusal_keeps_the_modal_open_and_allows_another_try():
    attempts: list[str | None] = []

    async def perform(code, ack):
        attempts.append(code)
        if len(attempts) == 1:
            raise GateRefused(HOSTILE)
        return "done"

    app = Host(GateScreen(gate_request("reveal"), perform))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"abcd", "enter")
        await wait_for(pilot, lambda: app.screen.refusal is not None)
        text = screen_text(app)
        assert "Refused:" in text and "[@click=app.quit]x[/]" in text and "\x1b" not in text
        assert app.results == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results == ["done"])


async def test_unexpected_errors_show_only_their_type():
    def perform(code, ack):
        raise ValueError("0x" + "5e" * 32)

    app = Host(GateScreen(gate_request("cancel", code=None), perform))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.click("#gate-confirm")
        await wait_for(pilot, lambda: app.screen.refusal is not None)
        assert app.screen.refusal == "unexpected error (ValueError)"
        assert "5e5e5e" not in screen_text(app)


async def test_escape_backs_out():
    app = Host(GateScreen(gate_request("cancel", code=None), lambda code, ack: "x"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.results == [None])


async def test_code_field_has_focus_when_a_code_is_needed():
    app = Host(GateScreen(gate_request("reveal"), lambda code, ack: "x"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.focused, Input) and app.focused.id == "gate-code"
