from dataclasses import replace

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Checkbox, Input

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.deadline_strip import DeadlineStrip, safe_text
from tclk_tui.tui.deal_room import DealRoomPane, timeline_text
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.note_screen import HeartbeatScreen, ReceiptScreen
from tclk_tui.tui.transcript_table import TranscriptTable
from tests.tui.conftest import gate_open, screen_text, wait_for
from tests.tui.contract_wallet import (
    ME,
    NOW_MS,
    THEM,
    Clock,
    gate_request,
    make_deadlines,
    make_deal,
)


class Host(App[None]):
    def __init__(self, views, clock=None) -> None:
        super().__init__()
        self.animation_level = "none"
        self.views = views
        self.clock = clock or Clock()
        self.requested: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield DealRoomPane(clock_ms=self.clock, own_did=ME, id="room")

    def on_mount(self) -> None:
        room = self.query_one(DealRoomPane)
        room.show_deals(self.views)
        room.show_deal(self.views[0] if self.views else None)

    def on_deal_room_pane_action_requested(self, event: DealRoomPane.ActionRequested) -> None:
        self.requested.append((event.action, event.view.deal_id))


async def test_transcript_rows_carry_badges_seq_time_sender_and_words():
    app = Host([make_deal()])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(TranscriptTable)
        assert table.row_count == 4
        text = screen_text(app)
        assert "offer: pay 5000 FLOP on memory" in text
        assert "BAD" in text and "signature does not verify" in text
        assert " me " in text
        assert "23:40:00" in text


async def test_deadlines_show_countdowns_and_the_engine_level():
    app = Host([make_deal()])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        strip = app.query_one(DeadlineStrip)
        assert strip.has_class("-soon")
        text = screen_text(app)
        assert "claim by 25m00s" in text and "SOON: last safe moment" in text
        assert "reveal before claim by" in text and "claimByMs" not in text
        danger = make_deal(deadlines=make_deadlines(level="danger"))
        app.query_one(DealRoomPane).show_deal(danger)
        await pilot.pause()
        assert strip.has_class("-danger") and not strip.has_class("-soon")
        assert "DANGER: last safe moment" in screen_text(app)


def test_settled_deal_says_nothing_is_pending():
    deadlines = replace(make_deadlines(), last_safe_ms=0, last_safe_what="settled: claimed")
    assert safe_text(deadlines, NOW_MS).plain == "nothing pending: settled: claimed"


async def test_countdowns_move_with_the_clock():
    clock = Clock()
    app = Host([make_deal()], clock)
    async with app.run_test(size=(100, 30)) as pilot:
        clock.value += 60_000
        app.query_one(DealRoomPane).tick()
        await pilot.pause()
        assert "claim by 24m00s" in screen_text(app)


def test_timeline_names_me_and_them():
    text = timeline_text(make_deal().timeline, ME, THEM).plain
    assert text == "timeline: proposed 23:40 them > accepted 23:42 me > locked 23:50 them"
    other = timeline_text(make_deal().timeline, ME).plain
    assert "proposed 23:40 z6Mk…emTH" in other


async def test_only_the_valid_actions_are_bindings():
    app = Host([make_deal(actions=frozenset({"reveal", "heartbeat"}))])
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(TranscriptTable).focus()
        await pilot.press("l", "f", "x", "e", "a")
        await pilot.pause()
        assert app.requested == []
        await pilot.press("r")
        await wait_for(pilot, lambda: app.requested == [("reveal", "0x" + "d1" * 32)])
        room = app.query_one(DealRoomPane)
        assert room.check_action("deal", ("reveal",)) is True
        assert room.check_action("deal", ("lock",)) is False


async def test_footer_lists_only_the_actions_valid_now(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "Reveal" in footer and "Heartbeat" in footer
        assert "Lock" not in footer and "Refund" not in footer and "Cancel" not in footer


async def test_empty_deal_room_explains_itself():
    app = Host([])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "No deals yet" in screen_text(app)


# -- through the app: gates -------------------------------------------------------------------


async def test_reveal_needs_the_typed_code_then_calls_confirm(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.press("r")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        gate = app.screen
        assert gate.request.action == "reveal"
        assert app.screen.query_one("#gate-confirm").disabled
        await pilot.press(*"abce")
        assert app.screen.query_one("#gate-confirm").disabled
        await pilot.press("backspace", "d")
        await wait_for(pilot, lambda: not app.screen.query_one("#gate-confirm").disabled)
        await pilot.press("enter")
        session = wallet.sessions["0x" + "d1" * 32]
        await wait_for(pilot, lambda: session.confirmations, what="confirm call")
        _request, typed, late = session.confirmations[0]
        assert typed == "abcd" and late is False
        await wait_for(pilot, lambda: not isinstance(app.screen, GateScreen))
        await wait_for(pilot, lambda: app.deal_room.view.status == "claimed")


async def test_refusal_is_shown_and_the_modal_stays(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        session = wallet.deal("0x" + "d1" * 32)
        session.refuse_with = "the lock has not been verified on the rail [b]x[/b]"
        await pilot.press("r")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        await pilot.press(*"abcd", "enter")
        await wait_for(pilot, lambda: app.screen.refusal is not None)
        assert isinstance(app.screen, GateScreen)
        assert "not been verified on the rail [b]x[/b]" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GateScreen))
        assert app.deal_room.view.status == "locked"


async def test_late_reveal_needs_the_acknowledgement(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        session = wallet.deal("0x" + "d1" * 32)
        session.next_request = gate_request("reveal", late=True)
        await pilot.press("r")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        await pilot.press(*"abcd")
        await pilot.pause()
        assert app.screen.query_one("#gate-confirm").disabled
        app.screen.query_one("#gate-late", Checkbox).value = True
        await wait_for(pilot, lambda: not app.screen.query_one("#gate-confirm").disabled)
        app.screen.query_one("#gate-code", Input).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.confirmations)
        assert session.confirmations[0][2] is True


async def test_lock_passes_the_deal_rail(wallet, clock):
    wallet.views = {"0x" + "d2" * 32: make_deal("0x" + "d2" * 32, status="accepted",
                                                 role="payer",
                                                 actions=frozenset({"lock", "cancel"}))}
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.press("l")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        assert ("request_lock", "memory") in wallet.calls
        assert app.screen.request.confirm_code is None
        assert app.focused.id == "gate-cancel"  # Enter alone never confirms by accident
        await pilot.click("#gate-confirm")
        await wait_for(pilot, lambda: app.deal_room.view.status == "locked")


async def test_heartbeat_sends_the_note(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HeartbeatScreen))
        await pilot.press(*"still here", "enter")
        await wait_for(pilot, lambda: ("heartbeat", "still here") in wallet.calls)
        await wait_for(pilot, lambda: not isinstance(app.screen, HeartbeatScreen))


