"""One owner of alice's profile and its five faces, for the face-equivalence suite.

Alice's wallet is the profile's owner, as the daemon or the app is: it serves the control socket
(`serve_wallet`, what `tclk-tui daemon` runs) with the agents' methods beside the commands, and
answers its mailbox for an agent over a room. Each face is a function `(command, params)` to an
`Outcome`:

- `inproc`: `commands.execute` on the owner's wallet, as the app's palette calls it;
- `socket`: the control socket's JSON-RPC through `DaemonClient`, what every CLI call meets
  while an owner runs;
- `door`: the app's door attached to the owner (`RemoteDoor`, the socket's `door.run`): the
  typed answer an attached app gets, written as JSON by the command's own adapter;
- `mcp`: a real `tclk-tui mcp --agent mcp-bot` process on stdio, driven by the `mcp` SDK's
  client, attached to the owner's socket;
- `room`: JSON-RPC over the venue, an agent's request in the wallet's mailbox answered into the
  agent's own.

Bob is a second wallet in this process, the counterparty every deal needs (and Carol a third,
who accepts the offers naming alice as their arbiter); a clock that never
moves keeps every answer (a gate's "time to" facts included) the same whichever face asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tclk_tui.agents.room_caller import RoomCaller
from tclk_tui.agents.room_caller import RpcError as RoomRpcError
from tclk_tui.agents.service import agent_methods, serving_agents
from tclk_tui.daemon.client import DaemonClient
from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import RpcError
from tclk_tui.engine.commands import REGISTRY, CommandError, execute, to_json
from tclk_tui.engine.wallet import Wallet
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import RunningVenue, start_venue
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.identity import Identity
from tests.agents.support import manifest_text, write_manifest
from tests.engine.conftest import START_MS
from tests.engine.helpers import Clock, open_wallet

MCP_AGENT = "mcp-bot"
ROOM_AGENT = "room-bot"


@dataclass(frozen=True)
class Outcome:
    """What a face answered: the command's JSON, or its refusal.

    A command face's refusal is the command's error dict (`{kind, message, ...data}`). An agent
    face's refusal is `{"tool_error": kind, "reason": ...}`: `params` (or `capability`) when
    the agents' layer refused the call before it ran (a JSON-RPC error on the wire), `failed`
    or `refused` when it ran and went wrong (MCP `isError`)."""

    ok: bool
    value: dict[str, Any]


Face = Callable[[str, dict[str, Any]], Awaitable[Outcome]]


class McpFace:
    """The MCP client lives in a task of its own: the SDK's task groups must be entered and
    left by one task, and a module's fixtures set up and tear down in different ones."""

    def __init__(self, server: StdioServerParameters) -> None:
        self._server = server
        self._requests: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.tools: list[str] = []

    async def start(self) -> None:
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(ready))
        await ready

    async def _run(self, ready: asyncio.Future[None]) -> None:
        try:
            async with Client(self._server, read_timeout_seconds=60) as client:
                self.tools = [t.name for t in (await client.list_tools()).tools]
                ready.set_result(None)
                while (item := await self._requests.get()) is not None:
                    tool, params, answer = item
                    try:
                        answer.set_result(await client.call_tool(tool, params))
                    except Exception as exc:
                        answer.set_exception(exc)
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    async def __call__(self, command: str, params: dict[str, Any]) -> Outcome:
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._requests.put((command, params, answer))
        try:
            result = await answer
        except MCPError as exc:
            return Outcome(False, {"tool_error": "params", "reason": exc.error.message})
        if result.is_error:
            return Outcome(False, _tool_error(result.structured_content))
        return Outcome(True, result.structured_content)

    async def close(self) -> None:
        if self._task is not None:
            await self._requests.put(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 30)


def _tool_error(content: dict[str, Any]) -> dict[str, Any]:
    out = {"tool_error": content["error"], "reason": content["reason"]}
    if "rule" in content:
        out["rule"] = content["rule"]
    return out


