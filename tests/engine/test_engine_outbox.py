"""The outbox never posts a line twice and never wedges the wallet, whatever a restart finds."""

from __future__ import annotations

import pytest

from tclk_tui.engine.errors import EngineError
from tclk_tui.store.rows import OutboxState
from tclk_tui.technocore.client import VenueClient
from tests.engine.helpers import Pair

ROOM = "tclk-chatter"


async def _noise(pair: Pair, count: int) -> None:
    """Another writer's lines (Alice's key, outside her wallet's share of the venue's budget:
    the room's traffic, not the wallet's)."""
    async with VenueClient(pair.venue.url, pair.alice.identity) as client:
        for i in range(count):
            await client.post(ROOM, f"noise line number {i} from alice")


async def test_a_landed_line_buried_under_newer_records_is_confirmed_not_reposted(pair: Pair):
    bob = pair.bob
    text = "bob's line that landed just before a crash"
    nonce = bob.client.nonces.next(ROOM)
    item = bob.journal.outbox.enqueue(room=ROOM, text=text, nonce=str(nonce))
    await bob.client.post(ROOM, text, nonce=nonce)  # it landed; the process died before confirm
    await _noise(pair, 230)  # more than one read window of newer records
    notes = await bob.outbox.recover()
    assert any("had landed" in n for n in notes)
    assert bob.journal.outbox.item(item.id).state == OutboxState.CONFIRMED
    export = await bob.client.export(ROOM)
    assert [r.text for r in export.records if r.sender == bob.did] == [text]


async def test_a_pending_line_is_replayed_with_its_journaled_nonce(pair: Pair):
    bob = pair.bob
    text = "bob's line journaled but never posted"
    nonce = bob.client.nonces.next(ROOM)
    item = bob.journal.outbox.enqueue(room=ROOM, text=text, nonce=str(nonce))
    await bob.outbox.recover()
    export = await bob.client.export(ROOM)
    mine = [r for r in export.records if r.sender == bob.did]
    assert [(r.text, r.nonce) for r in mine] == [(text, str(nonce))]
    assert bob.journal.outbox.item(item.id).state == OutboxState.CONFIRMED


async def test_a_posted_line_gone_from_the_ring_is_not_posted_again(pair: Pair):
    bob = pair.bob
    item = bob.journal.outbox.enqueue(room=ROOM, text="accepted once, then reaped", nonce="5")
    bob.journal.outbox.mark_posted(item.id, nonce="5")
    notes = await bob.outbox.recover()
    assert any("not posted again" in n for n in notes)
    assert bob.journal.outbox.item(item.id).state == OutboxState.FAILED
    assert (await bob.client.export(ROOM)).records == ()


async def test_a_line_the_venue_would_rewrite_is_refused_before_the_journal(pair: Pair):
    bob = pair.bob
    with pytest.raises(EngineError, match="would not store this line"):
        await bob.outbox.publish(ROOM, "trailing space ")
    assert bob.journal.outbox.items() == []


async def test_a_verdict_that_would_not_survive_the_sweep_is_refused_at_commit(pair: Pair):
    from tclk_tui.engine.arbitration.desk import ArbitrationError

    with pytest.raises(ArbitrationError, match="spaces"):
        pair.alice.arbitration.commit_vote("0x" + "ab" * 32, "guilty ")


async def test_a_pending_line_the_ring_dropped_is_not_posted_twice_after_a_restart(pair: Pair):
    """Sent before a crash (the answer lost), then cut from the ring: its nonce is spent, the
    room no longer shows it, and a second copy under a fresh nonce would say it twice."""
    bob = pair.bob
    config = pair.venue.venue.config
    config.ring_bytes, config.ring_keep_bytes, config.ring_keep_lines = 4096, 1024, 4
    text = "bob's line sent just before a crash"
    nonce = bob.client.nonces.next(ROOM)
    item = bob.journal.outbox.enqueue(room=ROOM, text=text, nonce=str(nonce))
    bob.journal.outbox.record_attempt(item.id)  # the post went out...
    await bob.client.post(ROOM, text, nonce=nonce)  # ...and landed; the reply was lost
    await _noise(pair, 60)
    assert text not in [r.text for r in (await bob.client.export(ROOM)).records]
    notes = await bob.outbox.recover()
    assert any("UNCERTAIN" in n and "not posted again" in n for n in notes), notes
    assert bob.journal.outbox.item(item.id).state == OutboxState.FAILED
    export = await bob.client.export(ROOM)
    assert [r.text for r in export.records if r.sender == bob.did] == []
