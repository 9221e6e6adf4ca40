"""Records are folded in venue order, whatever order this wallet happens to read them in."""

from __future__ import annotations

from tests.engine.helpers import (
    Pair,
    assert_cancelled_on_board,
    assert_settled,
    draft,
    payer_offer_accepted,
)


async def test_an_accept_behind_a_board_cancel_does_not_revive_the_offer(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft())).deal_id
    await bob.sync()  # bob sees the offer open...
    deal_a = alice.deal(offer_id)
    await deal_a.confirm(deal_a.request_cancel())
    await bob.accept_offer(offer_id)  # ...and accepts before reading the cancel
    deal_b = bob.deal(offer_id)
    assert deal_b.state.status == "cancelled"
    steps = [(r.type, r.ok, r.reason) for r in deal_b.view().records]
    assert steps == [("offer", True, None), ("cancel", True, None),
                     ("accept", False, "accept in status cancelled")]
    assert bob.board.get(offer_id).status == "cancelled"
    await alice.sync()
    assert deal_a.state.status == "cancelled"
    await assert_cancelled_on_board(pair, offer_id)


async def test_a_lock_behind_the_counterpartys_cancel_does_not_lock_the_contract(pair: Pair):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await deal_b.confirm(deal_b.request_cancel())
    request = deal_a.request_lock("memory")  # alice has not read the cancel yet
    assert request.allowed
    await deal_a.confirm(request)
    assert deal_a.state.status == "cancelled"
    lock = next(r for r in deal_a.view().records if r.type == "lock")
    assert (lock.ok, lock.reason) == (False, "lock in status cancelled")
    await assert_settled(pair, offer_id, "cancelled")
