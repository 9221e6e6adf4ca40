"""Engine fixtures: two wallets on the rehearsal venue, with the venue on the wallets' clock."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import RunningVenue
from tests.engine.helpers import Clock, Pair, open_wallet

START_MS = (int(time.time()) // 1000) * 1_000_000


@pytest.fixture
def clock(venue: RunningVenue) -> Clock:
    """One hand-moved clock for the wallets, the rails and the venue's record timestamps."""
    shared = Clock(START_MS)
    venue.venue.config.clock = shared.seconds
    return shared


@pytest.fixture
async def pair(venue: RunningVenue, tmp_path: Path, clock: Clock) -> AsyncIterator[Pair]:
    memory = MemoryRail(clock=clock)
    rails = {"memory": memory}
    alice = await open_wallet(venue.url, tmp_path, "alice", clock=clock, rails=rails)
    bob = await open_wallet(venue.url, tmp_path, "bob", clock=clock, rails=rails)
    duo = Pair(venue=venue, data_dir=tmp_path, clock=clock, memory=memory, alice=alice, bob=bob)
    try:
        yield duo
    finally:
        await duo.close()
