"""The rail an agent's grant is checked against is the rail the engine really uses.

Through the control socket, as the MCP server calls the running wallet. The engine locks a deal
named without a rail on the first offered rail set up here, and an offer may be locked on any
rail it names: so a lock is checked with the engine's own choice, and an offer (or an accept
whose rail the counterparty picks) names only rails on the allow-list.
"""

from __future__ import annotations

import pytest

from tclk_tui.agents.errors import ToolRefused
from tests.agents.support import manifest_text, over_socket
from tests.engine.helpers import draft

PAPER_ONLY = manifest_text(extra='rails = ["paper"]\n')


async def test_a_lock_without_a_rail_is_checked_with_the_rail_the_engine_picks(desks):
    desks.manifest("alice", "buyer", PAPER_ONLY)
    offer = await desks.pair.bob.post_offer(draft(role="payee", rails="memory,paper"))
    await desks.pair.alice.sync()
    async with over_socket(desks.pair, "alice") as call:
        accepted = await call("buyer", "accept", {"offer": offer.deal_id})
        assert accepted["role"] == "payer"  # it can lock on paper: the accept may go
        await desks.sync()
        # Named without a rail, the engine would lock on memory (first offered, set up here).
        with pytest.raises(ToolRefused, match=r"rails: rail memory ") as info:
            await call("buyer", "lock", {"deal": offer.deal_id})
        assert info.value.rule == "rails"
        assert desks.pair.alice.deal(offer.deal_id).state.status == "accepted"
        with pytest.raises(ToolRefused, match=r"rails: rail memory "):
            await call("buyer", "lock", {"deal": offer.deal_id, "rail": "memory"})
        locked = await call("buyer", "lock", {"deal": offer.deal_id, "rail": "paper"})
    assert locked["status"] == "locked" and locked["rail"] == "paper"
    refused = [c for c in desks.alice.ledger.calls("buyer") if c.tool == "lock"
               and c.decision == "refused"]
    assert [c.detail.split(":")[0] for c in refused] == ["rails", "rails"]


async def test_an_offer_names_only_allowed_rails(desks):
    desks.manifest("alice", "buyer", PAPER_ONLY)
    before = len(desks.pair.alice.journal.outbox())
    async with over_socket(desks.pair, "alice") as call:
        for rails, asset, outside in [("evm-htlc,paper", "ETH", "evm-htlc"),
                                      ("memory,paper", "FLOP", "memory"),
                                      ("paper,MEMORY", "FLOP", "memory")]:
            with pytest.raises(ToolRefused, match=f"rails: rail {outside} ") as info:
                await call("buyer", "offer", {"amount": "100", "asset": asset,
                                              "rails": rails, "refund_gap": 3600})
            assert info.value.rule == "rails"
        assert len(desks.pair.alice.journal.outbox()) == before  # nothing was posted
        posted = await call("buyer", "offer", {"amount": "100", "asset": "FLOP",
                                               "rails": "PAPER"})
    assert posted["status"] == "proposed" and posted["role"] == "payer"


async def test_an_accept_whose_rail_the_counterparty_picks_needs_every_usable_rail(desks):
    desks.manifest("alice", "seller", PAPER_ONLY)
    # Bob pays and picks the rail at lock: memory is usable here, so it could be memory.
    offer = await desks.pair.bob.post_offer(draft(role="payer", rails="memory,paper"))
    await desks.pair.alice.sync()
    async with over_socket(desks.pair, "alice") as call:
        with pytest.raises(ToolRefused, match="rails: rail memory "):
            await call("seller", "accept", {"offer": offer.deal_id, "rail": "paper"})
    assert desks.pair.alice.deals() == []
