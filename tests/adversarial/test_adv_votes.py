"""A stranger who floods a deal room until the venue's ring forgets the jurors' commitments
must not erase their votes: every reader still counts what the jurors signed."""

from __future__ import annotations

from pathlib import Path

from tclk_tui.engine.commands import execute
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.server import VenueConfig
from tests.engine.helpers import Clock, Pair, arbitrated_deal, open_wallet

RING = 16 << 10  # a small ring, so a few dozen lines flood it (the real one is 10 MiB)


async def test_flooding_the_deal_room_past_the_ring_erases_no_vote(venue_factory,
                                                                     tmp_path: Path):
    venue = await venue_factory(config=VenueConfig(ring_bytes=RING, ring_keep_bytes=RING // 2,
                                                   ring_keep_lines=RING // 128))
    clock = Clock(int(venue.venue.config.clock() * 1000))
    venue.venue.config.clock = clock.seconds
    memory = MemoryRail(clock=clock)
    rails = {"memory": memory}
    alice = await open_wallet(venue.url, tmp_path, "alice", clock=clock, rails=rails)
    bob = await open_wallet(venue.url, tmp_path, "bob", clock=clock, rails=rails)
    pair = Pair(venue=venue, data_dir=tmp_path, clock=clock, memory=memory, alice=alice,
                bob=bob)
    try:
        jurors = [await pair.open(name) for name in ("j1", "j2")]
        mallory = await pair.stranger("mallory")
        offer_id, deal_a, _ = await arbitrated_deal(pair, jurors, lock="point")
        contract = deal_a.state.contract
        for juror, verdict in zip(jurors, ("release", "release"), strict=True):
            await juror.referee.refresh()
            await juror.referee.commit(offer_id, verdict)
        for juror in jurors:  # the consoles watch the case: each has read both commitments
            await juror.referee.refresh()
        await pair.alice.sync()
        for n in range(3 * RING // 1000):  # distinct lines of ~1000 characters
            await mallory.client.post(deal_a.room, f"{n:06d} " + "x" * 990)
        for juror in jurors:
            await juror.referee.open_vote(offer_id)
        round_ = await execute(jurors[0], "round", {"offer": offer_id[:14]})
        assert round_["counts"] == {"release": 2}, round_
        tally = await execute(jurors[1], "tally", {"contract": contract})
        assert tally["counts"] == {"release": 2}, tally
        await pair.alice.sync()
        tally = await execute(pair.alice, "tally", {"contract": contract})
        assert tally["counts"] == {"release": 2}, tally
    finally:
        await pair.close()