@dataclass
class World:
    venue: RunningVenue
    home: Path
    clock: Clock
    alice: Wallet
    bob: Wallet
    carol: Wallet
    memory: MemoryRail
    mcp: McpFace
    caller: RoomCaller
    mailbox: str
    files: Path
    faces: dict[str, Face] = field(default_factory=dict)
    attached: RemoteDoor | None = None

    @property
    def alice_dir(self) -> Path:
        return self.home / "alice"

    async def sync(self) -> None:
        for wallet in (self.alice, self.bob, self.carol):
            await wallet.sync()

    async def inproc(self, command: str, params: dict[str, Any]) -> Outcome:
        try:
            return Outcome(True, await execute(self.alice, command, params))
        except CommandError as exc:
            return Outcome(False, exc.to_dict())

    async def socket(self, command: str, params: dict[str, Any]) -> Outcome:
        def call() -> Any:
            with DaemonClient.for_profile(self.alice_dir, timeout_s=60) as client:
                return client.call(command, params)

        try:
            return Outcome(True, await asyncio.to_thread(call))
        except RpcError as exc:
            assert isinstance(exc.data, dict), exc
            return Outcome(False, exc.data)

    async def door(self, command: str, params: dict[str, Any]) -> Outcome:
        """The app's door attached to the owner (`RemoteDoor`: `door.run` on the socket): the
        typed answer, written as JSON by the command's own adapter, as a face would print it."""
        assert self.attached is not None
        try:
            answer = await self.attached.run(command, params)
        except CommandError as exc:
            return Outcome(False, exc.to_dict())
        return Outcome(True, to_json(REGISTRY[command], answer))

    async def room(self, command: str, params: dict[str, Any]) -> Outcome:
        try:
            result = await self.caller.call_tool(self.mailbox, command, params,
                                                 callee_did=self.alice.did)
        except RoomRpcError as exc:
            return Outcome(False, {"tool_error": "params", "reason": exc.message})
        if result["isError"]:
            return Outcome(False, _tool_error(result["structuredContent"]))
        return Outcome(True, result["structuredContent"])


@contextlib.asynccontextmanager
async def world(home: Path) -> AsyncIterator[World]:
    clock = Clock(START_MS)
    async with start_venue() as venue, contextlib.AsyncExitStack() as stack:
        venue.venue.config.clock = clock.seconds
        memory = MemoryRail(clock=clock)
        alice = await open_wallet(venue.url, home, "alice", clock=clock,
                                  rails={"memory": memory})
        stack.push_async_callback(alice.close)
        bob = await open_wallet(venue.url, home, "bob", clock=clock, rails={"memory": memory})
        stack.push_async_callback(bob.close)
        carol = await open_wallet(venue.url, home, "carol", clock=clock,
                                  rails={"memory": memory})
        stack.push_async_callback(carol.close)
        agent = Identity.generate()
        client = await stack.enter_async_context(VenueClient(venue.url, agent))
        caller = await stack.enter_async_context(
            RoomCaller(client, "mb-p-agent" + agent.did[-10:].lower()))
        grant = 'lock = "auto"\nreveal = "auto"\nrefund = "auto"\ncancel = "auto"\n'
        write_manifest(alice, home, MCP_AGENT, manifest_text(approval=grant))
        write_manifest(alice, home, ROOM_AGENT,
                       manifest_text(approval=grant, extra=f'did = "{agent.did}"\n'))
        desk = await stack.enter_async_context(serving_agents(alice, room=True, publish=False))
        await stack.enter_async_context(
            serve_wallet(alice, home / "alice", extra=agent_methods(desk, RpcError)))
        mcp = McpFace(StdioServerParameters(
            command=sys.executable,
            args=["-m", "tclk_tui.cli", "--home", str(home), "--profile", "alice", "mcp",
                  "--agent", MCP_AGENT], env=dict(os.environ)))
        await mcp.start()
        stack.push_async_callback(mcp.close)
        files = home / "files"
        files.mkdir()
        found = World(venue=venue, home=home, clock=clock, alice=alice, bob=bob, carol=carol,
                      memory=memory,
                      mcp=mcp, caller=caller,
                      mailbox=alice.journal.settings.get("agents.mailbox"), files=files)
        attached = await asyncio.to_thread(RemoteDoor.attach, home / "alice")
        assert attached is not None, "the app's door attaches to the owner"
        stack.push_async_callback(attached.close)
        found.attached = attached
        found.faces = {"inproc": found.inproc, "socket": found.socket, "door": found.door,
                       "mcp": mcp, "room": found.room}
        yield found


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=1)
