"""The MCP server (official SDK, in memory here): exactly the grant, isError vs JSON-RPC error."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tclk_tui.agents.mcp_stdio import build_server
from tests.agents.support import manifest_text

OFFER = {"role": "payer", "amount": "250000", "asset": "FLOP", "rails": "memory"}


def _server(desks, agent):
    async def remote(tool, params):
        return await desks.alice.call(agent, tool, params, transport="mcp-stdio")

    return build_server(agent, desks.pair.data_dir / "alice", remote)


async def test_lists_exactly_the_granted_tools_with_schemas(desks):
    desks.manifest("alice", "bot", manifest_text(tools=("board", "offer", "cancel")))
    async with Client(_server(desks, "bot")) as client:
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["board", "offer", "cancel"]
        offer = listed.tools[1].input_schema
        assert set(offer["required"]) == {"amount", "asset", "rails"}
        assert offer["properties"]["role"]["enum"] == ["payer", "payee"]


async def test_results_failures_and_refusals(desks):
    desks.manifest("alice", "bot", manifest_text(tools=("board", "offer", "lock"),
                                                 extra="[caps]\nper_deal = 1000\n"))
    async with Client(_server(desks, "bot")) as client:
        ok = await client.call_tool("offer", {**OFFER, "amount": "900"})
        assert not ok.is_error and ok.structured_content["status"] == "proposed"
        capped = await client.call_tool("offer", OFFER)
        assert capped.is_error and "caps.per_deal" in capped.content[0].text
        assert capped.structured_content["rule"] == "caps.per_deal"
        failed = await client.call_tool("lock", {"deal": ok.structured_content["deal"]})
        assert failed.is_error and "not accepted" in failed.content[0].text
        with pytest.raises(MCPError, match="not granted"):
            await client.call_tool("reveal", {"deal": "x"})
        with pytest.raises(MCPError, match="unknown parameter"):
            await client.call_tool("board", {"sudo": True})
    kinds = [(c.transport, c.tool, c.result_kind) for c in
             reversed(desks.alice.ledger.calls("bot"))]
    assert kinds == [("mcp-stdio", "offer", "ok"), ("mcp-stdio", "offer", "refused"),
                     ("mcp-stdio", "lock", "failed"), ("mcp-stdio", "reveal", "capability"),
                     ("mcp-stdio", "board", "params")]
