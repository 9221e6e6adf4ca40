"""Every refusal is journaled and typed, whichever transport carried the call: MCP (the real
server attached to the running wallet's socket), a room, and a wallet that went away."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tclk_tui.agents.attach import attach
from tclk_tui.agents.mcp_stdio import build_server
from tclk_tui.agents.service import agent_methods, serving_agents
from tclk_tui.cli import main
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import RpcError
from tests.agents.support import manifest_text
from tests.agents.test_agents_room import agent_client, serving

OFFER = {"role": "payer", "amount": "400", "asset": "FLOP", "rails": "memory"}


def _log(desks, capsys, who: str = "alice") -> list[dict]:
    capsys.readouterr()
    assert main(["--home", str(desks.pair.data_dir), "--profile", who, "--json", "agents",
                 "log"]) == 0
    return json.loads(capsys.readouterr().out)["calls"]


async def test_refused_mcp_calls_are_in_the_agents_log_and_a_bad_amount_names_its_rule(
        desks, capsys):
    desks.manifest("alice", "bot", manifest_text(tools=("board", "offer")))
    wallet = desks.pair.alice
    folder = desks.pair.data_dir / "alice"
    async with serving_agents(wallet, room=False) as desk, \
            serve_wallet(wallet, folder, extra=agent_methods(desk, RpcError)):
        remote = await asyncio.to_thread(attach, "bot", folder)
        assert not isinstance(remote, str)
        async with Client(build_server("bot", folder, remote)) as client:
            with pytest.raises(MCPError, match="not granted"):
                await client.call_tool("reveal", {"deal": "x"})
            with pytest.raises(MCPError, match="unknown parameter"):
                await client.call_tool("board", {"sudo": True})
            bad = await client.call_tool("offer", {**OFFER, "amount": "\u00b2"})
            assert bad.is_error and bad.structured_content["rule"] == "params.amount"
            assert "whole number" in bad.content[0].text
    rows = [(c["transport"], c["tool"], c["decision"], c["result"])
            for c in reversed(_log(desks, capsys))]
    assert rows == [("mcp-stdio", "reveal", "refused", "capability"),
                    ("mcp-stdio", "board", "refused", "params"),
                    ("mcp-stdio", "offer", "refused", "refused")]
    assert wallet.deals() == []


async def test_a_call_after_the_wallet_went_away_is_a_json_rpc_error(desks):
    desks.manifest("alice", "bot", manifest_text(tools=("board",)))
    wallet = desks.pair.alice
    folder = desks.pair.data_dir / "alice"
    async with serving_agents(wallet, room=False) as desk, \
            serve_wallet(wallet, folder, extra=agent_methods(desk, RpcError)):
        remote = await asyncio.to_thread(attach, "bot", folder)
        assert not isinstance(remote, str)
    async with Client(build_server("bot", folder, remote)) as client:
        with pytest.raises(MCPError, match="no wallet is running") as info:
            await client.call_tool("board", {})
    assert "did not happen" in str(info.value)


async def test_over_a_room_a_bad_amount_is_answered_and_deep_json_kills_nothing(desks):
    async with agent_client(desks.pair.venue.url) as (me, caller), \
            serving(desks, "alice") as server:
        desks.manifest("alice", "bot", manifest_text(extra=f'did = "{me.did}"\n'))
        deep = '{"jsonrpc":"2.0","id":"d","method":"tools/call","params":' + "[" * 1900 \
            + "]" * 1900 + "}"
        await caller.client.post(server.mailbox, deep)
        answer = await caller.call_tool(server.mailbox, "offer", {**OFFER, "amount": "\u00b2"},
                                        timeout_s=20)
        assert answer["isError"] and answer["structuredContent"]["rule"] == "params.amount"
        await server.drain()
    [row] = desks.alice.ledger.calls("bot")
    assert (row.transport, row.tool, row.decision) == ("room", "offer", "refused")
    assert desks.pair.alice.deals() == []
