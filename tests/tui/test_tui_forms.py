from dataclasses import replace

import pytest
from textual.app import App
from textual.widgets import Button, Checkbox, Input, Select

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.restore_screen import RestoreScreen
from tests.tui.conftest import dialog_open, screen_text, wait_for, wait_for_timer
from tests.tui.contract_wallet import (
    Clock,
    ContractWallet,
    make_deal,
    make_offer,
)


class Host(App[None]):
    def __init__(self, screen) -> None:
        super().__init__()
        self.animation_level = "none"
        self.modal = screen
        self.results: list[object] = []

    def on_mount(self) -> None:
        self.push_screen(self.modal, self.results.append)


async def test_offer_form_validates_on_every_keystroke():
    wallet = ContractWallet()
    seen = []

    def validate(draft):
        seen.append(draft)
        return wallet.validate_offer_draft(draft)

    app = Host(OfferFormScreen(validate, wallet.post_offer))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#form-post", Button).disabled
        # Nothing typed yet: no field is shouting.
        assert "must be" not in screen_text(app)
        before = len(seen)
        await pilot.press(*"12x")
        await pilot.pause()
        assert len(seen) >= before + 3
        assert seen[-1].amount == "12x"
        assert screen.query_one("#problem-amount").display
        await pilot.press("backspace")
        await wait_for(pilot, lambda: not screen.query_one("#problem-amount").display)
        screen.query_one("#field-asset", Input).value = "FLOP"
        screen.query_one("#field-rails", Input).value = "memory"
        await wait_for(pilot, lambda: not screen.query_one("#form-post", Button).disabled)
        screen.query_one("#field-role", Select).value = "payee"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.results, what="posted")
        assert wallet.posted[-1].amount == "12" and wallet.posted[-1].role == "payee"
        assert app.results[0].status == "proposed"


async def test_offer_form_shows_problems_only_for_touched_fields_until_post_is_asked():
    wallet = ContractWallet()
    app = Host(OfferFormScreen(wallet.validate_offer_draft, wallet.post_offer))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press(*"12x")
        await wait_for(pilot, lambda: screen.query_one("#problem-amount").display)
        assert not screen.query_one("#problem-asset").display
        assert not screen.query_one("#problem-rails").display
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.query_one("#problem-asset").display)
        assert screen.query_one("#problem-rails").display
        assert wallet.posted == [] and app.screen is screen


async def test_offer_form_shows_engine_refusal_and_stays_open():
    wallet = ContractWallet()
    app = Host(OfferFormScreen(wallet.validate_offer_draft, wallet.post_offer))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        screen.query_one("#field-amount", Input).value = "5"
        screen.query_one("#field-asset", Input).value = "REFUSE"
        screen.query_one("#field-rails", Input).value = "memory"
        await wait_for(pilot, lambda: not screen.query_one("#form-post", Button).disabled)
        await pilot.click("#form-post")
        await wait_for(pilot, lambda: "rate limited" in screen_text(app))
        assert app.results == [] and app.screen is screen


async def test_offer_form_backs_out_with_escape():
    wallet = ContractWallet()
    app = Host(OfferFormScreen(wallet.validate_offer_draft, wallet.post_offer))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.results == [None])
        assert wallet.posted == []


async def test_problems_for_unknown_fields_are_still_shown():
    def validate(draft):
        from tclk_tui.engine.views import FieldProblem
        return [FieldProblem("deadlines", "claim must come before refund [b]")]

    app = Host(OfferFormScreen(validate, ContractWallet().post_offer))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "deadlines: claim must come before refund [b]" in screen_text(app)


async def test_accept_screen_offers_only_the_offers_rails():
    row = make_offer(0, rails=("memory", "paper"))
    chosen: list[str | None] = []

    async def accept(rail):
        chosen.append(rail)
        return make_deal(row.offer_id, status="accepted")

    app = Host(AcceptScreen(row, Clock(), accept, refusal=lambda: None))
    async with app.run_test(size=(100, 30)) as pilot:
        select = app.screen.query_one("#accept-rail", Select)
        values = [value for _, value in select._options]
        assert values[1:] == ["memory", "paper"]
        select.value = "paper"
        await pilot.click("#accept-ok")
        await wait_for(pilot, lambda: app.results)
        assert chosen == ["paper"]


async def test_accept_screen_shows_refusal():
    async def accept(rail):
        raise __import__("tests.tui.contract_wallet", fromlist=["x"]).EngineError(
            "offer expired")

    app = Host(AcceptScreen(make_offer(0), Clock(), accept, refusal=lambda: None))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.click("#accept-ok")
        await wait_for(pilot, lambda: app.screen.error == "offer expired")
        assert "Not accepted: offer expired" in screen_text(app)


