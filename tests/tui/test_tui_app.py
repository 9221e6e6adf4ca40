import pytest
from textual.command import CommandPalette
from textual.widgets import Button, Input

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.events import DeadlineWarning, Notice, VenueStatus
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.header_bar import HeaderBar
from tclk_tui.tui.help_screen import HelpScreen
from tclk_tui.tui.offer_table import OfferTable
from tests.tui.conftest import gate_open, screen_text, wait_for
from tests.tui.contract_wallet import make_offer


async def test_header_shows_profile_identity_venue_status_and_clock(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "default" in header and "z6Mk…MEme" in header
        assert "http://127.0.0.1:8787" in header
        assert "following" in header and "00:00:00 UTC" in header
        clock.value += 61_000
        app.events.tick()
        await pilot.pause()
        assert "00:01:01 UTC" in screen_text(app).splitlines()[0]


@pytest.mark.parametrize(("state", "word"), [("reconnecting", "RECONNECTING"),
                                             ("rate-limited", "RATE-LIMITED"),
                                             ("polling", "polling"),
                                             ("gap-detected", "RECORDS MISSED"),
                                             ("offline", "OFFLINE")])
async def test_venue_status_events_reach_the_header(wallet, clock, state, word):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(100, 24)) as pilot:
        wallet.events.publish(VenueStatus(state, "retry in 3s"))  # type: ignore[arg-type]
        await wait_for(pilot, lambda: app.query_one(HeaderBar).status.state == state)
        await pilot.pause()
        assert word in screen_text(app).splitlines()[0]


