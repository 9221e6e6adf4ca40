"""Cancels before any lock: a proposed offer on the board, an accepted contract in its room."""

from __future__ import annotations

import pytest

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import GateRefused
from tests.engine.helpers import (
    Pair,
    assert_cancelled_on_board,
    assert_settled,
    draft,
    payer_offer_accepted,
)


async def test_offerer_cancels_a_proposed_offer_on_the_board(pair: Pair):
    offer_id = (await pair.alice.post_offer(draft())).deal_id
    deal_a = pair.alice.deal(offer_id)
    assert "cancel" in deal_a.view().actions
    request = deal_a.request_cancel()
    assert request.allowed, request.blockers
    await deal_a.confirm(request)
    assert deal_a.state.status == "cancelled"
    assert pair.alice.journal.deals.for_offer(offer_id)[0].status == "cancelled"

    await pair.bob.sync()
    assert pair.bob.board.get(offer_id).status == "cancelled"
    with pytest.raises(EngineError, match="cancelled"):
        await pair.bob.accept_offer(offer_id)
    again = deal_a.request_cancel()
    assert "the contract is cancelled, not accepted or proposed" in again.blockers
    await assert_cancelled_on_board(pair, offer_id)


@pytest.mark.parametrize("who", ["alice", "bob"])
async def test_either_party_cancels_an_accepted_contract(pair: Pair, who: str):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    mine = deal_a if who == "alice" else deal_b
    request = mine.request_cancel()
    assert request.allowed, request.blockers
    assert any("may be locking" in f.detail for f in request.facts)
    await mine.confirm(request)
    await assert_settled(pair, offer_id, "cancelled")

    lock = deal_a.request_lock("memory")
    assert "the contract is cancelled, not accepted" in lock.blockers
    with pytest.raises(GateRefused):
        await deal_a.confirm(lock)
    assert pair.memory.status(deal_a.state.contract) is None
    assert "receipt" in deal_b.view().actions
    await deal_b.receipt()
    await assert_settled(pair, offer_id, "cancelled")


async def test_cancel_is_refused_once_locked(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await deal_a.confirm(deal_a.request_lock("memory"))
    await pair.sync()
    for deal in (deal_a, deal_b):
        request = deal.request_cancel()
        assert "the contract is locked, not accepted or proposed" in request.blockers
        with pytest.raises(GateRefused):
            await deal.confirm(request)
