"""What the tools run on: the engine's command registry, in the process that owns the wallet.

Every tool but `approval` (the desk's own) is one registry command run through
`commands.execute`, the same call the CLI and the control socket make, so the checks and the
answers are the same whoever asks, and no answer holds a secret, the seed or a private key
(the commands that show one are never tools: `catalog`). Gated commands are two steps like every
face's: `gate` is the command without its confirmation (the engine's facts), `perform` adds it
(the engine re-checks everything at that moment, whatever the policy said).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from tclk_tui.agents.catalog import BY_NAME, RENAMED, WAIT
from tclk_tui.engine.commands import Command, CommandError, Unconfirmed, execute, fact_json, run
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
    """A tool's params as its command takes them: the command's spelling, no `wait_s`."""
    return {UNRENAMED.get(k, k): v for k, v in params.items() if k != WAIT.name}


def command_of(tool: str) -> Command:
    """The registry command a tool runs."""
    declaration = BY_NAME[tool].declaration
    if declaration is None:
        raise CommandFailed(f"{tool} runs no engine command")
    return declaration


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
        command = command_of(tool)
        if command.gated:
            raise CommandFailed(f"{tool} is gated: it goes through gate and perform")
        return await self._execute(command.name, command_params(params))

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
        """The gate as the engine states it: its own request, typed (its code included, which
        the desk hands to the engine and never to the agent)."""
        try:
            answer = await run(self.wallet, command_of(tool).name, command_params(params))
        except CommandError as exc:
            raise CommandFailed(exc.message) from None
        if not isinstance(answer, Unconfirmed):  # a tool's params never carry a confirmation
            raise CommandFailed(f"{tool} performed without its confirmation")
        request = answer.request
        facts = await self.deal_facts(params["deal"])
        return Gate(action=request.action, deal_id=request.deal_id, contract=request.contract,
                    status=facts["status"] if facts else "unknown",
                    facts=tuple(fact_json(f) for f in request.facts),
                    blockers=request.blockers, late=request.late,
                    confirm_code=request.confirm_code,
                    rail=next((f.detail for f in request.facts if f.label == CHOSEN_RAIL),
                              None))

    async def perform(self, tool: str, params: dict[str, Any], *, code: str | None,
                      acknowledge_late: bool) -> dict[str, Any]:
        """The command with its confirmation: the engine states its gate again and checks the
        code against its own request before it acts."""
        command = command_of(tool)
        p = command_params(params)
        confirm = command.param(command.confirm or "")
        if confirm.base is str:  # a typed code (a reveal's), from the engine's own gate
            if not code:
                raise CommandFailed("the confirmation code does not match the contract")
            p[confirm.name] = code
            if "late" in command.param_names:
                p["late"] = acknowledge_late
        else:
            p[confirm.name] = True
        return await self._execute(command.name, p)


__all__ = ["CommandBackend", "CommandFailed", "Gate", "WalletBackend", "command_params"]
