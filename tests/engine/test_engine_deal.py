"""Two wallets complete deals over the rehearsal venue; every step is the fold of signed records."""

from __future__ import annotations

import time

import pytest

from tclk_tui.engine.gates import GateRefused
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import find_contract_handshake, fold_transcript
from tclk_tui.rails.memory import MemoryRail
from tests.engine.helpers import Clock, draft, open_wallet

NOW = int(time.time() * 1000)


async def _pair(venue, tmp_path, clock, rails=None):
    alice = await open_wallet(venue.url, tmp_path, "alice", clock=clock, rails=rails)
    bob = await open_wallet(venue.url, tmp_path, "bob", clock=clock, rails=rails)
    return alice, bob


async def _audit(wallet, contract):
    board = (await wallet.client.export(OFFER_ROOM)).transcript
    room = (await wallet.client.export("mb-p-tclk-" + contract[2:18])).transcript
    handshake = find_contract_handshake(board, contract)
    return fold_transcript([handshake.offer, handshake.accept, *room]).state.status


@pytest.mark.parametrize("rail", ["paper", "memory"])
async def test_hash_lock_deal_payer_offer_ends_claimed_everywhere(venue, tmp_path, rail):
    clock = Clock(NOW)
    shared = {"memory": MemoryRail(clock=clock)}
    alice, bob = await _pair(venue, tmp_path, clock, shared)
    try:
        view = await alice.post_offer(draft(rails=rail))
        offer_id = view.deal_id
        await bob.sync()
        assert bob.board.get(offer_id).status == "open"
        accepted = await bob.accept_offer(offer_id)
        assert accepted.status == "accepted" and accepted.role == "payee"
        await alice.sync()
        deal_a = alice.deal(offer_id)
        assert deal_a.state.status == "accepted"

        request = deal_a.request_lock()
        assert request.allowed, request.blockers
        await deal_a.confirm(request)
        assert deal_a.state.status == "locked"

        await bob.sync()
        deal_b = bob.deal(offer_id)
        assert deal_b.state.status == "locked"
        reveal = deal_b.request_reveal()
        assert reveal.allowed, reveal.blockers
        with pytest.raises(GateRefused, match="type"):
            await deal_b.confirm(reveal, typed_code="zzzz")
        await deal_b.confirm(reveal, typed_code=reveal.confirm_code)
        assert deal_b.state.status == "claimed"

        await alice.sync()
        assert deal_a.state.status == "claimed"
        contract = deal_a.state.contract
        assert await _audit(alice, contract) == "claimed"
        assert alice.journal.deal_by_contract(contract).status == "claimed"
        assert bob.journal.deal_by_contract(contract).status == "claimed"
    finally:
        await alice.close()
        await bob.close()


async def test_early_reveal_is_refused_before_lock(venue, tmp_path):
    clock = Clock(NOW)
    alice, bob = await _pair(venue, tmp_path, clock)
    try:
        offer_id = (await alice.post_offer(draft())).deal_id
        await bob.sync()
        await bob.accept_offer(offer_id)
        deal_b = bob.deal(offer_id)
        request = deal_b.request_reveal()
        assert not request.allowed
        assert any("not locked" in b for b in request.blockers)
        with pytest.raises(GateRefused):
            await deal_b.confirm(request, typed_code=request.confirm_code)
    finally:
        await alice.close()
        await bob.close()
