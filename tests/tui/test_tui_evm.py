"""The app on evm-htlc against a real anvil: amounts read in ether (never wei labelled ETH, never
cut so two amounts look alike), the lock gate lists the account's balance, the gas, amount
plus gas and the margin and refuses what the balance cannot cover as it opens, and the deal
room's rail status follows a claim made on chain only, flagged against the transcript."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.evm import save_evm_settings
from tclk_tui.engine.wallet import wall_clock_ms
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.deal_list import DealList
from tests.engine.helpers import draft, open_wallet
from tests.rails.evm.chain import ETHER
from tests.tui.conftest import gate_open, screen_text
from tests.tui.test_tui_flows import SIZE, settle


def evm_draft(amount: int):
    return draft(rails="evm-htlc", asset="ETH", amount=str(amount), claim_in_s="900",
                 refund_gap_s="900")


async def test_an_evm_deal_in_the_app_reads_as_ether_and_follows_the_chain(
        venue, tmp_path: Path, shared_chain):
    chain = shared_chain
    for profile in ("alice", "bob"):
        save_evm_settings(tmp_path / profile, dataclasses.replace(chain.config))
    alice = await open_wallet(venue.url, tmp_path, "alice", clock=wall_clock_ms, follow=True)
    bob = await open_wallet(venue.url, tmp_path, "bob", clock=wall_clock_ms)
    try:
        await chain.fund(alice.rails["evm-htlc"].address, 2 * ETHER)
        await chain.fund(bob.rails["evm-htlc"].address, ETHER // 10)
        small = (await alice.post_offer(evm_draft(10**17))).deal_id  # 0.1 ETH
        large = (await alice.post_offer(evm_draft(1000 * ETHER))).deal_id  # 1000 ETH
        await bob.sync()
        for offer_id in (small, large):
            await bob.accept_offer(offer_id)
        app = TclkApp(LocalDoor(alice))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: all(alice.deal(d).state.status == "accepted"
                                            for d in (small, large)), "both accepts")
            await pilot.press("2")
            await settle(pilot, lambda: len(app.query_one(DealList).deal_ids) == 2,
                         "the deal list")
            text = screen_text(app)
            assert "0.1 ETH" in text and "1000 ETH" in text  # ether, and told apart
            assert "100000000000000000" not in text
            # The large deal: its gate refuses at once, saying what the account holds.
            app.deals.open_deal(large)
            await settle(pilot, lambda: app.deal_room.view is not None
                         and app.deal_room.view.deal_id == large
                         and alice.deal(large).lock_quote is not None, "the account read")
            app.deal_room.query_one("#transcript").focus()
            await pilot.press("l")
            await settle(pilot, lambda: gate_open(app), "the lock gate")
            facts = {f.label: f.detail for f in app.screen.request.facts}
            assert facts["amount"] == f"1000 ETH ({1000 * ETHER} wei)"
            assert facts["balance"].startswith("2 ETH")
            assert "short by" in facts["margin"]
            assert not app.screen.request.allowed
            assert any("cannot cover" in b for b in app.screen.request.blockers)
            assert "cannot cover" in screen_text(app)
            await pilot.press("escape")
            await settle(pilot, lambda: not gate_open(app), "the gate closed")
            # The small deal: balance, gas, amount plus gas and the margin, then the lock.
            app.deals.open_deal(small)
            await settle(pilot, lambda: app.deal_room.view.deal_id == small
                         and alice.deal(small).lock_quote is not None, "the account read")
            app.deal_room.query_one("#transcript").focus()
            await pilot.press("l")
            await settle(pilot, lambda: gate_open(app), "the lock gate")
            request = app.screen.request
            facts = {f.label: f.detail for f in request.facts}
            assert facts["amount"] == f"0.1 ETH ({10**17} wei)"
            assert facts["estimated gas"].endswith("gwei)") and " ETH at most" in \
                facts["estimated gas"]
            assert facts["amount plus gas"].startswith("0.100")
            assert facts["margin"].startswith("1.89")
            assert request.allowed, request.blockers
            await pilot.press("y")
            await settle(pilot, lambda: alice.deal(small).state.status == "locked", "locked")
            # Bob claims on chain and posts nothing: the room follows the chain by itself.
            await bob.sync()
            ref = bob.deal(small).state.rail_ref
            await bob.rails["evm-htlc"].claim(ref, bob.keeper.deal_secret(small))
            await settle(pilot, lambda: app.deal_room.view.rail_status == "claimed",
                         "the rail status")
            view = app.deal_room.view
            assert view.status == "unknown" and view.transcript_status == "locked"
            # The view is set before the pane repaints: wait for the picture, not the model.
            await settle(pilot, lambda: "UNKNOWN:" in screen_text(app)
                         and "shows claimed" in screen_text(app), "the warning on screen")
    finally:
        await alice.close()
        await bob.close()
