"""The agents' desk: manifests, limits, approvals and the audit trail around one tool registry.

It lives in the process that owns the wallet (the daemon or the TUI), since approvals, spend and
the audit trail are the wallet's journal. Every call is journaled whatever its outcome, and the
order inside a call is fixed: grant (nothing touched), parameters, manifest rules (reads of
public facts only), then the engine. A gated tool under `ask` becomes a pending approval the
operator answers; under `auto` the desk confirms, and the engine's own gates still decide.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tclk_tui.agents.backend import (
    CommandBackend,
    CommandFailed,
    Gate,
    command_of,
    command_params,
)
from tclk_tui.agents.catalog import BY_NAME, READ_TOOLS, TOOL_NAMES, tool_registry
from tclk_tui.agents.errors import (
    BadParams,
    CapabilityViolation,
    ToolError,
    ToolFailed,
    ToolRefused,
    UnknownTool,
)
from tclk_tui.agents.limits import (
    DAY_MS,
    Commitment,
    Spend,
    amount_of,
    check_commitment,
    check_some_rail,
    commitment,
)
from tclk_tui.agents.manifest import Manifest, agents_dir, load_manifest, refused
from tclk_tui.agents.tools import ToolCall, ToolRegistry
from tclk_tui.engine.commands import CommandError
from tclk_tui.engine.gates import wrong_code
from tclk_tui.engine.rail_ids import offered_rails

log = logging.getLogger("tclk_tui.agents")
MAX_WAIT_S = 300.0
OPEN_STATUSES = ("proposed", "accepted", "locked")



def _now_ms() -> int:
    return int(time.time() * 1000)


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


class AgentDesk:
    def __init__(self, backend: CommandBackend, ledger: Any, profile_dir: Path, *,
                 clock_ms: Callable[[], int] = _now_ms) -> None:
        self.backend = backend
        self.ledger = ledger
        self.profile_dir = Path(profile_dir)
        self._clock = clock_ms
        self._manifests: dict[str, tuple[float, Manifest]] = {}
        self._listeners: list[Callable[[], None]] = []
        self._decided = asyncio.Event()
        self.registry = tool_registry(lambda tool: self._runner(tool.name))

    def __repr__(self) -> str:
        return f"AgentDesk({self.profile_dir.name!r})"

    # -- manifests ------------------------------------------------------------------------------

    def manifest(self, agent: str) -> Manifest:
        """The agent's manifest as the file says now (re-read when it changes)."""
        path = agents_dir(self.profile_dir) / f"{agent}.toml"
        try:
            mtime = path.stat().st_mtime_ns
        except (OSError, ValueError):
            return refused(agent, None, f"no manifest {agent}.toml in the profile's agents/")
        cached = self._manifests.get(agent)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        manifest = load_manifest(path, TOOL_NAMES)
        if manifest.name != agent:
            manifest = refused(agent, path, "the file name is not an agent name")
        self._manifests[agent] = (mtime, manifest)
        return manifest

    def manifests(self) -> list[Manifest]:
        folder = agents_dir(self.profile_dir)
        names = sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []
        return [self.manifest(n) for n in names]

    def callers(self) -> dict[str, Manifest]:
        """The DIDs a caller over a room may have, each with the one valid manifest naming it
        (a DID two manifests name is nobody's: the caller could not be told apart)."""
        named: dict[str, list[Manifest]] = {}
        for m in self.manifests():
            if m.problem is None and m.did:
                named.setdefault(m.did, []).append(m)
        return {did: found[0] for did, found in named.items() if len(found) == 1}

    def agent_for_did(self, did: str) -> Manifest | None:
        """The one valid manifest naming this DID; None if none (or more than one) does."""
        return self.callers().get(did)

    def describe(self, agent: str) -> str:
        return self.registry.describe(self.manifest(agent))

    def tools_for(self, agent: str) -> list[dict[str, Any]]:
        """The granted tools with their JSON Schemas (MCP tools/list)."""
        return [{"name": s.name, "description": s.description, "inputSchema": s.json_schema()}
                for s in self.registry.granted(self.manifest(agent))]

    # -- calls ----------------------------------------------------------------------------------

    async def call(self, agent: str, tool: str, params: object = None, *,
                   transport: str = "in-process") -> dict[str, Any]:
        """Run one tool for one agent; every outcome is journaled, then returned or raised."""
        manifest = self.manifest(agent)
        raw = params if isinstance(params, dict) else {}
        wait = raw.get("wait_s", 0)
        # Bounded before it is a float: a wait of 10**400 is an int no float can hold.
        wait_s = float(min(max(wait, 0), MAX_WAIT_S)) \
            if isinstance(wait, int) and not isinstance(wait, bool) else 0.0
        try:
            result = await self.registry.call(agent, manifest, tool, params,
                                              transport=transport, wait_s=wait_s)
        except _Journaled as wrapped:
            raise wrapped.inner from None
        except ToolError as exc:  # refused before the tool ran: the grant or the parameters
            self._journal(agent, transport, tool, params, exc)
            raise
        return result

    def _journal(self, agent: str, transport: str, tool: str, params: object,
                 outcome: ToolError | dict[str, Any], deal_id: str | None = None) -> None:
        safe = _journal_params(self.registry, tool, params)
        if isinstance(outcome, dict):
            decision = "pending" if outcome.get("status") == "pending" and "approval" in outcome \
                else "allowed"
            kind, detail = ("pending" if decision == "pending" else "ok"), ""
        else:
            decision = "allowed" if isinstance(outcome, ToolFailed) else "refused"
            kind, detail = outcome.kind, outcome.reason
        acted = decision != "refused" and tool not in READ_TOOLS
        self.ledger.add_call(agent=agent, transport=transport, tool=tool[:80], params=safe,
                             decision=decision, result_kind=kind, detail=detail,
                             deal_id=deal_id, durable=acted)

    def _runner(self, tool: str):
        async def run(call: ToolCall) -> dict[str, Any]:
            deal_id: str | None = None
            try:
                # Check, perform and account are one step per agent, whichever transport and
                # whichever desk of this wallet the calls came through; waiting for the
                # operator is not part of it.
                async with agent_lock(self.ledger, call.agent):
                    outcome, deal_id = await self._run(call)
                if isinstance(outcome, _Asked):
                    result = await self._await_approval(call.agent, outcome.approval_id,
                                                        call.wait_s)
                else:
                    result = outcome
            except ToolError as exc:
                self._journal(call.agent, call.transport, tool, dict(call.params), exc,
                              deal_id=getattr(exc, "deal_id", None))
                raise _Journaled(exc) from None
            except Exception as exc:  # a fault of ours: journaled and said, never raw
                log.exception("agent %s: %s failed unexpectedly", call.agent, tool)
                failed = ToolFailed(f"the wallet could not run {tool}: unexpected "
                                    f"{type(exc).__name__}")
                self._journal(call.agent, call.transport, tool, dict(call.params), failed,
                              deal_id=deal_id)
                raise _Journaled(failed) from None
            self._journal(call.agent, call.transport, tool, dict(call.params), result,
                          deal_id=deal_id or result.get("deal"))
            return result

        return run

    async def _run(self, call: ToolCall) -> tuple[dict[str, Any] | _Asked, str | None]:
        """The tool's policy (`catalog`) around its command, then the command."""
        tool, p, m = call.tool, dict(call.params), call.manifest
        entry = BY_NAME[tool]
        if entry.declaration is None:  # the desk's own: the agent's approval
            return self._approval_status(call.agent, p["approval"]), None
        if entry.policy.own_deal:
            facts = await self.backend.deal_facts(p["deal"])
            if facts is None:
                raise _with_deal(ToolFailed(f"no deal {p['deal'][:40]!r}"), None)
            deal_id = facts["deal"]
            p["deal"] = deal_id
            if deal_id not in self.ledger.deals_of(call.agent):
                raise _with_deal(ToolRefused("deal.owner", "the agent acts only on deals it "
                                             "offered or accepted itself"), deal_id)
            gate = None
            if tool == "lock":
                # The rail the engine picks is the rail checked, and from here on it is named,
                # so the lock (now or once approved) goes on exactly that rail.
                gate = await self._gate(tool, p, deal_id)
                p["rail"] = gate.rail
            if entry.policy.commits:
                rail = gate.rail if gate is not None else facts.get("rail")
                try:
                    check_commitment(m, commitment(
                        facts, our_role=facts["role"], counterparty=facts.get("counterparty"),
                        rails=(rail,) if rail else ()),
                        self._spent(call.agent, facts.get("asset", ""), besides=deal_id),
                        open_deals=None)
                except ToolRefused as exc:
                    raise _with_deal(exc, deal_id) from None
            if entry.gated:
                return await self._gated(call, p, m, deal_id, gate), deal_id
            return await self._engine(tool, p, deal_id), deal_id
        if tool == "offer":
            bound = self._bound(tool, p)
            c = Commitment(amount=amount_of(p["amount"]), asset=p["asset"],
                           rails=offered_rails(p["rails"]),
                           counterparty=None, pays=bound["role"] == "payer")
            check_commitment(m, c, self._spent(call.agent, c.asset),
                             await self._open(call.agent))
            result = await self._engine(tool, p, None)
            self._account(call.agent, c, result.get("deal"))
            return result, result.get("deal")
        if tool == "accept":
            offer = await self.backend.offer_facts(p["offer"])
            if offer is None:
                raise ToolFailed("no such offer on the board")
            ours = "payee" if offer["role"] == "payer" else "payer"
            usable = await self._usable(offer["rails"])
            if ours == "payer":  # the lock names the rail, and is checked then
                check_some_rail(m, usable)
            c = commitment(offer, our_role=ours, counterparty=offer["sender"],
                           rails=usable if ours == "payee" else ())
            check_commitment(m, c, self._spent(call.agent, c.asset),
                             await self._open(call.agent))
            result = await self._engine(tool, p, offer["offer"])
            self._account(call.agent, c, result.get("deal"))
            return result, result.get("deal")
        return await self._engine(tool, p, None), None

    @staticmethod
    def _bound(tool: str, p: dict[str, Any]) -> dict[str, Any]:
        """The call's params as the engine will take them, the registry's defaults filled in:
        a rule reads what the engine will do, never a default of its own."""
        try:
            return command_of(tool).bind(command_params(p))
        except CommandError as exc:
            raise BadParams(exc.message) from None

    async def _usable(self, offered: list[str]) -> tuple[str, ...]:
        """The offered rails set up in this wallet: those a deal on this offer can settle on."""
        here = {r["id"] for r in (await self._engine("rails", {}, None))["rails"]}
        return tuple(r for r in offered if r in here)

    async def _engine(self, tool: str, p: dict[str, Any], deal_id: str | None) -> dict[str, Any]:
        try:
            return await self.backend.run(tool, p)
        except CommandFailed as exc:
            raise _with_deal(ToolFailed(exc.reason), deal_id) from None

    def _spent(self, agent: str, asset: str, *, besides: str | None = None) -> Spend:
        """What the agent spent in 24 h; `besides` a deal whose own amount is the one being
        checked (a lock of a deal the offer or accept already counted), so it counts once."""
        since = self._clock() - DAY_MS
        return Spend(total_24h=self.ledger.spent(agent, since_ms=since, besides=besides),
                     asset_24h=self.ledger.spent(agent, since_ms=since, asset=asset,
                                                 besides=besides))

    async def _open(self, agent: str) -> int:
        count = 0
        for deal_id in self.ledger.deals_of(agent):
            facts = await self.backend.deal_facts(deal_id)
            count += facts is not None and facts["status"] in OPEN_STATUSES
        return count

    def _account(self, agent: str, c: Commitment, deal_id: str | None) -> None:
        if c.pays and deal_id:
            self.ledger.spend_once(agent=agent, deal_id=deal_id, asset=c.asset, amount=c.amount)

    async def caps_used(self, agent: str) -> dict[str, Any]:
        m = self.manifest(agent)
        since = self._clock() - DAY_MS
        used: dict[str, Any] = {"spent_24h": self.ledger.spent(agent, since_ms=since),
                                "cap_24h": m.caps.per_24h, "open_deals": await self._open(agent),
                                "max_open_deals": m.max_open_deals}
        if m.caps.assets:
            used["assets"] = {a: [self.ledger.spent(agent, since_ms=since, asset=a), cap]
                              for a, cap in m.caps.assets.items()}
        return used

    # -- gated tools and approvals --------------------------------------------------------------

    async def _gate(self, tool: str, p: dict[str, Any], deal_id: str | None) -> Gate:
        try:
            return await self.backend.gate(tool, p)
        except CommandFailed as exc:
            raise _with_deal(ToolFailed(exc.reason), deal_id) from None

    async def _gated(self, call: ToolCall, p: dict[str, Any], m: Manifest,
                     deal_id: str, gate: Gate | None = None) -> dict[str, Any] | _Asked:
        gate = gate or await self._gate(call.tool, p, deal_id)
        if gate.blockers:
            raise _with_deal(ToolFailed("; ".join(gate.blockers)), deal_id)
        engine_params = {k: v for k, v in p.items() if k != "wait_s"}
        if m.policy(call.tool) == "auto":
            return await self._perform(call.tool, engine_params, gate.confirm_code, deal_id)
        approval_id = "ap-" + secrets.token_hex(6)
        facts = gate.public()
        facts["caps_used"] = await self.caps_used(call.agent)
        self.ledger.add_approval(approval_id=approval_id, agent=call.agent, tool=call.tool,
                                 params=engine_params, deal_id=deal_id, facts=facts,
                                 facts_digest=facts_digest(gate))
        self._changed()
        return _Asked(approval_id)

    async def _perform(self, tool: str, p: dict[str, Any], code: str | None,
                       deal_id: str | None) -> dict[str, Any]:
        try:
            return await self.backend.perform(tool, p, code=code,
                                              acknowledge_late=bool(p.get("acknowledge_late")))
        except CommandFailed as exc:
            raise _with_deal(ToolFailed(exc.reason), deal_id) from None

    async def _await_approval(self, agent: str, approval_id: str,
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

    def _approval_status(self, agent: str, approval_id: str) -> dict[str, Any]:
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
        self._changed()
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
        self._changed()
        return decided

    def deny(self, approval_id: str, reason: str):
        row = self._pending_row(approval_id)
        reason = " ".join(reason.split())[:300] or "no reason given"
        decided = self.ledger.decide(row.id, "denied", reason=reason)
        self.ledger.add_call(agent=row.agent, transport="operator", tool=row.tool,
                             params=dict(row.params), decision="denied", result_kind="refused",
                             detail=reason, deal_id=row.deal_id)
        self._changed()
        return decided

    # -- listeners ------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        self._decided.set()
        for listener in list(self._listeners):
            listener()


@dataclass(frozen=True, slots=True)
class _Asked:
    """A gated call now pending the operator: the caller waits for it outside the agent's
    turn, so the agent's other calls go on meanwhile."""

    approval_id: str


_LOCKS: weakref.WeakKeyDictionary[Any, dict[str, asyncio.Lock]] = weakref.WeakKeyDictionary()


def agent_lock(ledger: Any, agent: str) -> asyncio.Lock:
    """The one lock per agent of a wallet's ledger: every desk over that journal shares it."""
    return _LOCKS.setdefault(ledger, {}).setdefault(agent, asyncio.Lock())


class _Journaled(ToolError):
    """Carries an error the runner journaled already, so `call` does not journal it twice."""

    def __init__(self, inner: ToolError) -> None:
        super().__init__(inner.reason)
        self.inner = inner


def _with_deal(exc: ToolError, deal_id: str | None) -> ToolError:
    exc.deal_id = deal_id  # type: ignore[attr-defined]
    return exc


def _journal_params(registry: ToolRegistry, tool: str, params: object) -> dict[str, Any]:
    """The parameters as journaled: known names with their values, unknown ones by name only."""
    if not isinstance(params, dict):
        return {"_invalid": type(params).__name__}
    try:
        spec = registry.spec(tool)
    except UnknownTool:
        return {"_names": sorted(str(k)[:40] for k in params)[:20]}
    known = spec.param_names
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key in known and isinstance(value, str | int | bool) and value is not None:
            out[key] = value[:512] if isinstance(value, str) else value
    extra = sorted(str(k)[:40] for k in params if k not in known)
    if extra:
        out["_unknown"] = extra[:20]
    return out


__all__ = ["TOOL_NAMES", "AgentDesk", "ApprovalError", "BadParams",
           "CapabilityViolation", "facts_digest"]
