"""Two concurrent calls against one gate: a deal is locked, revealed or refunded once.

The operator's app, a CLI call and an agent all reach the same engine; nothing keeps two of
them from confirming at the same instant. Each confirmation re-checks the facts, but only a
check made after the other one acted can see what it did."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tclk_tui.engine.gates import GateRefused
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import RunningVenue
from tests.engine.helpers import Clock, Pair, draft, open_wallet


@pytest.fixture
async def two_rails(venue: RunningVenue, tmp_path: Path, clock: Clock):
    """Two wallets sharing two in-process rails (the second under the id `paper`)."""
    rails = {"memory": MemoryRail(clock=clock), "paper": MemoryRail(clock=clock)}
    alice = await open_wallet(venue.url, tmp_path, "alice", clock=clock, rails=rails)
    bob = await open_wallet(venue.url, tmp_path, "bob", clock=clock, rails=rails)
    duo = Pair(venue=venue, data_dir=tmp_path, clock=clock, memory=rails["memory"],
               alice=alice, bob=bob)
    try:
        yield duo, rails
    finally:
        await duo.close()


async def test_two_lock_confirmations_at_once_lock_one_rail_once(two_rails):
    pair, rails = two_rails
    view = await pair.alice.post_offer(draft(rails="memory,paper"))
    await pair.bob.sync()
    await pair.bob.accept_offer(view.deal_id)
    await pair.alice.sync()
    deal = pair.alice.deal(view.deal_id)
    first, second = deal.request_lock("memory"), deal.request_lock("paper")
    assert first.allowed and second.allowed
    outcomes = await asyncio.gather(deal.confirm(first), deal.confirm(second),
                                    return_exceptions=True)
    held = [rail_id for rail_id, rail in rails.items() if rail.status(deal.state.contract)]
    assert held == [deal.state.rail], (held, outcomes)
    assert sum(isinstance(o, GateRefused) for o in outcomes) == 1, outcomes
    await pair.sync()
    locks = [r for r in deal.view().records if r.type == "lock"]
    assert len(locks) == 1, locks