async def test_receipt_goes_through_a_dialog_that_names_it(wallet, clock):
    deal_id = "0x" + "d3" * 32
    wallet.views = {deal_id: make_deal(deal_id, status="claimed",
                                       actions=frozenset({"receipt"}))}
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ReceiptScreen))
        assert ("receipt", deal_id) not in wallet.calls
        assert "receipt" in screen_text(app) and "claimed" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: ("receipt", deal_id) in wallet.calls)
        await wait_for(pilot, lambda: not isinstance(app.screen, ReceiptScreen))


async def test_typing_with_focus_on_no_input_posts_nothing(wallet, clock):
    """Words typed at the deal list (the operator thought a field had focus) open at most a
    dialog; nothing is posted and no second dialog opens on the first."""
    deal_id = "0x" + "d3" * 32
    wallet.views = {deal_id: make_deal(deal_id, status="claimed",
                                       actions=frozenset({"receipt"}))}
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        for char in "here is the receipt, have a nice evening":
            app.post_message(events.Key(char if char != " " else "space",
                                        char))
        await wait_for(pilot, lambda: isinstance(app.screen, ReceiptScreen))
        await pilot.pause()
        assert not [call for call in wallet.calls if call[0] in ("receipt", "heartbeat")]
        assert len(app.screen_stack) == 2


async def test_a_deal_key_not_valid_now_says_why_in_the_engines_words(wallet, clock):
    deal_id = "0x" + "d4" * 32
    wallet.views = {deal_id: make_deal(deal_id, status="accepted",
                                       actions=frozenset({"cancel", "heartbeat"}))}
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        wallet.deal(deal_id).next_request = gate_request(
            "reveal", deal_id=deal_id, blockers=("the contract is not locked yet",))
        footer = screen_text(app).splitlines()[-1]
        assert "Reveal" not in footer  # absent while not valid...
        await pilot.press("r")  # ...and pressed anyway, it answers
        await wait_for(pilot, lambda: any("not locked yet" in n.message
                                          for n in app._notifications))
        assert not isinstance(app.screen, GateScreen)
        await pilot.press("e")
        await wait_for(pilot, lambda: any(n.message.startswith("Receipt is not possible")
                                          for n in app._notifications))


async def test_focus_returns_where_it_was_after_a_dialog(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None
                       and app.focused is not None and app.focused.id == "deal-list")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HeartbeatScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HeartbeatScreen))
        assert app.focused is not None and app.focused.id == "deal-list"


async def test_no_second_dialog_opens_on_the_first_even_from_the_palette(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen))
        for command in app.palette_commands():
            if command.title in ("New offer", "Back up master seed", "Show rejected board lines",
                                 "Restore master seed"):
                command.run()
        await pilot.pause()
        assert len(app.screen_stack) == 2 and isinstance(app.screen, AcceptScreen)
        assert any("close the dialog first" in n.message for n in app._notifications)


async def test_the_app_gate_follows_the_engine_and_confirms_its_newest_answer(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.press("r")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        gate = app.screen
        await pilot.press(*"abcd")
        assert not gate.request.late
        session = wallet.deal("0x" + "d1" * 32)
        session.next_request = gate_request("reveal", late=True)  # claimByMs has passed
        gate.refresh_request()  # what the one-second timer calls
        await pilot.pause()
        assert gate.request.late and not gate.ready()
        assert gate.query_one("#gate-code", Input).value == "abcd"
        gate.query_one("#gate-late", Checkbox).value = True
        await wait_for(pilot, lambda: gate.ready())
        gate.query_one("#gate-code", Input).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.confirmations)
        request, typed, late = session.confirmations[0]
        assert request.late and typed == "abcd" and late is True


async def test_actions_the_engine_refuses_now_show_with_its_reason():
    view = make_deal(status="locked", role="payer", actions=frozenset({"heartbeat"}),
                     unavailable=(("refund", "refund window not open yet"),))
    app = Host([view])
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "not now: refund - refund window not open yet" in text
        room = app.query_one(DealRoomPane)
        assert room.check_action("deal", ("heartbeat",))
        assert not room.check_action("deal", ("refund",))
        room.focus()
        await pilot.press("f")  # the refused action's key does nothing
        await pilot.pause()
        assert app.requested == []
