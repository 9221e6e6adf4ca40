from dataclasses import replace

import pytest
from textual.app import App
from textual.widgets import Button, Checkbox, Input

from tclk_tui.engine.gates import GateFact, GateRefused
from tclk_tui.tui.gate_screen import MARK_BLOCKS, MARK_NOTE, MARK_OK, GateScreen, fact_text
from tests.tui.conftest import HOSTILE, screen_text, wait_for, wait_for_timer
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

    def perform(request, code, ack):
        calls.append((code, ack))
        return SECRET_VALUE  # what a secret-reveal confirm returns

    app = Host(GateScreen(gate_request("secret-reveal"), perform))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "lock on memory" in text and "verified on the rail" in text
        assert "25m left before claim by" in text
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
    app = Host(GateScreen(request, lambda request, code, ack: None))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"abcd")
        await pilot.pause()
        assert app.screen.query_one("#gate-confirm", Button).disabled
        assert "the refund window is open" in screen_text(app)
        assert not app.screen.ready()


async def test_late_needs_the_box_ticked():
    app = Host(GateScreen(gate_request("reveal", late=True), lambda request, code, ack: "ok"))
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

    async def perform(request, code, ack):
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
    def perform(request, code, ack):
        raise ValueError("0x" + "5e" * 32)

    app = Host(GateScreen(gate_request("cancel", code=None), perform))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.click("#gate-confirm")
        await wait_for(pilot, lambda: app.screen.refusal is not None)
        assert app.screen.refusal == "unexpected error (ValueError)"
        assert "5e5e5e" not in screen_text(app)


async def test_escape_backs_out():
    app = Host(GateScreen(gate_request("cancel", code=None), lambda request, code, ack: "x"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.results == [None])


async def test_code_field_has_focus_when_a_code_is_needed():
    app = Host(GateScreen(gate_request("reveal"), lambda request, code, ack: "x"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.focused, Input) and app.focused.id == "gate-code"


class Answers:
    """An engine whose answer changes: `refresh()` returns the newest request, counted."""

    def __init__(self, request) -> None:
        self.request = request
        self.fetched = 0

    def __call__(self):
        self.fetched += 1
        return self.request


async def test_a_refusal_refetches_the_request_and_keeps_the_typed_code():
    answers = Answers(gate_request("reveal"))
    seen: list[object] = []

    def perform(request, code, ack):
        seen.append(request)
        answers.request = gate_request("reveal", blockers=("the refund window is open",))
        raise GateRefused("the refund window is open")

    app = Host(GateScreen(gate_request("reveal"), perform, refresh=answers))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"abcd", "enter")
        await wait_for(pilot, lambda: app.screen.request.blockers, what="the new blockers")
        screen = app.screen
        assert "The engine will refuse this now" in screen_text(app)
        assert screen.query_one("#gate-confirm", Button).disabled
        assert screen.query_one("#gate-code", Input).value == "abcd"
        assert len(seen) == 1 and app.results == []


async def test_the_request_is_refetched_every_interval_and_confirm_uses_the_newest(monkeypatch):
    monkeypatch.setattr(GateScreen, "REFRESH_SECONDS", 0.02)
    first = gate_request("reveal")
    answers = Answers(first)
    seen: list[object] = []

    def perform(request, code, ack):
        seen.append((request, code, ack))
        return "claimed"

    app = Host(GateScreen(first, perform, refresh=answers))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert not screen.query_one("#gate-late", Checkbox).display  # on time: no box
        await pilot.press(*"abcd")
        await wait_for(pilot, lambda: screen.ready())
        # claimByMs passes while the modal is open: the engine now says "late".
        late_facts = (*first.facts, GateFact("claim window", False, "past claimByMs"))
        answers.request = replace(first, late=True, facts=late_facts, created_ms=first.created_ms
                                  + 60_000)
        await wait_for_timer(pilot, lambda: screen.request.late, what="the late answer")
        await pilot.pause()
        assert screen.query_one("#gate-late", Checkbox).display
        assert "past claim by" in screen_text(app)
        assert screen.query_one("#gate-code", Input).value == "abcd"
        assert not screen.ready() and screen.query_one("#gate-confirm", Button).disabled
        assert seen == []  # a fresh answer never confirms by itself
        fetched = answers.fetched
        await wait_for_timer(pilot, lambda: answers.fetched > fetched + 1, what="more ticks")
        assert seen == []
        screen.query_one("#gate-late", Checkbox).value = True
        await pilot.pause()
        await pilot.click("#gate-confirm")
        await wait_for(pilot, lambda: app.results == ["claimed"])
        assert seen == [(answers.request, "abcd", True)]
        assert seen[0][0].late


async def test_a_request_that_stops_being_late_drops_the_tick():
    late = gate_request("reveal", late=True)
    answers = Answers(late)
    app = Host(GateScreen(late, lambda request, code, ack: "x", refresh=answers))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        screen.query_one("#gate-late", Checkbox).value = True
        await pilot.pause()
        screen.refresh_request()
        await pilot.pause()
        assert screen.query_one("#gate-late", Checkbox).value  # same answer: the tick stays
        answers.request = gate_request("reveal")
        screen.refresh_request()
        await pilot.pause()
        assert not screen.query_one("#gate-late", Checkbox).display
        assert not screen.acknowledged
        answers.request = late
        screen.refresh_request()
        await pilot.pause()
        assert not screen.query_one("#gate-late", Checkbox).value  # ticked afresh, never carried


@pytest.mark.parametrize("problem", [RuntimeError("journal locked"), "not a request",
                                     gate_request("cancel"),
                                     gate_request("reveal", deal_id="0x" + "e2" * 32)],
                         ids=["raises", "not-a-request", "other-action", "other-deal"])
async def test_a_failed_refetch_fails_closed(problem):
    request = gate_request("reveal")
    failing = False

    def refresh():
        # The screen's own once-a-second re-check may fire at any moment of a slow run: it
        # gets the good answer until the test turns the engine bad.
        if not failing:
            return request
        if isinstance(problem, Exception):
            raise problem
        return problem

    app = Host(GateScreen(request, lambda request, code, ack: "x", refresh=refresh))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await pilot.press(*"abcd")
        await wait_for(pilot, lambda: screen.ready())
        failing = True
        screen.refresh_request()
        await pilot.pause()
        assert not screen.ready() and screen.query_one("#gate-confirm", Button).disabled
        assert "Could not re-check with the engine" in screen_text(app)


async def test_a_wrong_code_says_so_at_once():
    app = Host(GateScreen(gate_request("reveal"), lambda request, code, ack: "x"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await pilot.press(*"abc")
        await pilot.pause()
        assert not screen.query_one("#gate-code-wrong").display  # not finished typing
        await pilot.press("x")
        await wait_for(pilot, lambda: screen.query_one("#gate-code-wrong").display)
        assert "That is not the code" in screen_text(app)
        await pilot.press("backspace", "d")
        await wait_for(pilot, lambda: not screen.query_one("#gate-code-wrong").display)
        assert screen.ready()