async def test_restore_needs_text_and_the_tick_and_reports_errors():
    wallet = ContractWallet()
    app = Host(RestoreScreen(wallet.ask_restore))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await pilot.press(*"bad")
        assert screen.query_one("#restore-ok", Button).disabled
        assert "bad" not in screen_text(app)  # masked
        screen.query_one("#restore-ack", Checkbox).value = True
        await wait_for(pilot, lambda: not screen.query_one("#restore-ok", Button).disabled)
        await pilot.click("#restore-ok")
        await wait_for(pilot, lambda: "bad checksum" in screen_text(app))
        screen.query_one("#restore-text", Input).value = "good words"
        await pilot.pause()
        await pilot.click("#restore-ok")
        await wait_for(pilot, lambda: app.results == [True])
        assert wallet.restoring == len("good words") and wallet.restored == []


async def test_secret_input_refuses_copy():
    wallet = ContractWallet()
    app = Host(RestoreScreen(wallet.ask_restore))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"topsecret", "ctrl+a", "ctrl+c", "ctrl+x")
        await pilot.pause()
        assert app.clipboard == ""
        assert app.screen.query_one("#restore-text", Input).value == "topsecret"


async def test_new_offer_from_the_board_opens_the_deal(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: dialog_open(app, OfferFormScreen), what="the offer form")
        screen = app.screen
        screen.query_one("#field-amount", Input).value = "77"
        screen.query_one("#field-asset", Input).value = "FLOP"
        screen.query_one("#field-rails", Input).value = "memory"
        await wait_for(pilot, lambda: not screen.query_one("#form-post", Button).disabled)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.active_pane == "deals")
        assert app.deal_room.view.deal_id == "0x" + "0f" * 32


async def test_accept_screen_keeps_the_terms_live_and_refuses_a_closed_offer(monkeypatch):
    monkeypatch.setattr(AcceptScreen, "TICK_SECONDS", 0.02)
    clock = Clock()
    row = make_offer(0)
    wallet = ContractWallet(rows=[row], clock=clock)
    board = wallet.board
    sent: list[str | None] = []

    async def accept(rail):
        sent.append(rail)
        return make_deal(row.offer_id, status="accepted")

    app = Host(AcceptScreen(row, clock, accept, row_source=lambda: board.get(row.offer_id),
                            refusal=lambda: wallet.accept_refusal(row.offer_id)))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert "expires 10m00s" in screen_text(app)
        clock.value += 61_000
        await wait_for_timer(pilot, lambda: "expires 8m59s" in screen_text(app),
                             what="a live countdown")
        assert not screen.query_one("#accept-ok", Button).disabled
        board.put(replace(row, status="accepted"))
        await wait_for_timer(pilot, lambda: screen.query_one("#accept-ok", Button).disabled,
                             what="Accept disabled")
        await pilot.pause()
        text = screen_text(app)
        assert "no longer open" in text and "accepted" in text
        await pilot.press("y")
        screen.action_accept()
        await pilot.pause()
        assert sent == [] and app.results == []


@pytest.mark.parametrize("change", ["gone", "expired-by-clock"])
async def test_accept_screen_disables_accept_when_the_offer_goes(change):
    clock = Clock()
    row = make_offer(0)
    wallet = ContractWallet(rows=[row], clock=clock)
    board = wallet.board

    async def accept(rail):
        raise AssertionError("Accept must not be reachable")

    app = Host(AcceptScreen(row, clock, accept, row_source=lambda: board.get(row.offer_id),
                            refusal=lambda: wallet.accept_refusal(row.offer_id)))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        if change == "gone":
            board.rows.clear()
        else:
            clock.value = row.expires_ms  # the board has not marked it yet; the clock has
        screen.tick()
        await pilot.pause()
        assert screen.query_one("#accept-ok", Button).disabled
        assert "no longer open" in screen_text(app)


async def test_the_app_passes_its_clock_and_the_board_to_the_accept_screen(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        row = wallet.board.get(make_offer(0).offer_id)
        app.board.open_accept(row)
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen)
                       and app.screen.query("#accept-ok"))
        screen = app.screen
        wallet.board.put(replace(row, status="cancelled"))
        clock.value += 5_000
        screen.tick()
        await pilot.pause()
        assert screen.query_one("#accept-ok", Button).disabled
        assert "cancelled" in screen_text(app)
