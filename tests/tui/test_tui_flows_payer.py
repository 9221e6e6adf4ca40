"""More whole flows against the real engine: a deal as payer with the demo agent, and an early
reveal refused by the engine and shown as such in the app."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Button

from tclk_tui.engine.door import LocalDoor
from tclk_tui.protocol.naming import deal_room
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_form import OfferFormScreen
from tests.engine.helpers import draft, open_wallet, post_as
from tests.tui.conftest import dialog_open, gate_open, screen_text
from tests.tui.test_tui_flows import SIZE, fill_offer_form, settle


async def test_a_full_deal_as_payer_against_the_demo_agent(demo):
    wallet = demo.wallet
    app = TclkApp(LocalDoor(wallet))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await settle(pilot, lambda: dialog_open(app, OfferFormScreen), "offer form")
        form = app.screen
        await fill_offer_form(pilot, form, amount="777")
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: app.active_pane == "deals", "our deal")
        deal_id = app.deal_room.view.deal_id
        # The agent accepts as payee; the lock binding appears.
        await settle(pilot, lambda: "lock" in app.deal_room.view.actions, "the agent's accept")
        app.deal_room.query_one("#transcript").focus()
        await pilot.press("l")
        await settle(pilot, lambda: gate_open(app), "the lock gate")
        gate = app.screen
        assert gate.request.action == "lock" and gate.request.allowed
        assert any("settles nothing" in f.detail for f in gate.request.facts)
        await pilot.press("y")
        # The agent verifies our lock on the rail and reveals; the fold says claimed.
        await settle(pilot, lambda: wallet.deal(deal_id).state.status == "claimed", "claimed")
        await settle(pilot, lambda: app.deal_room.view.status == "claimed"
                     and "CLAIMED" in screen_text(app), "the room redrawn")


async def test_an_early_reveal_is_refused_and_the_app_says_why(tmp_path: Path):
    now = int(time.time() * 1000)
    clock = lambda: now  # noqa: E731 - a pinned clock for both wallets
    async with start_venue() as venue:
        alice = await open_wallet(venue.url, tmp_path, "alice", clock=clock)
        bob = await open_wallet(venue.url, tmp_path, "bob", clock=clock, follow=True)
        try:
            offer_id = (await alice.post_offer(draft())).deal_id
            await bob.sync()
            await bob.accept_offer(offer_id)
            await alice.sync()
            deal_a = alice.deal(offer_id)
            contract = deal_a.state.contract
            # Alice announces a lock the paper rail has never seen.
            await post_as(alice, deal_room(contract), {
                "type": "lock", "from": alice.did, "contract": contract, "rail": "paper",
                "ref": contract})
            app = TclkApp(LocalDoor(bob))
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot, lambda: bob.deal(offer_id).state.status == "locked",
                             "the lock frame")
                await pilot.press("2")
                await settle(pilot, lambda: app.deal_room.view is not None
                             and "reveal" in app.deal_room.view.actions, "the reveal binding")
                app.deal_room.query_one("#transcript").focus()
                await pilot.press("r")
                await settle(pilot, lambda: gate_open(app), "the gate")
                gate = app.screen
                assert not gate.request.allowed
                assert any("not verified" in b for b in gate.request.blockers)
                await pilot.press(*contract[2:6])
                await pilot.pause()
                assert gate.query_one("#gate-confirm", Button).disabled
                await pilot.press("enter")
                await settle(pilot, lambda: "The engine will refuse this now" in screen_text(app),
                             "the refusal shown")
                assert bob.deal(offer_id).state.status == "locked"
            room = (await bob.client.export(deal_room(contract))).transcript
            assert not any('"reveal"' in r.line for r in room)
        finally:
            await alice.close()
            await bob.close()
