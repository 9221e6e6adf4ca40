"""A whole deal where both sides are agents: the payer over MCP stdio (a real `mcp` client
driving `tclk-tui mcp` in a subprocess, attached to the running wallet's socket), the payee over
a room mailbox; and the same deal with both sides in-process gives the same tool results."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tclk_tui.agents.service import agent_methods, serving_agents
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import RpcError
from tests.agents.support import manifest_text
from tests.agents.test_agents_room import agent_client
from tests.engine.helpers import assert_settled

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
STABLE = ("role", "status", "amount", "asset", "lock", "rail", "actions", "secret_held")


def stable(result: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on the transport: no ids, no clock readings."""
    return {k: result.get(k) for k in STABLE}


async def whole_deal(desks, buyer: Call, seller: Call) -> list[dict[str, Any]]:
    results = []
    offer = await buyer("offer", {"role": "payer", "amount": "250000", "asset": "FLOP",
                                  "rails": "memory"})
    results.append(offer)
    await desks.sync()
    board = await seller("board", {})
    assert [o["offer"] for o in board["offers"]] == [offer["deal"]]
    results.append(await seller("accept", {"offer": offer["deal"]}))
    await desks.sync()
    results.append(await buyer("lock", {"deal": offer["deal"]}))
    await desks.sync()
    results.append(await seller("reveal", {"deal": offer["deal"]}))
    await desks.sync()
    results.append(await buyer("status", {"deal": offer["deal"]}))
    results.append(await seller("receipt", {"deal": offer["deal"]}))
    await assert_settled(desks.pair, offer["deal"], "claimed")
    return results


async def test_the_same_deal_in_process_and_over_mcp_stdio_and_a_room(desks):
    desks.manifest("alice", "buyer", manifest_text())
    desks.manifest("bob", "seller", manifest_text())

    async def buyer_in(tool, params):
        return await desks.alice.call("buyer", tool, params)

    async def seller_in(tool, params):
        return await desks.bob.call("seller", tool, params)

    in_process = await whole_deal(desks, buyer_in, seller_in)
    assert in_process[3]["status"] == "claimed"

    alice_dir = desks.pair.data_dir / "alice"
    async with agent_client(desks.pair.venue.url) as (me, caller), \
            serving_agents(desks.pair.alice, room=False) as alice_desk, \
            serve_wallet(desks.pair.alice, alice_dir,
                         extra=agent_methods(alice_desk, RpcError)), \
            serving_agents(desks.pair.bob, room=True):
        desks.manifest("bob", "seller2", manifest_text(extra=f'did = "{me.did}"\n'))
        bob_mailbox = desks.pair.bob.journal.settings.get("agents.mailbox")
        env = dict(os.environ)
        server = StdioServerParameters(
            command=sys.executable,
            args=["-m", "tclk_tui.cli", "--home", str(desks.pair.data_dir), "--profile",
                  "alice", "mcp", "--agent", "buyer"], env=env)
        async with Client(server, read_timeout_seconds=60) as mcp:
            listed = await mcp.list_tools()
            assert [t.name for t in listed.tools] == [
                t["name"] for t in alice_desk.tools_for("buyer")]

            async def buyer_mcp(tool, params):
                answer = await mcp.call_tool(tool, params)
                assert not answer.is_error, answer.content
                return answer.structured_content

            async def seller_room(tool, params):
                answer = await caller.call_tool(bob_mailbox, tool, params,
                                                callee_did=desks.pair.bob.did)
                assert not answer["isError"], answer
                return answer["structuredContent"]

            remote = await whole_deal(desks, buyer_mcp, seller_room)
            # A failing tool over MCP: isError with the engine's reason.
            failed = await mcp.call_tool("lock", {"deal": remote[0]["deal"]})
            assert failed.is_error and "not accepted" in failed.content[0].text
    assert [stable(r) for r in remote] == [stable(r) for r in in_process]
    transports = {c.transport for c in desks.alice.ledger.calls("buyer")}
    assert transports == {"in-process", "mcp-stdio"}
    assert {c.transport for c in desks.bob.ledger.calls("seller2")} == {"room"}


async def test_the_mcp_server_refuses_to_run_without_a_wallet(desks):
    desks.manifest("alice", "buyer", manifest_text())

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tclk_tui.cli", "--home", str(desks.pair.data_dir), "--profile",
        "alice", "mcp", "--agent", "buyer", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate(b"")
    assert proc.returncode == 1 and out == b""
    assert b"no wallet is running for profile alice" in err
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


async def _cli(desks, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tclk_tui.cli", "--home", str(desks.pair.data_dir), "--profile",
        "bob", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    return proc.returncode, out.decode(), err.decode()


async def test_the_operator_answers_through_the_running_wallet_from_the_cli(desks):
    from tests.agents.test_agents_approvals import locked_deal

    deal = await locked_deal(desks)
    bob_dir = desks.pair.data_dir / "bob"
    code, _, err = await _cli(desks, "agents", "pending")
    assert code == 1 and "no wallet is running for profile bob" in err
    async with serving_agents(desks.pair.bob, room=False) as desk, \
            serve_wallet(desks.pair.bob, bob_dir, extra=agent_methods(desk, RpcError)):
        first = await desk.call("seller", "reveal", {"deal": deal})
        code, out, _ = await _cli(desks, "--json", "agents", "pending")
        [row] = json.loads(out)["approvals"]
        assert code == 0 and row["approval"] == first["approval"] and row["tool"] == "reveal"
        code, _, err = await _cli(desks, "agents", "approve", row["approval"], "--code", "zzzz")
        assert code == 1 and "type" in err  # a wrong code decides nothing
        contract = desks.pair.bob.deal(deal).state.contract
        code, out, _ = await _cli(desks, "agents", "approve", row["approval"], "--code",
                                  contract[2:6])
        assert code == 0 and "approved" in out
        assert desks.pair.bob.deal(deal).state.status == "claimed"
