"""Reads are scheduled: wallets on one address share the venue's real limits deal after deal,
settled rooms are dropped, and a promise the new-room budget cannot keep is refused unsigned."""

from __future__ import annotations

import pytest

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import VenueStatus
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.sync.follow_policy import QUIET_AFTER_SETTLED_MS, deal_room_want
from tclk_tui.engine.sync.read_scheduler import Want
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.server import VenueConfig
from tests.engine.helpers import (
    draft,
    lock_as_payer,
    open_wallet,
    payer_offer_accepted,
    reveal_as_payee,
    until,
)

DEALS = 3


async def _one_deal(alice: Wallet, bob: Wallet, amount: int) -> str:
    """Alice pays Bob on the memory rail; each side learns the other's moves only by
    following the venue (no sync), and both post their receipts."""
    offer_id = (await alice.post_offer(draft(rails="memory", amount=str(amount)))).deal_id
    await until(lambda: bob.board.get(offer_id) is not None, timeout_s=20)
    await bob.accept_offer(offer_id)
    deal_a = alice.deal(offer_id)
    await until(lambda: deal_a.state.status == "accepted", timeout_s=20)
    await deal_a.confirm(deal_a.request_lock("memory"))
    deal_b = bob.deal(offer_id)
    await until(lambda: deal_b.lock_check is not None and bool(deal_b.lock_check.verified),
                timeout_s=20)
    request = deal_b.request_reveal()
    await deal_b.confirm(request, typed_code=request.confirm_code)
    await until(lambda: deal_a.state.status == "claimed", timeout_s=20)
    await deal_a.receipt()
    await until(lambda: deal_b.state.status == "claimed", timeout_s=20)
    await deal_b.receipt()
    await until(lambda: deal_a.receipts_in() and deal_b.receipts_in(), timeout_s=20)
    assert deal_a.room is not None
    return deal_a.room


async def test_two_wallets_on_one_address_deal_after_deal_within_the_venues_real_limits(
        venue_factory, tmp_path):
    running = await venue_factory(VenueConfig(rate_limits=True))  # the real server's defaults
    memory = MemoryRail()
    alice = await open_wallet(running.url, tmp_path, "alice", clock=wall_clock_ms,
                              rails={"memory": memory}, follow=True)
    bob = await open_wallet(running.url, tmp_path, "bob", clock=wall_clock_ms,
                            rails={"memory": memory}, follow=True)
    queues = [alice.events.subscribe(), bob.events.subscribe()]
    try:
        rooms = [await _one_deal(alice, bob, 1000 + n) for n in range(DEALS)]
        for wallet in (alice, bob):  # both receipts in: nobody reads those rooms any more
            await until(lambda w=wallet: not any(w.reads.following(r) for r in rooms),
                        timeout_s=10)
            assert wallet.reads.following(OFFER_ROOM)
        assert running.venue.slots.refused == 0, "a waiting read was refused a slot"
        assert running.venue.limits.refusals == {}, "a request was refused for budget"
        statuses = [e for q in queues for e in _drain(q) if isinstance(e, VenueStatus)]
        assert not [s for s in statuses if s.state in ("polling", "rate-limited")]
        await alice.close()
        alice = await open_wallet(running.url, tmp_path, "alice", clock=wall_clock_ms,
                                  rails={"memory": memory}, follow=True)
        followed = {r.room for r in alice.reads.rooms()}
        assert OFFER_ROOM in followed and not followed & set(rooms)  # only live rooms
    finally:
        await alice.close()
        await bob.close()


def _drain(queue) -> list:
    events = []
    while not queue.empty():
        events.append(queue.get_nowait())
    return events


