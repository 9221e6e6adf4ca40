"""The operator's approvals of agents' gated calls: asked, waited for, lapsed, decided.

A gated tool under the manifest's `ask` policy becomes a pending approval, journaled with the
gate's facts and their digest. The operator approves (the gate re-stated and checked to be the
one approved, its typed code, a late action acknowledged) or denies; an approval whose facts
changed meanwhile lapses, and the agent is told. The agent's call waits for the decision
outside the agent's turn, so its other calls go on meanwhile.

Its own object beside the desk's tool dispatch (`desk`): the dispatch decides what a call may
do, this decides what the operator said, and the two share only the ledger and the agent's
turn (`agent_lock`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import weakref
from collections.abc import Callable
from typing import Any

from tclk_tui.agents.backend import CommandBackend, CommandFailed, Gate
from tclk_tui.agents.errors import ToolFailed, ToolRefused
from tclk_tui.engine.gates import wrong_code

__all__ = ["ApprovalError", "Approvals", "agent_lock", "facts_digest"]


def facts_digest(gate: Gate) -> str:
    """What an approval was given for: the gate's facts, less the clock's countdowns, and
    whether the action is late (a countdown's one fact that changes what is asked)."""
    stable = [f for f in gate.facts if not str(f.get("label", "")).startswith("time to")]
    text = json.dumps([gate.action, gate.deal_id, gate.contract, gate.status, stable,
                       list(gate.blockers), gate.late], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class ApprovalError(Exception):
    """The operator's answer could not be applied; `reason` says why (the approval may stay)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_LOCKS: weakref.WeakKeyDictionary[Any, dict[str, asyncio.Lock]] = weakref.WeakKeyDictionary()


def agent_lock(ledger: Any, agent: str) -> asyncio.Lock:
    """The one lock per agent of a wallet's ledger: every desk over that journal shares it."""
    return _LOCKS.setdefault(ledger, {}).setdefault(agent, asyncio.Lock())


class Approvals:
    """The pending and decided approvals of one wallet's agents, over its ledger."""

    def __init__(self, backend: CommandBackend, ledger: Any) -> None:
        self.backend = backend
        self.ledger = ledger
        self._listeners: list[Callable[[], None]] = []
        self._decided = asyncio.Event()

    def ask(self, approval_id: str, agent: str, tool: str, params: dict[str, Any],
            deal_id: str, gate: Gate, facts: dict[str, Any]) -> None:
        """Journal a pending approval of this gate, for the operator to answer."""
        self.ledger.add_approval(approval_id=approval_id, agent=agent, tool=tool,
                                 params=params, deal_id=deal_id, facts=facts,
                                 facts_digest=facts_digest(gate))
        self.changed()

    async def wait(self, agent: str, approval_id: str,
                              wait_s: float) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + wait_s
        while True:
            row = self.ledger.approval(approval_id)
            if row is not None and row.state != "pending":
                return self._outcome(row)
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return {"status": "pending", "approval": approval_id}
            self._decided.clear()
            # Woken by a decision made here, or polling for one made by another process.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._decided.wait(), min(remaining, 0.5))

    @staticmethod
    def _outcome(row) -> dict[str, Any]:
        if row.state == "approved":
            return {**(row.result or {}), "approval": row.id}
        if row.state == "denied":
            raise ToolRefused("operator", f"denied by the operator: {row.reason or 'no reason'}")
        if row.state == "lapsed":
            raise ToolRefused("approval.lapsed", row.reason)
        raise ToolFailed(row.reason or "the approved action failed")

    def status(self, agent: str, approval_id: str) -> dict[str, Any]:
        row = self.ledger.approval(approval_id)
        if row is None or row.agent != agent:
            raise ToolFailed(f"no approval {approval_id[:40]!r} for this agent")
        out = {"approval": row.id, "state": row.state, "tool": row.tool, "deal": row.deal_id,
               "reason": row.reason}
        if row.state == "approved":
            out["result"] = row.result
        return out

    def pending(self) -> list:
        return self.ledger.approvals("pending")

    def approval(self, approval_id: str):
        return self.ledger.approval(approval_id)

    async def current_gate(self, approval_id: str) -> Gate:
        """The gate as the engine states it now, for the operator's confirm dialog."""
        row = self._pending_row(approval_id)
        return await self.backend.gate(row.tool, dict(row.params))

    def _pending_row(self, approval_id: str):
        row = self.ledger.approval(approval_id)
        if row is None:
            raise ApprovalError(f"no approval {approval_id}")
        if row.state != "pending":
            raise ApprovalError(f"approval {approval_id} is {row.state} already")
        return row

    async def refresh(self) -> list[str]:
        """Lapse every pending approval whose gate facts changed; return their ids."""
        lapsed = []
        for row in self.pending():
            if await self._lapse_if_changed(row):
                lapsed.append(row.id)
        return lapsed

    async def _lapse_if_changed(self, row) -> bool:
        try:
            gate = await self.backend.gate(row.tool, dict(row.params))
        except CommandFailed as exc:
            reason = f"the gate can no longer be stated: {exc.reason}"
        else:
            if facts_digest(gate) == row.facts_digest and not gate.blockers:
                return False
            why = list(gate.blockers)
            if gate.late and not row.facts.get("late"):
                why.append(f"the {row.tool} is now late (past claimByMs)")
            reason = ("the gate's facts changed since the agent asked"
                      + (f": {'; '.join(why)}" if why else ""))
        self.ledger.decide(row.id, "lapsed", reason=reason)
        self.changed()
        return True

    async def approve(self, approval_id: str, typed_code: str | None = None, *,
                      acknowledge_late: bool = False):
        """The operator says yes: re-state the gate, check it is the one approved, perform
        (in the agent's turn, like its own calls)."""
        row = self._pending_row(approval_id)
        async with agent_lock(self.ledger, row.agent):
            return await self._approve(self._pending_row(approval_id), typed_code,
                                       acknowledge_late=acknowledge_late)

    async def _approve(self, row, typed_code: str | None, *, acknowledge_late: bool):
        if await self._lapse_if_changed(row):
            raise ApprovalError("the gate's facts changed since the agent asked: the approval "
                                "lapsed, and the agent was told")
        gate = await self.backend.gate(row.tool, dict(row.params))
        if gate.confirm_code is not None and (typed_code or "").strip().lower() != \
                gate.confirm_code:
            raise ApprovalError(wrong_code())
        if gate.late and not acknowledge_late:  # the operator's to say, never the agent's
            raise ApprovalError(f"the {row.tool} is late (past claimByMs): acknowledge the "
                                "risk to approve it (--late, or the dialog's acknowledgement)")
        try:
            result = await self.backend.perform(row.tool, dict(row.params),
                                                code=gate.confirm_code,
                                                acknowledge_late=acknowledge_late)
        except CommandFailed as exc:
            decided = self.ledger.decide(row.id, "failed", reason=exc.reason)
        else:
            decided = self.ledger.decide(row.id, "approved", result=result)
        self.ledger.add_call(agent=row.agent, transport="operator", tool=row.tool,
                             params=dict(row.params), decision=decided.state,
                             result_kind="ok" if decided.state == "approved" else "failed",
                             detail=decided.reason, deal_id=row.deal_id)
        self.changed()
        return decided

    def deny(self, approval_id: str, reason: str):
        row = self._pending_row(approval_id)
        reason = " ".join(reason.split())[:300] or "no reason given"
        decided = self.ledger.decide(row.id, "denied", reason=reason)
        self.ledger.add_call(agent=row.agent, transport="operator", tool=row.tool,
                             params=dict(row.params), decision="denied", result_kind="refused",
                             detail=reason, deal_id=row.deal_id)
        self.changed()
        return decided

    # -- listeners --------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def changed(self) -> None:
        self._decided.set()
        for listener in list(self._listeners):
            listener()
