"""Gated calls under `ask`: journaled pending approvals the operator approves or denies."""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.agents.desk import ApprovalError
from tclk_tui.agents.errors import ToolFailed, ToolRefused
from tests.agents.support import manifest_text

ASK = 'lock = "auto"\nreveal = "ask"\nrefund = "auto"\ncancel = "ask"\n'
OFFER = {"role": "payer", "amount": "250000", "asset": "FLOP", "rails": "memory"}


async def locked_deal(desks) -> str:
    """Alice's agent pays (lock on auto), Bob's agent is the payee with reveal on `ask`."""
    desks.manifest("alice", "buyer", manifest_text())
    desks.manifest("bob", "seller", manifest_text(approval=ASK))
    offer = await desks.alice.call("buyer", "offer", OFFER)
    await desks.sync()
    await desks.bob.call("seller", "accept", {"offer": offer["deal"]})
    await desks.sync()
    await desks.alice.call("buyer", "lock", {"deal": offer["deal"]})
    await desks.sync()
    return offer["deal"]


async def test_ask_pends_then_the_operator_approves_with_the_code(desks):
    deal = await locked_deal(desks)
    answer = await desks.bob.call("seller", "reveal", {"deal": deal})
    assert answer["status"] == "pending" and answer["approval"].startswith("ap-")
    assert desks.pair.bob.deal(deal).state.status == "locked"  # nothing performed yet
    [row] = desks.bob.pending()
    assert row.agent == "seller" and row.tool == "reveal" and row.deal_id == deal
    labels = [f["label"] for f in row.facts["facts"]]
    assert "secret in the vault opens the statement" in labels
    assert row.facts["caps_used"]["open_deals"] == 1 and row.facts["needs_code"]
    status = await desks.bob.call("seller", "approval", {"approval": row.id})
    assert status["state"] == "pending"
    with pytest.raises(ApprovalError, match="type"):
        await desks.bob.approve(row.id, "zzzz")
    assert desks.bob.approval(row.id).state == "pending"  # a typo decides nothing
    code = desks.pair.bob.deal(deal).state.contract[2:6]
    decided = await desks.bob.approve(row.id, code)
    assert decided.state == "approved" and decided.result["status"] == "claimed"
    status = await desks.bob.call("seller", "approval", {"approval": row.id})
    assert status["state"] == "approved" and status["result"]["status"] == "claimed"
    assert desks.pair.bob.deal(deal).state.status == "claimed"
    kinds = [(c.transport, c.tool, c.decision) for c in reversed(desks.bob.ledger.calls(
        "seller", deal_id=deal))]
    assert ("in-process", "reveal", "pending") in kinds
    assert ("operator", "reveal", "approved") in kinds


async def test_a_waiting_agent_gets_the_result_or_the_denial_with_its_reason(desks):
    deal = await locked_deal(desks)
    waiting = asyncio.create_task(desks.bob.call("seller", "reveal", {"deal": deal,
                                                                      "wait_s": 30}))
    async with asyncio.timeout(10):
        while not desks.bob.pending():
            await asyncio.sleep(0.01)
    [row] = desks.bob.pending()
    desks.bob.deny(row.id, "not before   the\njob is delivered")
    with pytest.raises(ToolRefused, match="denied by the operator: not before the job is "
                       "delivered") as info:
        await waiting
    assert info.value.rule == "operator"
    assert desks.pair.bob.deal(deal).state.status == "locked"
    status = await desks.bob.call("seller", "approval", {"approval": row.id})
    assert status["state"] == "denied" and "delivered" in status["reason"]
    # Asked again, approved while the agent waits: the call returns the performed result.
    waiting = asyncio.create_task(desks.bob.call("seller", "reveal", {"deal": deal,
                                                                      "wait_s": 30}))
    async with asyncio.timeout(10):
        while not desks.bob.pending():
            await asyncio.sleep(0.01)
    [row] = desks.bob.pending()
    await desks.bob.approve(row.id, desks.pair.bob.deal(deal).state.contract[2:6])
    result = await waiting
    assert result["status"] == "claimed" and result["approval"] == row.id


async def test_approvals_survive_a_restart_and_lapse_when_the_facts_change(desks):
    desks.manifest("alice", "buyer", manifest_text(approval=ASK))
    offer = await desks.alice.call("buyer", "offer", OFFER)
    answer = await desks.alice.call("buyer", "cancel", {"deal": offer["deal"]})
    desk = await desks.reopen("alice")
    [row] = desk.pending()
    assert row.id == answer["approval"] and row.facts["status"] == "proposed"
    await desk.refresh()
    assert desk.approval(row.id).state == "pending"  # nothing changed: still pending
    waiting = asyncio.create_task(desk.call("buyer", "cancel", {"deal": offer["deal"],
                                                                 "wait_s": 30}))
    async with asyncio.timeout(10):
        while len(desk.pending()) < 2:
            await asyncio.sleep(0.01)
    # Bob accepts meanwhile: the gate's facts change (status accepted), both approvals lapse.
    await desks.pair.bob.sync()
    await desks.pair.bob.accept_offer(offer["deal"])
    await desks.pair.alice.sync()
    assert len(await desk.refresh()) == 2
    with pytest.raises(ToolRefused, match=r"approval\.lapsed: the gate's facts changed"):
        await waiting
    with pytest.raises(ApprovalError, match="lapsed already"):
        await desk.approve(row.id)
    status = await desk.call("buyer", "approval", {"approval": row.id})
    assert status["state"] == "lapsed" and "changed" in status["reason"]
    assert desks.pair.alice.deal(offer["deal"]).state.status == "accepted"


async def test_engine_gates_still_apply_under_auto(desks):
    desks.manifest("alice", "buyer", manifest_text())
    offer = await desks.alice.call("buyer", "offer", OFFER)
    with pytest.raises(ToolFailed, match="not accepted"):
        await desks.alice.call("buyer", "lock", {"deal": offer["deal"]})
    with pytest.raises(ToolFailed, match="not locked"):
        await desks.alice.call("buyer", "reveal", {"deal": offer["deal"]})
    assert not desks.alice.pending()


async def test_another_agents_approval_is_not_visible(desks):
    deal = await locked_deal(desks)
    answer = await desks.bob.call("seller", "reveal", {"deal": deal})
    desks.manifest("bob", "other", manifest_text())
    with pytest.raises(ToolFailed, match="no approval"):
        await desks.bob.call("other", "approval", {"approval": answer["approval"]})
