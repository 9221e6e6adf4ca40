"""The settlement-rail interface (tclk/1 SPEC §5) and what every rail shares.

A rail is the source of truth for value; frames only coordinate. The interface is async
because every real rail answers over a network, and the in-process ones keep the same shape
so a caller written against them is written correctly for the rest.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import LockTerms

__all__ = [
    "MAX_SAFE_INTEGER",
    "Clock",
    "LockTerms",
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


@runtime_checkable
class SettlementRail(Protocol):
    """What the engine needs from any rail.

    ``moves_value`` is the guard against rehearsal rails being mistaken for settlement: the
    engine and the faces must read it, never infer it from the id.
    """

    id: str
    moves_value: bool

    async def lock(self, terms: LockTerms) -> str:
        """Escrow under ``terms``; returns the rail-specific reference."""
        ...

    async def verify_lock(self, terms: LockTerms, ref: str) -> bool:
        """True only if ``ref`` holds a live lock matching ``terms``; fail closed."""
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
