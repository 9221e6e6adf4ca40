"""The agents beside the engine, in the process that owns the wallet (the daemon or the app).

`serving_agents` builds the profile's desk and, once some manifest names a DID, answers the
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
from tclk_tui.agents.desk import AgentDesk, ApprovalError
from tclk_tui.agents.errors import ToolError
from tclk_tui.agents.room import RoomServer, mailbox_of

TRANSPORTS = ("mcp-stdio", "socket")
MANIFEST_POLL_S = 1.0  # how often a wallet with no room caller yet looks for one
log = logging.getLogger("tclk_tui.agents")


def desk_for(wallet) -> AgentDesk:
    return AgentDesk(WalletBackend(wallet), wallet.journal.agents, wallet.journal.path.parent,
                     clock_ms=wallet.now_ms)


@contextlib.asynccontextmanager
async def serving_agents(wallet, *, room: bool | None = None,
                         publish: bool = True) -> AsyncIterator[AgentDesk]:
    """The desk, and the mailbox answered while the block runs (`room=None`: from the moment a
    valid manifest names a DID, the only way a caller over a room is recognised, so a `did`
    added to a manifest while the wallet runs is served within a second). The mailbox is
    named in the wallet's DID note (`mailbox:`), where a caller finds it."""
    desk = desk_for(wallet)
    desk.subscribe(lambda: alert_approvals(wallet, desk))
    alert_approvals(wallet, desk)  # approvals left waiting when the owner last stopped
    servers: list[RoomServer] = []
    mailbox = mailbox_of(wallet.journal) if room is not False else ""  # named from the start

    async def answer_mailbox() -> None:
        while room is None and not desk.callers():
            await asyncio.sleep(MANIFEST_POLL_S)  # a few stat() calls: the files may change
        server = RoomServer(desk, wallet.client, mailbox, wallet.journal,
                            reads=wallet.reads if wallet.rooms.following else None)
        servers.append(server)
        note = asyncio.create_task(_publish_mailbox(wallet, server.mailbox)) if publish \
            else None
        try:
            await server.run()
        finally:
            if note is not None:
                note.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await note

    task = asyncio.create_task(answer_mailbox()) if room is not False else None
    try:
        yield desk
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for server in servers:
            await server.close()


def alert_approvals(wallet, desk: AgentDesk) -> None:
    """Each approval waiting for the operator is an alert (once), screen attached or not."""
    for row in desk.pending():
        deal = f" on deal {row.deal_id[:10]}…" if row.deal_id else ""
        wallet.alerts.raise_alert(
            f"approval:{row.id}", "approval",
            f"agent {row.agent[:40]} waits for your approval to {row.tool}{deal}: answer it "
            "in the Approvals pane or with `tclk-tui agents approve` / `deny`", row.deal_id)


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

    async def pending(params: dict[str, Any]) -> Any:
        await desk.refresh()  # what lapsed is not offered to the operator
        return {"approvals": [approval_facts(r) for r in desk.pending()]}

    async def approve(params: dict[str, Any]) -> Any:
        try:
            decided = await desk.approve(text(params, "approval"), params.get("code"),
                                         acknowledge_late=params.get("late") is True)
        except ApprovalError as exc:
            raise rpc_error(-32000, exc.reason, {"kind": "refused",
                                                 "message": exc.reason}) from None
        return approval_facts(decided)

    async def deny(params: dict[str, Any]) -> Any:
        try:
            decided = desk.deny(text(params, "approval"), str(params.get("reason") or ""))
        except ApprovalError as exc:
            raise rpc_error(-32000, exc.reason, {"kind": "refused",
                                                 "message": exc.reason}) from None
        return approval_facts(decided)

    async def approval(params: dict[str, Any]) -> Any:
        row = desk.approval(text(params, "approval"))
        return approval_facts(row) if row is not None else None

    async def calls(params: dict[str, Any]) -> Any:
        agent, deal = params.get("agent"), params.get("deal")
        limit = params.get("limit")
        rows = desk.ledger.calls(agent if isinstance(agent, str) else None,
                                 deal_id=deal if isinstance(deal, str) else None,
                                 limit=limit if isinstance(limit, int) and limit > 0 else 200)
        return {"calls": [{"agent": c.agent, "transport": c.transport, "tool": c.tool,
                           "decision": c.decision, "result_kind": c.result_kind,
                           "detail": c.detail, "deal_id": c.deal_id, "ts_ms": c.ts_ms}
                          for c in rows]}

    # agents.call and agents.tools are for transports; pending, approve and deny are the
    # operator's (the socket is 0600 and answers this user only).
    return {"agents.call": call, "agents.tools": tools, "agents.pending": pending,
            "agents.approval": approval, "agents.approve": approve, "agents.deny": deny,
            "agents.calls": calls}


def approval_facts(row) -> dict[str, Any]:
    return {"approval": row.id, "agent": row.agent, "tool": row.tool, "deal": row.deal_id,
            "state": row.state, "reason": row.reason, "params": row.params,
            "facts": row.facts, "created_ms": row.created_ms, "result": row.result}


__all__ = ["agent_methods", "approval_facts", "desk_for", "serving_agents"]
