"""The agents beside the engine, in the process that owns the wallet (the daemon or the app).

`serving_agents` builds the profile's desk and, when some manifest names a DID, answers the
wallet's mailbox; `agent_methods` are the control-socket methods a transport process (the MCP
server on stdio) calls through the profile's socket, so it never opens an engine of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from tclk_tui.agents.attach import error_data
from tclk_tui.agents.backend import WalletBackend
from tclk_tui.agents.desk import AgentDesk
from tclk_tui.agents.errors import ToolError
from tclk_tui.agents.room import RoomServer, mailbox_of

TRANSPORTS = ("mcp-stdio", "socket")
log = logging.getLogger("tclk_tui.agents")


def desk_for(wallet) -> AgentDesk:
    return AgentDesk(WalletBackend(wallet), wallet.journal.agents, wallet.journal.path.parent,
                     clock_ms=wallet.now_ms)


@contextlib.asynccontextmanager
async def serving_agents(wallet, *, room: bool | None = None,
                         publish: bool = True) -> AsyncIterator[AgentDesk]:
    """The desk, and the mailbox answered while the block runs (`room=None`: when a valid
    manifest names a DID, the only way a caller over a room is recognised). The mailbox is
    named in the wallet's DID note (`mailbox:`), where a caller finds it."""
    desk = desk_for(wallet)
    if room is None:
        room = any(m.problem is None and m.did for m in desk.manifests())
    server = None
    tasks: list[asyncio.Task[None]] = []
    if room:
        server = RoomServer(desk, wallet.client, mailbox_of(wallet.journal), wallet.journal)
        tasks.append(asyncio.create_task(server.run()))
        if publish:
            tasks.append(asyncio.create_task(_publish_mailbox(wallet, server.mailbox)))
    try:
        yield desk
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if server is not None:
            await server.close()


async def _publish_mailbox(wallet, mailbox: str) -> None:
    try:
        await wallet.client.publish_did_note(mailbox=mailbox, rails=sorted(wallet.rails))
    except Exception as exc:  # the venue may be down: the mailbox still answers
        log.warning("could not publish the mailbox in the DID note: %s", exc)


Method = Callable[[dict[str, Any]], Awaitable[Any]]


def agent_methods(desk: AgentDesk, rpc_error: Callable[[int, str, dict], Exception]
                  ) -> dict[str, Method]:
    """`agents.call` and `agents.tools` for a control socket; `rpc_error(code, message, data)`
    builds the socket's own error type, whose data carries the desk's outcome."""

    def text(params: dict[str, Any], name: str) -> str:
        value = params.get(name)
        if not isinstance(value, str) or not value:
            raise rpc_error(-32602, f"{name} is required (a string)",
                            {"kind": "usage", "message": f"{name} is required"})
        return value

    async def call(params: dict[str, Any]) -> Any:
        transport = params.get("transport", "socket")
        try:
            return await desk.call(text(params, "agent"), text(params, "tool"),
                                   params.get("params") or {},
                                   transport=transport if transport in TRANSPORTS else "socket")
        except ToolError as exc:
            raise rpc_error(-32000, exc.reason, error_data(exc)) from None

    async def tools(params: dict[str, Any]) -> Any:
        return {"tools": desk.tools_for(text(params, "agent"))}

    return {"agents.call": call, "agents.tools": tools}


__all__ = ["agent_methods", "desk_for", "serving_agents"]
