"""Gates: every consequential action is a request stating the facts, then a confirmation.

The engine re-checks every fact at `confirm` time, whatever face calls it, so a modal, a CLI
flag or an agent policy can only say yes to what the engine already allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

GateAction = Literal["lock", "reveal", "cancel", "refund", "seed-backup", "secret-reveal",
                     "arbiter-release", "arbiter-withhold", "arbiter-mint", "vote-commit",
                     "vote-open"]


class GateRefused(Exception):
    """The engine refused a gated action; `reason` is for the operator."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class WrongCode(GateRefused):
    """The typed confirmation code is not the one asked for: the operator mistyped (or read
    the wrong deal), which is not the engine refusing the action itself."""


@dataclass(frozen=True, slots=True)
class GateFact:
    """One fact the operator should see before confirming.

    `ok` is True (fine), False (blocks the action) or None (informational / a warning).
    """

    label: str
    ok: bool | None
    detail: str


@dataclass(frozen=True, slots=True)
class GateRequest:
    action: GateAction
    deal_id: str
    contract: str | None
    facts: tuple[GateFact, ...]
    # Reasons the engine will refuse; empty means `confirm` may proceed.
    blockers: tuple[str, ...] = ()
    # True when the action is allowed but late (reveal past claimByMs): confirm needs
    # `acknowledge_late=True`.
    late: bool = False
    # What the operator must type to confirm (first 4 hex of the contract id for a reveal),
    # or None when a plain yes is enough.
    confirm_code: str | None = None
    created_ms: int = 0
    # The sentence every face prints to ask for the code, written once here in the engine.
    prompt: str = ""
    token: str = field(default="", compare=False)

    @property
    def allowed(self) -> bool:
        return not self.blockers

    def code_matches(self, typed: str | None) -> bool:
        """The one comparison of a typed code, for every face (case and spaces ignored)."""
        return self.confirm_code is None or (typed or "").strip().lower() == self.confirm_code



def code_for(id_hex: str | None) -> str | None:
    """The code an operator types to confirm an action on a contract (or a deal): the first 4
    hex of its id, read off the screen, so a key typed by accident cannot confirm."""
    return id_hex[2:6] if id_hex else None


def wrong_code(digits_of: str = "contract id") -> str:
    """The one sentence for a code that does not match, for every face. It never prints the
    code: reading it off the screen is what makes confirming deliberate."""
    return (f"the code does not match: type the first 4 hex digits of the {digits_of} (the "
            "four after 0x) to confirm")


def code_prompt(code: str, *, digits_of: str | None = None) -> str:
    """The prompt for a typed code. With `digits_of` the code is the first 4 hex digits of
    that id, read off the screen (so confirming is a deliberate act), not printed."""
    if digits_of:
        return f"Type the first 4 hex digits of the {digits_of} to confirm:"
    return f"Type {code} to confirm:"
