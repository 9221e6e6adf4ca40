"""The operator decides lateness: an agent's `acknowledge_late` never rides into an approval.

The agent asks for a reveal (acknowledging lateness itself) while it is on time; claimByMs then
passes. The operator's approval, made through the running wallet's socket as `tclk-tui agents
approve` makes it, finds the approval lapsed (the gate changed: the reveal is now late); asked
again, the reveal is performed only once the operator acknowledges the lateness.
"""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.agents.service import agent_methods, serving_agents
from tclk_tui.daemon.client import DaemonClient
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import RpcError
from tests.agents.test_agents_approvals import locked_deal


async def test_lateness_is_the_operators_to_acknowledge(desks):
    deal = await locked_deal(desks)
    wallet = desks.pair.bob
    folder = desks.pair.data_dir / wallet.profile
    code = wallet.deal(deal).state.contract[2:6]

    def operator(method: str, params: dict) -> dict:
        with DaemonClient.for_profile(folder, timeout_s=60) as client:
            return client.call(method, params)

    async with serving_agents(wallet, room=False) as desk, \
            serve_wallet(wallet, folder, extra=agent_methods(desk, RpcError)):
        asked = await desk.call("seller", "reveal", {"deal": deal, "acknowledge_late": True})
        assert asked["status"] == "pending"
        desks.pair.clock.advance(3600 * 1000 + 1000)  # past claimByMs, before refundAfterMs
        with pytest.raises(RpcError, match="lapsed"):
            await asyncio.to_thread(operator, "agents.approve",
                                    {"approval": asked["approval"], "code": code})
        status = await desk.call("seller", "approval", {"approval": asked["approval"]})
        assert status["state"] == "lapsed" and "late" in status["reason"]
        assert wallet.deal(deal).state.status == "locked"

        again = await desk.call("seller", "reveal", {"deal": deal, "acknowledge_late": True})
        [row] = (await asyncio.to_thread(operator, "agents.pending", {}))["approvals"]
        assert row["approval"] == again["approval"] and row["facts"]["late"] is True
        with pytest.raises(RpcError, match="late"):
            await asyncio.to_thread(operator, "agents.approve",
                                    {"approval": again["approval"], "code": code})
        assert wallet.deal(deal).state.status == "locked"  # the agent's word was not enough
        decided = await asyncio.to_thread(operator, "agents.approve", {
            "approval": again["approval"], "code": code, "late": True})
    assert decided["state"] == "approved" and decided["result"]["status"] == "claimed"
