"""What the tools run on: the engine's command registry, in the process that owns the wallet.

Every tool but two is one registry command run through `commands.execute`, the same call the
CLI and the control socket make, so the checks and the answers are the same whoever asks, and
no answer holds a secret, the seed or a private key. Gated commands are two steps like every
face's: `gate` is the command without its confirmation (the engine's facts), `perform` adds it
(the engine re-checks everything at that moment, whatever the policy said).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from tclk_tui.agents.catalog import RENAMED
from tclk_tui.engine.audit import audit_live
from tclk_tui.engine.commands import REGISTRY, CommandError, execute
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import code_for
from tclk_tui.engine.wallet import Wallet

UNRENAMED = {v: k for k, v in RENAMED.items()}
CHOSEN_RAIL = "chosen rail"  # the lock gate's fact naming the rail the engine will lock on


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
    confirm_code: str | None  # what the operator types (4 hex); never handed to an agent
    rail: str | None = None  # a lock's rail as the engine chose it (the one it will lock on)

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


def command_params(params: dict[str, Any]) -> dict[str, Any]:
    return {UNRENAMED.get(k, k): v for k, v in params.items() if k != "wait_s"}


class WalletBackend:
    """The registry's commands on one open Wallet, in-process."""

    def __init__(self, wallet: Wallet) -> None:
        self.wallet = wallet

    def __repr__(self) -> str:
        return f"WalletBackend({self.wallet!r})"

    async def _execute(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return await execute(self.wallet, name, params)
        except CommandError as exc:
            raise CommandFailed(exc.message) from None

    async def run(self, tool: str, params: dict[str, Any]) -> dict[str, Any]:
        if tool == "audit":
            return await self._audit(params)
        if REGISTRY[tool].gated:
            raise CommandFailed(f"{tool} is gated: it goes through gate and perform")
        return await self._execute(tool, command_params(params))

    async def _audit(self, p: dict[str, Any]) -> dict[str, Any]:
        """Fold the venue's own exports of the board and the deal room, as an auditor would."""
        try:
            deal = self.wallet.deal(p["deal"])
        except EngineError as exc:
            raise CommandFailed(str(exc)) from None
        if not deal.state.contract or not deal.room:
            raise CommandFailed("the deal has no contract yet: nothing to audit")
        try:
            report = await audit_live(self.wallet.client.export, deal.state.contract)
        except Exception as exc:  # the venue's trouble is the answer, never a crash
            raise CommandFailed(f"the venue's exports could not be read: {exc}") from None
        found = [c for c in report.contracts if c.contract == deal.state.contract]
        return {"deal": deal.deal_id, "contract": deal.state.contract,
                "venue_status": found[0].status if found else None,
                "wallet_status": deal.state.status,
                "agree": bool(found) and found[0].status == deal.state.status,
                "records": report.records, "unverified": report.unverified,
                "problems": report.problems}

    async def offer_facts(self, offer_id: str) -> dict[str, Any] | None:
        if not offer_id.strip():  # an empty prefix would name every offer on the board
            return None
        board = await self._execute("board", {"all": True})
        rows = [o for o in board["offers"] if o["offer"] == offer_id]
        if not rows:
            rows = [o for o in board["offers"] if o["offer"].startswith(offer_id)]
        return rows[0] if len(rows) == 1 else None

    async def deal_facts(self, deal_id: str) -> dict[str, Any] | None:
        try:
            return await execute(self.wallet, "status", {"deal": deal_id})
        except CommandError:
            return None

    async def gate(self, tool: str, params: dict[str, Any]) -> Gate:
        answer = await self._execute(tool, command_params(params))
        gate = answer.get("gate") or {}
        facts = await self.deal_facts(params["deal"])
        contract = gate.get("contract")
        code_required = bool(gate.get("confirm", {}).get("code_required"))
        return Gate(action=str(gate.get("action", tool)), deal_id=str(gate.get("deal", "")),
                    contract=contract, status=facts["status"] if facts else "unknown",
                    facts=tuple(gate.get("facts", ())), blockers=tuple(gate.get("blockers", ())),
                    late=bool(gate.get("late")),
                    confirm_code=code_for(contract) if code_required else None,
                    rail=next((str(f.get("detail")) for f in gate.get("facts", ())
                               if f.get("label") == CHOSEN_RAIL), None))

    async def perform(self, tool: str, params: dict[str, Any], *, code: str | None,
                      acknowledge_late: bool) -> dict[str, Any]:
        command = REGISTRY[tool]
        p = command_params(params)
        if command.confirm == "confirm":  # the reveal: the contract id's first 4 hex
            facts = await self.deal_facts(params["deal"])
            contract = (facts or {}).get("contract") or ""
            if code is None or code_for(contract) != code.strip().lower():
                raise CommandFailed("the confirmation code does not match the contract")
            p["confirm"] = code_for(contract)
            p["late"] = acknowledge_late
        else:
            p[command.confirm or "yes"] = True
        return await self._execute(tool, p)


__all__ = ["CommandBackend", "CommandFailed", "Gate", "WalletBackend", "command_params"]
