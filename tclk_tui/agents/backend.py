"""What the tools run on: the engine's commands, one per tool, in the process that owns the wallet.

A tool never reaches past this seam: every result is public facts (deal summaries, gate facts,
board rows) and no command here returns a secret, the seed or a private key. Gated commands come
in two steps like every face's: `gate` states the facts, `perform` confirms (the engine re-checks
everything at that moment, whatever the policy said).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from tclk_tui.engine.audit import audit_transcripts
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import GateRefused, GateRequest
from tclk_tui.engine.views import BoardQuery, OfferDraft
from tclk_tui.engine.wallet import Wallet

DEAL_ROOM_PREFIX = "d-"


class CommandFailed(Exception):
    """The engine refused a command; `reason` is its own sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Gate:
    """A gated command's facts as the engine states them (no secret, ever)."""

    action: str
    deal_id: str
    contract: str | None
    status: str
    facts: tuple[dict[str, Any], ...]
    blockers: tuple[str, ...]
    late: bool
    confirm_code: str | None  # what the operator types; never handed to an agent

    def public(self) -> dict[str, Any]:
        return {"action": self.action, "deal": self.deal_id, "contract": self.contract,
                "status": self.status, "facts": list(self.facts),
                "blockers": list(self.blockers), "late": self.late,
                "needs_code": self.confirm_code is not None}


class CommandBackend(Protocol):
    async def run(self, tool: str, params: dict[str, Any]) -> dict[str, Any]: ...

    async def gate(self, tool: str, params: dict[str, Any]) -> Gate: ...

    async def perform(self, tool: str, params: dict[str, Any], *, code: str | None,
                      acknowledge_late: bool) -> dict[str, Any]: ...

    async def offer_facts(self, offer_id: str) -> dict[str, Any] | None: ...

    async def deal_facts(self, deal_id: str) -> dict[str, Any] | None: ...


def deal_summary(view) -> dict[str, Any]:
    """A deal's public facts (the command registry's summary, until the tools run on it)."""
    return {
        "deal": view.deal_id, "contract": view.contract, "role": view.role,
        "status": view.status, "amount": view.amount, "asset": view.asset, "lock": view.lock,
        "rail": view.rail, "rail_ref": view.rail_ref, "counterparty": view.counterparty,
        "room": view.room, "actions": sorted(view.actions),
        "last_safe_ms": view.deadlines.last_safe_ms, "secret_held": view.secret_held,
    }


def _gate_of(request: GateRequest, status: str) -> Gate:
    return Gate(action=request.action, deal_id=request.deal_id, contract=request.contract,
                status=status,
                facts=tuple({"label": f.label, "ok": f.ok, "detail": f.detail}
                            for f in request.facts),
                blockers=tuple(request.blockers), late=request.late,
                confirm_code=request.confirm_code)


def _offer_row(r) -> dict[str, Any]:
    return {"offer": r.offer_id, "sender": r.sender, "role": r.role, "amount": r.amount,
            "asset": r.asset, "lock": r.lock, "rails": list(r.rails), "status": r.status,
            "expires_ms": r.expires_ms, "claim_by_ms": r.claim_by_ms,
            "refund_after_ms": r.refund_after_ms, "mine": r.mine, "job": r.job}


