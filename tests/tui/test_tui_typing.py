"""Typing as a person does: keys arrive faster than the app settles, focus sits on no input.

Keys are posted straight to the app's queue, as the terminal driver posts them, so a burst is
really a burst (the pilot's `press` waits for the app to go idle between keys).
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_form import OfferFormScreen
from tests.tui.conftest import dialog_open, wait_for


def burst(app: TclkApp, keys: list[str]) -> None:
    for key in keys:
        char = key if len(key) == 1 else None
        app.post_message(events.Key(key, char))


def keys_of(text: str) -> list[str]:
    return list(text)


async def test_a_burst_with_tab_fills_asset_then_rails(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: dialog_open(app, OfferFormScreen), what="the offer form")
        form = app.screen
        form.query_one("#field-asset", Input).focus()
        await pilot.pause()
        for _ in range(5):
            form.query_one("#field-asset", Input).value = ""
            form.query_one("#field-rails", Input).value = ""
            form.query_one("#field-asset", Input).focus()
            await pilot.pause()
            burst(app, [*keys_of("FLOP"), "tab", *keys_of("paper")])
            await wait_for(pilot, lambda: form.query_one("#field-rails", Input).value
                           == "paper" or len(form.query_one("#field-asset", Input).value) > 4,
                           what="the burst typed")
            await pilot.pause()
            assert form.query_one("#field-asset", Input).value == "FLOP"
            assert form.query_one("#field-rails", Input).value == "paper"


async def test_typing_may_at_the_board_opens_the_accept_dialog_but_never_accepts(
        wallet, clock, monkeypatch):
    from tclk_tui.tui.accept_screen import AcceptScreen
    from tclk_tui.tui.deliberate import DeliberateKeys

    monkeypatch.setattr(DeliberateKeys, "REACTION_S", 60.0)  # nobody reads it that fast
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        burst(app, keys_of("may"))
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen))
        await pilot.pause()
        await pilot.press("y")  # one key later, still faster than reading
        await pilot.pause()
        assert isinstance(app.screen, AcceptScreen)
        assert not [call for call in wallet.calls if call[0] == "accept_offer"]


async def test_a_confirm_key_typed_before_the_dialog_opened_is_dropped(wallet, clock):
    from tclk_tui.tui.accept_screen import AcceptScreen

    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        burst(app, keys_of("ay"))
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen))
        await pilot.pause()
        assert isinstance(app.screen, AcceptScreen)
        assert not [call for call in wallet.calls if call[0] == "accept_offer"]
        await pilot.press("y")  # typed after it opened (no reaction time in pilots): accepts
        await wait_for(pilot, lambda: [call for call in wallet.calls if call[0] == "accept_offer"])


async def test_a_pane_key_and_that_panes_own_key_in_one_burst(wallet, clock):
    """Typing "3b" at once opens the seed backup: the pane takes focus before the next key."""
    from tclk_tui.tui.gate_screen import GateScreen

    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "offer-table"
        burst(app, ["3", "b"])
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen), what="the gate")
        assert app.screen.request.action == "seed-backup"


async def test_typing_an_offer_ahead_of_its_form_fills_the_form(wallet, clock):
    """`n1000` Tab `FLOP` Tab `paper` as one burst: the form opens and takes all of it; the
    board's filter takes none of it. Three times running."""
    from tclk_tui.tui.offer_form import OfferFormScreen

    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await pilot.pause()
            assert app.focused is not None and app.focused.id == "offer-table"
            burst(app, ["n", *keys_of("1000"), "tab", *keys_of("FLOP"), "tab",
                        *keys_of("paper")])
            # A burst of 16 keys and a screen to mount: on a loaded machine that takes more
            # turns of the loop than one dialog does (still bounded, no timed sleep).
            await wait_for(pilot, lambda: dialog_open(app, OfferFormScreen)
                           and app.screen.query_one("#field-rails", Input).value == "paper",
                           attempts=1000, what="the form filled")
            form = app.screen
            assert form.query_one("#field-amount", Input).value == "1000"
            assert form.query_one("#field-asset", Input).value == "FLOP"
            assert app.default_screen.query_one("#board-filter", Input).value == ""
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.default_screen)
            app.query_one("#offer-table").focus()


async def test_the_post_key_typed_ahead_with_the_offer_does_not_post_it(wallet, clock,
                                                                       monkeypatch):
    from tclk_tui.tui.deliberate import DeliberateKeys
    from tclk_tui.tui.offer_form import OfferFormScreen

    monkeypatch.setattr(DeliberateKeys, "REACTION_S", 60.0)
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        burst(app, ["n", *keys_of("1000"), "tab", *keys_of("FLOP"), "tab",
                    *keys_of("paper"), "ctrl+s"])
        await wait_for(pilot, lambda: dialog_open(app, OfferFormScreen)
                       and app.screen.query_one("#field-rails", Input).value == "paper")
        await pilot.pause()
        assert isinstance(app.screen, OfferFormScreen) and not wallet.posted


async def test_keys_typed_ahead_never_reach_a_confirmation(wallet, clock, monkeypatch):
    """Keys that land within the reaction time of a gate opening go nowhere: the code and
    Enter typed on the reveal gate leave its field empty and confirm nothing; Enter Enter on
    the lock gate, with Back out focused, leaves it open. Esc still backs out."""
    from tclk_tui.tui.deliberate import DeliberateKeys
    from tclk_tui.tui.gate_screen import GateScreen

    monkeypatch.setattr(DeliberateKeys, "REACTION_S", 60.0)
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        deal = wallet.deal(app.deal_room.view.deal_id)
        for action, keys in (("reveal", [*keys_of("abcd"), "enter", "y"]),
                             ("lock", ["enter", "enter", "y"])):
            app.deals.run_deal_action(action, deal.deal_id)
            await wait_for(pilot, lambda: dialog_open(app, GateScreen), what=action)
            burst(app, keys)
            await pilot.pause()
            gate = app.screen
            assert isinstance(gate, GateScreen), action
            assert gate.query_one("#gate-code", Input).value == ""
            assert not deal.confirmations
            burst(app, ["escape"])
            await wait_for(pilot, lambda: app.screen is app.default_screen, what="backed out")
