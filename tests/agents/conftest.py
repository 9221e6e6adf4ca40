"""Agent fixtures: two real wallets on the rehearsal venue, each with its own agents' desk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import RunningVenue
from tests.agents.support import Desks
from tests.engine.conftest import clock  # noqa: F401 - the shared hand-moved clock fixture
from tests.engine.helpers import Clock, Pair, open_wallet


@pytest.fixture
async def desks(venue: RunningVenue, tmp_path: Path, clock: Clock  # noqa: F811
                ) -> AsyncIterator[Desks]:
    memory = MemoryRail(clock=clock)
    rails = {"memory": memory}
    alice = await open_wallet(venue.url, tmp_path, "alice", clock=clock, rails=rails)
    bob = await open_wallet(venue.url, tmp_path, "bob", clock=clock, rails=rails)
    pair = Pair(venue=venue, data_dir=tmp_path, clock=clock, memory=memory, alice=alice, bob=bob)
    duo = Desks(pair)
    try:
        yield duo
    finally:
        await pair.close()
