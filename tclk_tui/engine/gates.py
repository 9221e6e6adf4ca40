"""Gates: every consequential action is a request stating the facts, then a confirmation.

The engine re-checks every fact at `confirm` time, whatever face calls it, so a modal, a CLI
flag or an agent policy can only say yes to what the engine already allows.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Literal

GateAction = Literal["lock", "reveal", "cancel", "refund", "seed-backup", "seed-restore",
                     "secret-reveal", "arbiter-release", "arbiter-split", "arbiter-combine",
                     "vote-commit", "arbiter-withhold", "arbiter-mint", "vote-post",
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


class StatedGates:
    """The requests this engine stated, by token, so that every confirmation answers one of
    them: a face (an attached app, anything on the control socket) that sends back a request
    it made up, or one it altered, gets nothing, whatever code comes with it. A request is
    answered once; the newest `KEEP` are kept (a dialog restates its request every second)."""

    KEEP = 512

    def __init__(self) -> None:
        self._stated: collections.OrderedDict[str, GateRequest] = collections.OrderedDict()

    def __repr__(self) -> str:
        return f"StatedGates({len(self._stated)} stated)"

    def state(self, request: GateRequest) -> GateRequest:
        """Remember `request` as stated by the engine (a later version under the same token,
        a fact added, replaces it); returns it."""
        if not request.token:
            raise ValueError("a stated gate request carries a token")
        self._stated[request.token] = request
        self._stated.move_to_end(request.token)
        while len(self._stated) > self.KEEP:
            self._stated.popitem(last=False)
        return request

    def stated(self, request: GateRequest) -> GateRequest:
        """The engine's own copy of `request`, or GateRefused: never one a face made up."""
        own = self._stated.get(request.token) if request.token else None
        if own is None or own != request:
            raise GateRefused(NOT_STATED)
        return own

    def answered(self, request: GateRequest) -> None:
        """`request` was confirmed: it answers nothing more."""
        self._stated.pop(request.token, None)


NOT_STATED = ("this confirmation answers no request this wallet stated (made up, altered, "
              "already answered or too old): ask again and confirm what it states")


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
