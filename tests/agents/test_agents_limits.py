"""Caps, lists and the open-deal limit refuse before the engine acts, naming the rule."""

from __future__ import annotations

import pytest

from tclk_tui.agents.errors import ToolFailed, ToolRefused
from tests.agents.support import manifest_text
from tests.engine.helpers import draft

OFFER = {"role": "payer", "amount": "400", "asset": "FLOP", "rails": "memory"}


def _outbox(desks, who="alice") -> int:
    return len(getattr(desks.pair, who).journal.outbox())


async def test_per_deal_cap(desks):
    desks.manifest("alice", "a", manifest_text(extra="[caps]\nper_deal = 300\n"))
    before = _outbox(desks)
    with pytest.raises(ToolRefused, match=r"caps.per_deal: 400 FLOP is over") as info:
        await desks.alice.call("a", "offer", OFFER)
    assert info.value.rule == "caps.per_deal" and _outbox(desks) == before
    offer = await desks.alice.call("a", "offer", {**OFFER, "amount": "300"})
    assert offer["status"] == "proposed"
    # Being paid is no spend: a payee offer of any size passes the payer's caps.
    await desks.alice.call("a", "offer", {**OFFER, "role": "payee", "amount": "9999"})


async def test_the_24h_cap_survives_a_restart_and_rolls(desks):
    desks.manifest("alice", "a", manifest_text(extra="[caps]\nper_24h = 1000\n"))
    await desks.alice.call("a", "offer", {**OFFER, "amount": "600"})
    desk = await desks.reopen("alice")
    with pytest.raises(ToolRefused, match=r"caps.per_24h: 600 spent in the last 24 h plus 600"):
        await desk.call("a", "offer", {**OFFER, "amount": "600"})
    await desk.call("a", "offer", {**OFFER, "amount": "400"})  # exactly at the cap
    with pytest.raises(ToolRefused, match=r"caps\.per_24h"):
        await desk.call("a", "offer", {**OFFER, "amount": "1"})
    assert (await desk.caps_used("a"))["spent_24h"] == 1000
    desks.pair.clock.advance(24 * 3600 * 1000 + 1)
    desk = await desks.reopen("alice")
    await desk.call("a", "offer", {**OFFER, "amount": "900", "expires_in": 600})


async def test_per_asset_caps(desks):
    desks.manifest("alice", "a", manifest_text(extra="[caps.assets]\nFLOP = 500\n"))
    await desks.alice.call("a", "offer", {**OFFER, "amount": "500"})
    with pytest.raises(ToolRefused, match=r"caps.assets.FLOP: 500 FLOP spent"):
        await desks.alice.call("a", "offer", {**OFFER, "amount": "1"})
    with pytest.raises(ToolRefused, match="asset USDC is not in the agent's asset caps"):
        await desks.alice.call("a", "offer", {**OFFER, "asset": "USDC"})


async def test_rail_allow_list(desks):
    desks.manifest("alice", "a", manifest_text(extra='rails = ["paper"]\n'))
    with pytest.raises(ToolRefused, match="rails: rail memory is not on the agent's rail"):
        await desks.alice.call("a", "offer", OFFER)


async def test_counterparty_lists_and_accepts_count_as_spend(desks):
    seller_offer = await desks.pair.bob.post_offer(draft(role="payee", amount="700",
                                                         rails="memory"))
    await desks.pair.alice.sync()
    bob = desks.pair.bob.did
    desks.manifest("alice", "deny", manifest_text(extra=f'[counterparties]\ndeny = ["{bob}"]\n'))
    desks.manifest("alice", "allow", manifest_text(
        extra=f'[counterparties]\nallow = ["{desks.pair.alice.did}"]\n'))
    desks.manifest("alice", "capped", manifest_text(extra="[caps]\nper_deal = 500\n"))
    for agent, rule in [("deny", "counterparties.deny"), ("allow", "counterparties.allow"),
                        ("capped", "caps.per_deal")]:
        with pytest.raises(ToolRefused) as info:
            await desks.alice.call(agent, "accept", {"offer": seller_offer.deal_id})
        assert info.value.rule == rule
    assert desks.pair.alice.deals() == []
    desks.manifest("alice", "ok", manifest_text(extra="[caps]\nper_24h = 700\n"))
    accepted = await desks.alice.call("ok", "accept", {"offer": seller_offer.deal_id})
    assert accepted["role"] == "payer"
    assert (await desks.alice.caps_used("ok"))["spent_24h"] == 700


async def test_max_open_deals(desks):
    desks.manifest("alice", "a", manifest_text(extra="max_open_deals = 1\n"))
    first = await desks.alice.call("a", "offer", OFFER)
    with pytest.raises(ToolRefused, match="max_open_deals: the agent already has 1 open"):
        await desks.alice.call("a", "offer", OFFER)
    await desks.alice.call("a", "cancel", {"deal": first["deal"]})
    await desks.pair.alice.sync()
    await desks.alice.call("a", "offer", OFFER)


async def test_an_agent_acts_only_on_its_own_deals(desks):
    desks.manifest("alice", "a", manifest_text())
    desks.manifest("alice", "b", manifest_text())
    mine = await desks.alice.call("a", "offer", OFFER)
    with pytest.raises(ToolRefused, match=r"deal\.owner"):
        await desks.alice.call("b", "cancel", {"deal": mine["deal"]})
    status = await desks.alice.call("b", "status", {"deal": mine["deal"]})  # reading is fine
    assert status["status"] == "proposed"


async def test_an_empty_offer_prefix_names_no_offer(desks):
    await desks.pair.bob.post_offer(draft(role="payee", rails="memory"))
    await desks.pair.alice.sync()
    desks.manifest("alice", "a", manifest_text())
    for prefix in ("", "  "):
        with pytest.raises(ToolFailed, match="no such offer"):
            await desks.alice.call("a", "accept", {"offer": prefix})
    assert desks.pair.alice.deals() == []
