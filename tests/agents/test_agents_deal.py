"""A whole deal where both sides are agents calling tools in-process, on the rehearsal venue."""

from __future__ import annotations

import json

from tests.agents.support import manifest_text
from tests.engine.helpers import assert_settled


async def test_two_agents_settle_a_deal_through_tools(desks):
    desks.manifest("alice", "buyer", manifest_text())
    desks.manifest("bob", "seller", manifest_text())
    offer = await desks.alice.call("buyer", "offer", {
        "role": "payer", "amount": "250000", "asset": "FLOP", "rails": "memory"})
    assert offer["status"] == "proposed" and offer["role"] == "payer"
    await desks.sync()
    board = await desks.bob.call("seller", "board", {})
    assert [o["offer"] for o in board["offers"]] == [offer["deal"]]
    accepted = await desks.bob.call("seller", "accept", {"offer": offer["deal"]})
    assert accepted["status"] == "accepted"
    await desks.sync()
    locked = await desks.alice.call("buyer", "lock", {"deal": offer["deal"]})
    assert locked["status"] == "locked"
    await desks.sync()
    claimed = await desks.bob.call("seller", "reveal", {"deal": offer["deal"]})
    assert claimed["status"] == "claimed"
    await assert_settled(desks.pair, offer["deal"], "claimed")
    audit = await desks.alice.call("buyer", "audit", {"deal": offer["deal"]})
    assert audit["agree"] and audit["venue_status"] == "claimed"
    receipt = await desks.alice.call("buyer", "receipt", {"deal": offer["deal"]})
    assert receipt["status"] == "claimed"
    # The audit trail holds every call, and no result or row holds the deal's secret.
    calls = desks.bob.ledger.calls("seller")
    assert [c.tool for c in reversed(calls)] == ["board", "accept", "reveal"]
    assert all(c.decision == "allowed" and c.result_kind == "ok" for c in calls)
    secret = desks.pair.bob.keeper.deal_secret(offer["deal"])
    assert secret
    everything = json.dumps([claimed, accepted, audit, [c.params for c in calls]])
    assert secret not in everything
    rails = await desks.alice.call("buyer", "rails", {})
    assert [(r["id"], r["moves_value"]) for r in rails["rails"]] == [("memory", False),
                                                                    ("paper", False)]
