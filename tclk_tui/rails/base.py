"""The settlement-rail interface (tclk/1 SPEC §5) and what every rail shares.

A rail is the source of truth for value; frames only coordinate. The interface is async
because every real rail answers over a network, and the in-process ones keep the same shape
so a caller written against them is written correctly for the rest.

Beside the five operations of the SPEC, the interface declares what the engine asks of some
rails only (a chain rail's facts, its account, its journal); `RailFeatures` answers each of
them for a rail that has nothing to say, so the engine asks every rail the same questions and
never probes for an attribute. A new rail inherits it and overrides what it has, and
`tests/rails/contract.py` is the suite that says when it is done.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import LockTerms

__all__ = [
    "MAX_SAFE_INTEGER",
    "Clock",
    "LockQuote",
    "LockReport",
    "LockTerms",
    "RailFeatures",
    "SettlementError",
    "SettlementRail",
    "ascii_lower",
    "is_number",
    "rail_now",
    "wall_clock_ms",
]

Clock = Callable[[], float]
"""Reads the current wall time in Unix milliseconds; injected so deadlines are testable."""

MAX_SAFE_INTEGER = 2**53 - 1


class SettlementError(TclkError):
    """A rail refused an operation; the message is the reference's reason, verbatim.

    Distinct from ``tclk_tui.protocol.errors.RailError`` (a malformed or unknown rail *id*):
    this one means the rail itself said no. ``code`` is a stable token so callers can branch
    without parsing the English. Messages never carry a secret.
    """

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class LockReport:
    """A payee's check of an announced lock: the first rule it breaks named, and what the rail
    read (for a chain: chain id, block, confirmations, amount, recipient, timelock)."""

    ok: bool
    rule: str  # "ok" or the code of the broken rule
    detail: str
    facts: tuple[tuple[str, str], ...] = ()
    confirmations: int = 0


@dataclass(frozen=True, slots=True)
class LockQuote:
    """What locking some terms would take from this wallet's account on the rail, read now:
    the facts for the lock gate (balances, allowance, gas, amount plus gas, the margin) and
    each reason the account cannot cover it, its rule named."""

    facts: tuple[tuple[str, str], ...]
    problems: tuple[str, ...] = ()
    read_ms: int = 0


@runtime_checkable
class SettlementRail(Protocol):
    """What the engine needs from any rail.

    ``moves_value`` is the guard against rehearsal rails being mistaken for settlement: the
    engine and the faces must read it, never infer it from the id. ``payee_key`` is the
    payee's signed paymentKey, which a rail that pays an address (``requires_payment_key``)
    derives the address from; the others take and ignore it.
    """

    id: str
    moves_value: bool
    process_local: bool
    requires_payment_key: bool
    settles_by_signature: bool

    async def lock(self, terms: LockTerms, *, payee_key: str | None = None) -> str:
        """Escrow under ``terms``; returns the rail-specific reference."""
        ...

    async def verify_lock(self, terms: LockTerms, ref: str, *,
                          payee_key: str | None = None) -> bool:
        """True only if ``ref`` holds a live lock matching ``terms``; fail closed."""
        ...

    async def inspect_lock(self, terms: LockTerms, ref: str, *,
                           payee_key: str | None = None) -> LockReport:
        """`verify_lock` with the first broken rule named and what the rail read."""
        ...

    async def claim(self, ref: str, secret: str) -> None:
        """Release to the payee, only with a secret that opens the statement."""
        ...

    async def refund(self, ref: str) -> None:
        """Return to the payer, only at or after ``refundAfterMs``."""
        ...

    async def lock_status(self, ref: str) -> str | None:
        """The rail's own word on `ref`: locked, claimed, refunded, or None when unknown."""
        ...

    async def claimed_with(self, ref: str) -> str | None:
        """The secret a completed claim under ``ref`` used, or None when it is not claimed.

        A payee that crashed between claiming on the rail and announcing the reveal asks this
        on restart: a claim carrying its own secret is its own claim, safe to announce.
        """
        ...

    def describe(self) -> str:
        """Operator-facing text saying what this rail is and what it can (not) guarantee."""
        ...

    def window_note(self) -> str | None:
        """A margin this rail applies to the deal's deadlines, for the offer form and gates."""
        ...

    def asset_decimals(self, asset: str) -> int | None:
        """The decimals of `asset` where this rail knows them (amounts read as money)."""
        ...

    def asset_refusal(self, asset: str) -> str | None:
        """Why this rail cannot settle `asset` (None: it can)."""
        ...

    def account_text(self) -> str:
        """This wallet's own account on the rail and its last-read balance ("" without one)."""
        ...

    async def refresh_account(self) -> None:
        """Read the account's balance again (the rail watch calls it every few seconds)."""
        ...

    async def lock_quote(self, terms: LockTerms, *,
                         payee_key: str | None = None) -> LockQuote | None:
        """What locking `terms` would take from the account (None: a rail without one)."""
        ...

    async def reconcile(self) -> list[str]:
        """After a restart: a rail with a transaction journal looks its transactions up."""
        ...

    async def aclose(self) -> None:
        """Release what the rail holds open (a node connection, its journal)."""
        ...


class RailFeatures:
    """The interface's optional features, answered for a rail that has none of them.

    Rails inherit this and override what they have; the engine calls every member on every
    rail, so a feature is never guessed from an attribute being there.
    """

    moves_value: bool = False
    # Its locks live in this process only (memory): a one-shot CLI call sets it aside.
    process_local: bool = False
    # It pays the address of the payee's signed paymentKey (evm-htlc).
    requires_payment_key: bool = False
    # Its claim is the completed adaptor signature (SPEC §3.3), so a lock's presig matters;
    # every rail here settles by the secret instead.
    settles_by_signature: bool = False

    async def verify_lock(self, terms: LockTerms, ref: str, *,
                          payee_key: str | None = None) -> bool:
        raise NotImplementedError

    async def inspect_lock(self, terms: LockTerms, ref: str, *,
                           payee_key: str | None = None) -> LockReport:
        ok = bool(await self.verify_lock(terms, ref, payee_key=payee_key))
        if ok:
            return LockReport(True, "ok", "lock verified with matching terms")
        return LockReport(False, "no-lock",
                          "the rail holds no lock with these terms under that ref")

    def window_note(self) -> str | None:
        return None

    def asset_decimals(self, asset: str) -> int | None:
        return None

    def asset_refusal(self, asset: str) -> str | None:
        return None

    def account_text(self) -> str:
        return ""

    async def refresh_account(self) -> None:
        return None

    async def lock_quote(self, terms: LockTerms, *,
                         payee_key: str | None = None) -> LockQuote | None:
        return None

    async def reconcile(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def wall_clock_ms() -> int:
    """The default clock: the reference uses ``Date.now``, whole milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def is_number(value: object) -> bool:
    """A JS-like number: int or float, never bool (``isinstance(True, int)`` holds in Python)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def rail_now(clock: Clock) -> float:
    """Read the clock as the operand of a deadline guard, refusing readings that lie.

    NaN makes every comparison false in both directions, so a guard would be skipped instead
    of failed; negative or infinite readings answer confidently about times that never were.
    Non-numbers (None, strings, bools) are refused for the same reason.
    """
    now = clock()
    if not is_number(now) or not math.isfinite(now) or now < 0:
        raise SettlementError(
            "tclk: rail clock must read a finite non-negative number", code="bad-clock"
        )
    return now


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """Lowercase A-Z only: ``str.lower`` would fold e.g. U+212A KELVIN SIGN into ``k``."""
    return text.translate(_ASCII_LOWER)
