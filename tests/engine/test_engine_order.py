"""Records are folded in venue order, whatever order this wallet happens to read them in."""

from __future__ import annotations

import random

from tclk_tui.engine.deal import DealSession
from tclk_tui.protocol.transcript import fold_transcript
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


async def test_a_deal_fed_its_records_in_any_order_folds_as_in_venue_order(pair: Pair):
    """The running fold of a deal, fed its board and room records shuffled (as a wallet that
    reads its own lines back before the follower's pages), is the fold of the venue order."""
    _offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await deal_a.heartbeat("first")
    await deal_a.confirm(deal_a.request_lock("memory"))
    await deal_b.heartbeat("seen")
    await pair.bob.sync()
    assert deal_b.state.status == "locked"
    expected = fold_transcript(deal_b._records())
    assert deal_b._fold.fold() == expected
    items = [(True, r) for r in deal_b.board_records] + [(False, r) for r in deal_b.room_records]
    for seed in range(6):
        random.Random(seed).shuffle(items)
        fresh = DealSession(deal_b.ctx, deal_b.deal_id, deal_b.role, deal_b.offer_record)
        for on_board, record in items:
            if on_board:
                fresh.ingest_board(record)
            else:
                fresh.ingest_room([record], verified=seed % 2 == 0)
        assert fresh.ingest_room(list(deal_b.room_records)) is False  # nothing twice
        assert fresh._records() == deal_b._records()
        assert fresh._fold.fold() == expected
        assert fresh.state == deal_b.state
        assert fresh.view().records == deal_b.view().records
