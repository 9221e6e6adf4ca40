"""MCP on stdio, spoken raw by a hostile agent process: lines the SDK's client would never
send (nested deep, oversize, not UTF-8, not JSON) never kill the server nor cost a later call,
and every call still reaches the wallet's desk."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys

from mcp.types import LATEST_PROTOCOL_VERSION

from tclk_tui.agents.service import agent_methods, serving_agents
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import RpcError
from tests.agents.conftest import desks  # noqa: F401
from tests.agents.support import manifest_text


async def _answer(out: asyncio.StreamReader, id_: int) -> dict:
    while True:
        line = await out.readline()
        assert line, "the MCP server went away"
        message = json.loads(line)
        if message.get("id") == id_:
            return message


async def test_junk_lines_on_stdin_cost_the_next_call_nothing(desks):  # noqa: F811
    desks.manifest("alice", "buyer", manifest_text())
    alice_dir = desks.pair.data_dir / "alice"
    async with serving_agents(desks.pair.alice, room=False) as desk, \
            serve_wallet(desks.pair.alice, alice_dir, extra=agent_methods(desk, RpcError)):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tclk_tui.cli", "--home", str(desks.pair.data_dir),
            "--profile", "alice", "mcp", "--agent", "buyer", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=1 << 24)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            async with asyncio.timeout(60):
                def send(obj) -> None:
                    text = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
                    proc.stdin.write(text + b"\n")

                send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
                    "clientInfo": {"name": "hostile", "version": "0"}}})
                assert "result" in await _answer(proc.stdout, 1)
                send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                deep_args = '{"offer":"0x1234","x":' + '{"x":' * 5000 + "{}" + "}" * 5001
                for junk in (b"[" * 100_000 + b"]" * 100_000, b"\xff\xfe not utf-8",
                             b"not json", b'{"jsonrpc":"2.0","id":2}',
                             ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":'
                              '{"name":"accept","arguments":' + deep_args + "}}").encode(),
                             json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                         "params": {"name": "board" * 200_000,
                                                    "arguments": {}}}).encode()):
                    send(junk)
                send({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": "board", "arguments": {}}})
                await proc.stdin.drain()
                answer = await _answer(proc.stdout, 9)
                assert "result" in answer and not answer["result"].get("isError"), answer
        finally:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    tools = [c.tool for c in desks.alice.ledger.calls("buyer")]
    assert "board" in tools, tools
