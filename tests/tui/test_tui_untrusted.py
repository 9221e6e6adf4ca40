"""Everything a stranger can write goes through every pane; nothing is ever interpreted."""

from dataclasses import replace

from textual.app import App

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.events import Notice, VenueStatus
from tclk_tui.engine.gates import GateFact
from tclk_tui.engine.views import HeldSecret, RecordView, TimelineEntry, VaultStatus
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.arb_tally import TallyForm
from tclk_tui.tui.arbitration_pane import ArbitrationPane
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.rejected_screen import RejectedScreen
from tclk_tui.tui.vault_pane import VaultPane
from tests.tui.conftest import FORBIDDEN_CHARS, HOSTILE, screen_text, wait_for
from tests.tui.contract_wallet import (
    Clock,
    ContractWallet,
    Tally,
    gate_request,
    make_deadlines,
    make_deal,
    make_offer,
)

MARKUP = "[@click=app.quit]x[/]"
SIZE = (240, 50)


def hostile_wallet() -> ContractWallet:
    row = make_offer(1, amount=HOSTILE, asset=HOSTILE, rails=(HOSTILE,), role=HOSTILE,
                     sender="did:key:" + HOSTILE, job=HOSTILE, line=HOSTILE,
                     capability=(HOSTILE,))
    record = RecordView(room=HOSTILE, seq=1, ts_ms=0, sender=HOSTILE, verified=True,
                        type="offer", summary=HOSTILE, ok=False, reason=HOSTILE, mine=False)
    deal = make_deal(row.offer_id, amount=HOSTILE, asset=HOSTILE, lock=HOSTILE, rail=HOSTILE,
                     rail_ref=HOSTILE, counterparty=HOSTILE, note=HOSTILE, records=(record,),
                     timeline=(TimelineEntry(HOSTILE, 0, HOSTILE),),
                     deadlines=replace(make_deadlines(), last_safe_what=HOSTILE),
                     actions=frozenset({"reveal", "accept"}))
    wallet = ContractWallet(rows=[row], deals=[deal], rejected={HOSTILE: 7}, clock=Clock(),
                            secrets=[HeldSecret(HOSTILE, row.offer_id, HOSTILE, HOSTILE)])
    wallet.profile = HOSTILE
    wallet.venue_url = HOSTILE
    wallet.vault_status = lambda: VaultStatus(HOSTILE, True, HOSTILE)  # type: ignore[method-assign]
    wallet.arbitration.tally_result = Tally(commits={HOSTILE: HOSTILE},
                                            reveals={HOSTILE: HOSTILE},
                                            counts={HOSTILE: 1}, problems=(HOSTILE,))
    return wallet


def assert_inert(app: App, *, whole: bool = True) -> None:
    text = screen_text(app)
    for char in FORBIDDEN_CHARS:
        assert char not in text, f"{char!r} reached the screen"
    if whole:
        assert MARKUP in text
        assert "[b]bold[/b]" in text
        assert "\\x1b[31mred" in text
        assert "\\u202eevil" in text
    else:
        assert "[@click" in text or "\\x1b" in text
    # The brackets being on screen is the proof "[b]" was not applied; an action link would
    # also leave "@click" metadata on the segment, which must never happen.
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            assert not (segment.style and "@click" in segment.style.meta), "a link was made"
    assert app.is_running


async def test_hostile_text_through_every_pane_and_modal():
    wallet = hostile_wallet()
    app = TclkApp(LocalDoor(wallet), clock_ms=wallet.clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_inert(app)  # header, board table, detail panel

        await pilot.click("#offer-table", offset=(5, 1))
        await pilot.click("#offer-detail", offset=(8, 1))
        assert app.is_running

        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen))
        assert_inert(app)
        await pilot.press("escape")

        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, RejectedScreen))
        assert_inert(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RejectedScreen))

        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None)
        await pilot.pause()
        assert_inert(app)

        wallet.deal(wallet.deals()[0].deal_id).next_request = gate_request(
            "reveal", facts=(GateFact(HOSTILE, False, HOSTILE),), blockers=(HOSTILE,))
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen))
        assert_inert(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GateScreen))

        app.action_show_pane("vault")
        await wait_for(pilot, lambda: app.query_one(VaultPane).secrets)
        await pilot.pause()
        assert_inert(app)

        app.action_show_pane("arbitration")
        app.query_one(ArbitrationPane).show_section("tally")
        await pilot.pause()
        app.query_one("#tally-contract").value = "0xabc"
        await pilot.click("#tally-go")
        await wait_for(pilot, lambda: app.query_one(TallyForm).tally is not None)
        await pilot.pause()
        assert_inert(app)

        wallet.events.publish(VenueStatus("rate-limited", HOSTILE))
        wallet.events.publish(Notice("warning", HOSTILE))
        await wait_for(pilot, lambda: app._notifications)
        await pilot.pause()
        note = list(app._notifications)[-1]
        assert note.markup is False and MARKUP in note.message
        assert not any(char in note.message for char in FORBIDDEN_CHARS)
        assert_inert(app, whole=False)


async def test_hostile_desk_errors_are_inert():
    wallet = hostile_wallet()

    def refuse(*_args: object) -> list[str]:
        from tests.tui.contract_wallet import EngineError
        raise EngineError(HOSTILE)

    wallet.arbitration.split = refuse  # type: ignore[method-assign]
    app = TclkApp(LocalDoor(wallet), clock_ms=wallet.clock)
    async with app.run_test(size=SIZE) as pilot:
        app.action_show_pane("arbitration")
        await pilot.pause()
        await pilot.click("#split-go")
        await wait_for(pilot, lambda: "[@click" in screen_text(app))
        assert_inert(app)