async def test_notices_are_notifications_without_markup(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        wallet.events.publish(Notice("error", "rejected line [b]x[/b]\x1b[2J"))
        await wait_for(pilot, lambda: app._notifications)
        note = list(app._notifications)[-1]
        assert note.message == "rejected line [b]x[/b]\\x1b[2J"
        assert note.markup is False and note.severity == "error"


async def test_deadline_warning_notifies_once_per_level(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        deal_id = "0x" + "d1" * 32
        for _ in range(3):
            wallet.events.publish(DeadlineWarning(deal_id, "danger", "reveal", 120_000))
        await wait_for(pilot, lambda: app.events.events_applied >= 3)
        warnings = [n for n in app._notifications if "DANGER" in n.message]
        assert len(warnings) == 1
        assert "2m00s left" in warnings[0].message


async def test_a_burst_of_events_is_applied_in_one_batch(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        before = len(wallet.board.queries)
        from tclk_tui.engine.events import BoardChanged
        from tests.tui.contract_wallet import make_offer
        for index in range(200, 260):
            row = make_offer(index)
            wallet.board.put(row)
            wallet.events.publish(BoardChanged(added=(row.offer_id,)))
        await wait_for(pilot, lambda: app.query_one(OfferTable).row_count == 101)
        assert len(wallet.board.queries) - before <= 2


async def test_number_keys_switch_panes_and_focus(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        for key, pane in (("2", "deals"), ("3", "vault"), ("4", "arbitration"),
                          ("1", "board")):
            await pilot.press(key)
            await wait_for(pilot, lambda pane=pane: app.active_pane == pane)
        assert isinstance(app.focused, OfferTable)


async def test_pane_keys_do_nothing_under_a_dialog(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("2")
        await pilot.pause()
        assert app.active_pane == "board"


async def test_typing_digits_in_a_field_does_not_switch_panes(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", "2", "3")
        await pilot.pause()
        assert app.active_pane == "board"
        assert app.query_one("#board-filter", Input).value == "23"


async def test_command_palette_runs_app_actions(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"show vault")
        await pilot.pause()
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.active_pane == "vault")


async def test_palette_lists_every_action_and_only_valid_deal_actions(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        titles = {command.title for command in app.palette_commands()}
        for expected in ("New offer", "Accept highlighted offer", "Show rejected board lines",
                         "Sort offers by amount", "Back up master seed", "Restore master seed",
                         "Show highlighted secret", "Arbitration: split", "Arbitration: tally",
                         "Theme: tclk-light", "Theme: tclk-high-contrast", "Keys and help",
                         "Deal: reveal", "Deal: heartbeat", "Quit"):
            assert expected in titles
        assert "Deal: lock" not in titles
        assert not any("Screenshot" in title for title in titles)


async def test_palette_sort_command_sorts(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        command = next(c for c in app.palette_commands() if c.title == "Sort offers by asset")
        command.run()
        await wait_for(pilot, lambda: wallet.board.queries[-1].sort == "asset")


async def test_help_lists_bindings(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = app.screen.query_one("#help-text").render().plain
        for expected in ("Reveal", "Refund", "Accept", "New offer", "Back up seed",
                         "Command palette", "Rejected", "Filter"):
            assert expected in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_calm_no_animation_and_no_blinking(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.animation_level == "none"
        inputs = list(app.query(Input))
        assert inputs and all(isinstance(i, CalmInput) for i in inputs)
        assert not any(i.cursor_blink for i in inputs)


async def test_no_color_is_respected(monkeypatch, wallet, clock):
    monkeypatch.setenv("NO_COLOR", "1")
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.no_color
        wallet.events.publish(VenueStatus("gap-detected"))
        await wait_for(pilot, lambda: "RECORDS MISSED" in screen_text(app))


@pytest.mark.parametrize("pane", ["board", "deals", "vault", "arbitration"])
async def test_every_pane_fits_80x24(wallet, clock, pane):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane(pane)
        # Focusing the pane changes the bindings, so the footer recomposes a frame later: read
        # the screen once it has drawn again, not at the first idle moment (a loaded machine
        # reaches one while the footer is still empty).
        await wait_for(pilot, lambda: "palette" in screen_text(app).rsplit("\n", 1)[-1],
                       what="the footer to draw its keys")
        lines = screen_text(app).splitlines()
        assert len(lines) == 24
        assert "tclk default" in lines[0]
        assert "palette" in lines[-1]
        assert app.screen.size == (80, 24)


async def test_works_without_a_mouse(wallet, clock):
    """Accept an offer and reveal, keys only."""
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.press("r")
        await wait_for(pilot, lambda: gate_open(app), what="the reveal gate")
        await pilot.press(*"abcd", "enter")
        await wait_for(pilot, lambda: app.deal_room.view.status == "claimed")


async def test_an_engine_failure_is_reported_and_following_continues(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        real_deals = wallet.deals

        def broken() -> list:
            raise RuntimeError("journal locked")

        wallet.deals = broken  # type: ignore[method-assign]
        from tclk_tui.engine.events import DealAdvanced
        wallet.events.publish(DealAdvanced("0x" + "d1" * 32, "locked"))
        await wait_for(pilot, lambda: any("applying engine events failed" in n.message
                                          for n in app._notifications))
        wallet.deals = real_deals  # type: ignore[method-assign]
        wallet.events.publish(VenueStatus("reconnecting"))
        await wait_for(pilot, lambda: app.query_one(HeaderBar).status.state == "reconnecting")


async def test_the_app_holds_one_subscription_and_drops_it_on_exit(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert len(wallet.events._queues) == 1
        wallet.events.publish(VenueStatus("rate-limited"))
        await wait_for(pilot, lambda: app.query_one(HeaderBar).status.state == "rate-limited")
    assert wallet.events._queues == []


async def test_clicking_a_tab_leaves_the_pane_keys_live(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.click("#--content-tab-deals")
        await wait_for(pilot, lambda: app.active_pane == "deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.pause()
        assert app.deal_room in app.focused.ancestors_with_self
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen), what="the reveal gate")


async def test_arrowing_to_a_tab_leaves_the_pane_keys_live(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.query_one("#panes ContentTabs").focus()
        await pilot.pause()
        await pilot.press("right")
        await wait_for(pilot, lambda: app.active_pane == "deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.pause()
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen), what="the reveal gate")
        assert app.screen.request.action == "reveal"


@pytest.mark.parametrize("title", ["Show vault", "Filter offers", "Arbitration: tally"])
async def test_palette_pane_commands_do_nothing_under_a_dialog(wallet, clock, title):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.board.open_accept(wallet.board.get(make_offer(0).offer_id))
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen))
        underneath = app.default_screen.focused
        assert isinstance(underneath, OfferTable)
        command = next(c for c in app.palette_commands() if c.title == title)
        command.run()
        await pilot.pause()
        assert app.active_pane == "board" and isinstance(app.screen, AcceptScreen)
        assert isinstance(app.focused, Button) and app.focused.id == "accept-cancel"
        assert app.default_screen.focused is underneath  # nothing moved underneath either


async def test_palette_opened_over_a_dialog_does_not_switch_panes(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"show vault")
        await pilot.pause()
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="palette closed")
        await pilot.pause()
        assert app.active_pane == "board"


async def test_help_lists_the_dialog_confirm_key(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = app.screen.query_one("#help-text").render().plain
        dialogs = text.split("Dialogs", 1)[1]
        assert any(line.split()[:1] == ["y"] and "Confirm" in line and "accept" in line
                   for line in dialogs.splitlines())


async def test_the_header_says_polling_in_a_word_at_80_columns_and_v_says_it_all(wallet, clock):
    """"The venue did not hold the wait" is not a rate limit: the header says what happens in
    a word that fits, and the whole sentence is one key away."""
    detail = ("tclk-offers: the venue had no free waiting slot and answered at once; asking "
              "again every 10 s (updates may arrive that much later; nothing is limited)")
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        wallet.events.publish(VenueStatus("polling", detail))
        await wait_for(pilot, lambda: app.query_one(HeaderBar).status.state == "polling")
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "polling" in header and "LIMITED" not in header
        assert "00:00:00 UTC" in header  # the clock is not pushed off the line
        await pilot.press("v")
        await wait_for(pilot, lambda: any("nothing is limited" in n.message
                                          for n in app._notifications))