async def test_a_settled_room_is_read_until_both_receipts_or_a_quiet_window(pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    assert deal_room_want(deal_b, pair.clock(), 0.0) == Want.HOT  # the payee waits: the lock
    assert deal_room_want(deal_a, pair.clock(), 0.0) == Want.LIVE  # the payer's own move
    await lock_as_payer(pair, deal_a, "memory")
    assert deal_room_want(deal_a, pair.clock(), 0.0) == Want.HOT  # now the payer waits
    assert deal_room_want(deal_a, pair.clock(), 3600.0) == Want.LIVE  # a slow counterparty
    await reveal_as_payee(pair, deal_b)
    assert deal_room_want(deal_a, pair.clock(), 0.0) == Want.HOT  # settled: receipts follow
    assert deal_room_want(deal_a, pair.clock(), 30.0) == Want.LIVE
    await deal_a.receipt()
    await pair.sync()
    assert deal_room_want(deal_a, pair.clock(), 3600.0) == Want.IDLE  # one receipt, not both
    pair.clock.advance(QUIET_AFTER_SETTLED_MS)
    assert deal_room_want(deal_a, pair.clock(), 0.0) == Want.DROP  # quiet since: dropped
    assert deal_room_want(deal_b, pair.clock(), 0.0) == Want.DROP


async def test_both_receipts_drop_the_room_at_once(pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    await reveal_as_payee(pair, deal_b)
    await deal_a.receipt()
    await deal_b.receipt()
    for wallet in (pair.alice, pair.bob):  # what the follower reads after the settlement
        export = await wallet.client.export(deal_a.room or "")
        wallet.rooms.ingest(export.room, list(export.verified), export.generation)
    assert deal_room_want(deal_a, pair.clock(), 0.0) == Want.DROP
    assert deal_room_want(deal_b, pair.clock(), 0.0) == Want.DROP


async def test_an_accept_the_room_budget_cannot_keep_is_refused_unsigned_with_the_reason(
        venue_factory, tmp_path):
    # Two new rooms a day for the address, one for each of two wallets on it.
    running = await venue_factory(VenueConfig(rate_limits=True, rate_rooms_per_day=2))
    memory = MemoryRail()
    alice = await open_wallet(running.url, tmp_path, "alice", clock=wall_clock_ms,
                              rails={"memory": memory})
    bob = await open_wallet(running.url, tmp_path, "bob", clock=wall_clock_ms,
                            rails={"memory": memory})
    try:
        budget = alice.venue_budget()
        assert budget is not None and budget.budget.rooms_left == 1
        first = await bob.post_offer(draft(role="payee", rails="memory", amount="1"))
        second = await bob.post_offer(draft(role="payee", rails="memory", amount="2"))
        await alice.sync()
        await alice.accept_offer(first.deal_id)  # Alice pays: her lock will create the room
        with pytest.raises(EngineError) as refused:
            await alice.accept_offer(second.deal_id)
        reason = str(refused.value)
        assert "before anything is signed" in reason and "new rooms a day" in reason
        assert "promised to live deals" in reason and "frees up in" in reason
        assert second.deal_id not in alice.book  # nothing journaled for it
        assert not [r for r in await _board(alice)
                    if r.sender == alice.did and second.deal_id in r.text]
        with pytest.raises(EngineError, match="new rooms a day"):
            await alice.post_offer(draft(rails="memory"))  # a payer offer would need one too
        await alice.post_offer(draft(role="payee", rails="memory"))  # a payee offer does not
        assert running.venue.limits.refusals == {}
    finally:
        await alice.close()
        await bob.close()


async def _board(wallet: Wallet):
    return (await wallet.client.export(OFFER_ROOM)).records


async def test_the_lock_gate_refuses_a_lock_whose_room_cannot_be_created(pair):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    budget = pair.alice.client.budget
    assert budget is not None
    budget.rooms.at_most(budget._wall(), 0.0)
    request = deal_a.request_lock("memory")
    assert not request.allowed
    assert any("room does not exist yet" in b and "frees up in" in b for b in request.blockers)
    with pytest.raises(GateRefused, match="new rooms a day"):
        await deal_a.confirm(request)
    assert pair.memory.status(deal_a.state.contract or "") is None  # nothing locked