class WalletBackend:
    """The commands on one open Wallet, in-process."""

    def __init__(self, wallet: Wallet) -> None:
        self.wallet = wallet

    def __repr__(self) -> str:
        return f"WalletBackend({self.wallet!r})"

    async def run(self, tool: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return await getattr(self, f"_{tool}")(params)
        except (EngineError, GateRefused) as exc:
            raise CommandFailed(getattr(exc, "reason", None) or str(exc)) from None

    # -- reads ----------------------------------------------------------------------------------

    async def _board(self, p: dict[str, Any]) -> dict[str, Any]:
        rows = self.wallet.board.query(BoardQuery(status=None if p.get("all") else "open",
                                                  text=p.get("filter") or ""))
        limit = max(1, min(int(p.get("limit") or 50), 200))
        return {"offers": [_offer_row(r) for r in rows[:limit]], "total": len(rows)}

    async def _status(self, p: dict[str, Any]) -> dict[str, Any]:
        view = self.wallet.deal(p["deal"]).view()
        out = deal_summary(view)
        out["records"] = [{"seq": r.seq, "type": r.type, "ok": r.ok, "summary": r.summary,
                           "reason": r.reason, "mine": r.mine} for r in view.records]
        return out

    async def _deals(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"deals": [deal_summary(v) for v in self.wallet.deals()]}

    async def _rails(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"rails": [{"rail": name, "moves_value": bool(rail.moves_value)}
                          for name, rail in sorted(self.wallet.rails.items())]}

    async def _audit(self, p: dict[str, Any]) -> dict[str, Any]:
        """Fold the venue's own exports of the board and the deal room, as an auditor would."""
        deal = self.wallet.deal(p["deal"])
        if not deal.state.contract or not deal.room:
            raise CommandFailed("the deal has no contract yet: nothing to audit")
        board = await self.wallet.client.export("tclk-offers")
        room = await self.wallet.client.export(deal.room)
        report = audit_transcripts({"tclk-offers": board.transcript, deal.room: room.transcript})
        found = [c for c in report.contracts if c.contract == deal.state.contract]
        return {"deal": deal.deal_id, "contract": deal.state.contract,
                "venue_status": found[0].status if found else None,
                "wallet_status": deal.state.status,
                "agree": bool(found) and found[0].status == deal.state.status,
                "records": report.records, "unverified": report.unverified,
                "problems": report.problems}

    async def offer_facts(self, offer_id: str) -> dict[str, Any] | None:
        rows = [r for r in self.wallet.board.query(BoardQuery(status=None))
                if r.offer_id == offer_id]
        return _offer_row(rows[0]) if rows else None

    async def deal_facts(self, deal_id: str) -> dict[str, Any] | None:
        try:
            return deal_summary(self.wallet.deal(deal_id).view())
        except EngineError:
            return None

    # -- actions --------------------------------------------------------------------------------

    async def _offer(self, p: dict[str, Any]) -> dict[str, Any]:
        draft = OfferDraft(role=p.get("role", "payer"), amount=p["amount"], asset=p["asset"],
                           lock=p.get("lock", "hash"), rails=p["rails"],
                           claim_in_s=str(p.get("claim_in_s", 3600)),
                           refund_gap_s=str(p.get("refund_gap_s", 3600)),
                           expires_in_s=str(p.get("expires_in_s", 600)), job=p.get("job", ""))
        return deal_summary(await self.wallet.post_offer(draft))

    async def _accept(self, p: dict[str, Any]) -> dict[str, Any]:
        return deal_summary(await self.wallet.accept_offer(p["offer"], rail=p.get("rail")))

    async def _heartbeat(self, p: dict[str, Any]) -> dict[str, Any]:
        return deal_summary(await self.wallet.deal(p["deal"]).heartbeat(p.get("note")))

    async def _receipt(self, p: dict[str, Any]) -> dict[str, Any]:
        return deal_summary(await self.wallet.deal(p["deal"]).receipt())

    # -- gates ----------------------------------------------------------------------------------

    async def _request(self, tool: str, params: dict[str, Any]) -> tuple[Any, GateRequest]:
        deal = self.wallet.deal(params["deal"])
        if tool == "lock":
            return deal, deal.request_lock(params.get("rail"))
        if tool == "reveal":
            await deal.check_lock()
            return deal, deal.request_reveal()
        if tool == "refund":
            return deal, deal.request_refund()
        if tool == "cancel":
            return deal, deal.request_cancel()
        raise CommandFailed(f"{tool} is not a gated command")

    async def gate(self, tool: str, params: dict[str, Any]) -> Gate:
        try:
            deal, request = await self._request(tool, params)
        except (EngineError, GateRefused) as exc:
            raise CommandFailed(getattr(exc, "reason", None) or str(exc)) from None
        return _gate_of(request, deal.state.status)

    async def perform(self, tool: str, params: dict[str, Any], *, code: str | None,
                      acknowledge_late: bool) -> dict[str, Any]:
        try:
            deal, request = await self._request(tool, params)
            view = await deal.confirm(request, typed_code=code,
                                      acknowledge_late=acknowledge_late)
        except (EngineError, GateRefused) as exc:
            raise CommandFailed(getattr(exc, "reason", None) or str(exc)) from None
        return deal_summary(view)


__all__ = ["CommandBackend", "CommandFailed", "Gate", "WalletBackend"]
