"""Caps hold under concurrent calls from every transport at once, and a deal counts once."""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.agents.errors import ToolRefused
from tests.agents.support import manifest_text, over_socket
from tests.agents.test_agents_room import agent_client, serving

OFFER = {"role": "payer", "amount": "400", "asset": "FLOP", "rails": "memory"}


async def test_four_concurrent_offers_over_a_room_and_the_socket_keep_the_24h_cap(desks):
    async with agent_client(desks.pair.venue.url) as (me, caller), \
            serving(desks, "alice") as server, over_socket(desks.pair, "alice") as call:
        desks.manifest("alice", "buyer", manifest_text(
            extra=f'did = "{me.did}"\n[caps]\nper_24h = 1000\n'))

        async def by_room() -> dict:
            answer = await caller.call_tool(server.mailbox, "offer", OFFER,
                                            callee_did=desks.pair.alice.did)
            if answer["isError"]:
                raise ToolRefused(answer["structuredContent"]["rule"], "over the room")
            return answer["structuredContent"]

        outcomes = await asyncio.gather(by_room(), by_room(), call("buyer", "offer", OFFER),
                                        call("buyer", "offer", OFFER), return_exceptions=True)
    posted = [o for o in outcomes if isinstance(o, dict)]
    refused = [o for o in outcomes if isinstance(o, ToolRefused)]
    assert len(posted) == 2 and len(refused) == 2, outcomes
    assert {r.rule for r in refused} == {"caps.per_24h"}
    assert len(desks.pair.alice.deals()) == 2
    assert (await desks.alice.caps_used("buyer"))["spent_24h"] == 800


async def test_a_lock_does_not_count_its_own_deal_twice(desks):
    desks.manifest("alice", "buyer", manifest_text(extra="[caps]\nper_24h = 1000\n"))
    desks.manifest("bob", "seller", manifest_text())
    async with over_socket(desks.pair, "alice") as call:
        offer = await call("buyer", "offer", {**OFFER, "amount": "600"})
        await desks.sync()
        await desks.bob.call("seller", "accept", {"offer": offer["deal"]})
        await desks.sync()
        locked = await call("buyer", "lock", {"deal": offer["deal"]})
        assert locked["status"] == "locked"
        # The cap still holds for what is new: 600 counted once, 500 more is over it.
        with pytest.raises(ToolRefused, match=r"caps\.per_24h: 600 spent"):
            await call("buyer", "offer", {**OFFER, "amount": "500"})
    assert (await desks.alice.caps_used("buyer"))["spent_24h"] == 600
