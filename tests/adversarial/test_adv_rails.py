"""The careless operator's spelling of a rail: `EVM-HTLC`, ` evm-htlc` and `evm-htlc` are
one rail everywhere, so the rules of that rail apply whichever spelling was typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import RunningVenue
from tests.engine.helpers import Clock, draft, open_wallet


@pytest.mark.parametrize("spelling", ["evm-htlc", "EVM-HTLC", " evm-htlc", "memory,Evm-Htlc"])
async def test_the_evm_rules_of_a_draft_hold_for_every_spelling(
        venue: RunningVenue, tmp_path: Path, clock: Clock, spelling: str):
    # Any rail object under the id: the draft's rules are the engine's, not the rail's.
    rails = {"memory": MemoryRail(clock=clock), "evm-htlc": MemoryRail(clock=clock)}
    wallet = await open_wallet(venue.url, tmp_path, "alice", clock=clock, rails=rails)
    try:
        problems = wallet.validate_offer_draft(draft(rails=spelling, asset="ETH",
                                                     refund_gap_s="30",
                                                     amount=str(2**256)))
        fields = {p.field for p in problems}
        assert {"refund_gap_s", "amount"} <= fields, problems
    finally:
        await wallet.close()
