"""MemoryRail: the in-process reference rail (digest §11, ``src/rail.ts``).

It is the executable spec of the predicates every real rail must enforce - one lock per
contract, claim only with a verifying secret strictly before ``refundAfterMs``, refund only
at or after it, both only from ``locked`` - and it holds no value at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal

from tclk_tui.protocol.canonical import canonical_json
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.rails import RAIL_REGISTRY

from .base import (
    Clock,
    LockTerms,
    RailFeatures,
    SettlementError,
    is_number,
    rail_now,
    wall_clock_ms,
)

__all__ = ["MemoryLockStatus", "MemoryRail"]

MemoryLockStatus = Literal["locked", "claimed", "refunded"]


@dataclass(frozen=True, slots=True)
class _Held:
    terms: LockTerms
    status: MemoryLockStatus
    secret: str | None = field(default=None, repr=False)


def _terms_json(terms: object) -> str | None:
    """Canonical JSON of all nine fields, or None when ``terms`` cannot be rendered."""
    try:
        return canonical_json(terms.to_wire())  # type: ignore[attr-defined]
    except Exception:
        return None


class MemoryRail(RailFeatures):
    """Locks keyed by contract id, in this process only; refs are the contract ids.

    ``id`` may name another registered rail so an end-to-end test can drive an offer that
    lists it, but ``moves_value`` stays False whatever the id: nothing here is escrowed.
    Stricter than the reference: ``refundAfterMs`` must be a finite number, because a NaN
    deadline would let lock, claim and refund all pass their guards.
    """

    moves_value: bool = False
    # Its locks live in this process only: a process that ends with one call (the CLI without
    # a daemon) could never claim, refund or verify a lock it made.
    process_local: bool = True

    def __init__(self, id: str = "memory", clock: Clock = wall_clock_ms) -> None:
        if not isinstance(id, str) or id not in RAIL_REGISTRY:
            raise SettlementError(f"tclk: unknown rail id: {id}", code="unknown-rail")
        self.id = id
        self._clock = clock
        self._locks: dict[str, _Held] = {}

    def __repr__(self) -> str:
        return f"MemoryRail(id={self.id!r}, locks={len(self._locks)})"

    def describe(self) -> str:
        label = "memory" if self.id == "memory" else f"{self.id} (simulated by the memory rail)"
        return (
            f"{label}: in-process reference rail. Moves no value: locks are entries in this "
            "process's memory and vanish when it exits. It enforces the lock/claim/refund "
            "predicates a real rail must, and binds no one to them."
        )

    async def lock(self, terms: LockTerms, *, payee_key: str | None = None) -> str:
        if terms.contract in self._locks:
            raise SettlementError(
                f"tclk: rail already holds a lock for {terms.contract}", code="already-locked"
            )
        now = rail_now(self._clock)
        deadline = terms.refund_after_ms
        if not is_number(deadline) or not math.isfinite(deadline):
            raise SettlementError(
                "tclk: rail lock refundAfterMs must be a finite number", code="bad-terms"
            )
        if now >= deadline:
            raise SettlementError(
                "tclk: refusing to lock into an already-open refund window",
                code="refund-window-open",
            )
        self._locks[terms.contract] = _Held(terms=terms, status="locked")
        return terms.contract

    async def verify_lock(self, terms: LockTerms, ref: str, *,
                          payee_key: str | None = None) -> bool:
        held = self._locks.get(ref) if isinstance(ref, str) else None
        if held is None or held.status != "locked":
            return False
        stored = _terms_json(held.terms)
        return stored is not None and stored == _terms_json(terms)

    async def claim(self, ref: str, secret: str) -> None:
        held = self._require_locked(ref, "claim")
        if rail_now(self._clock) >= held.terms.refund_after_ms:
            raise SettlementError("tclk: claim after refundAfterMs", code="claim-too-late")
        if not isinstance(secret, str) or not verify_secret(
            held.terms.lock, held.terms.statement, secret
        ):
            raise SettlementError("tclk: secret does not open the statement", code="bad-secret")
        # Stored as given, case preserved, as the reference does.
        self._locks[ref] = replace(held, status="claimed", secret=secret)

    async def refund(self, ref: str) -> None:
        held = self._require_locked(ref, "refund")
        if rail_now(self._clock) < held.terms.refund_after_ms:
            raise SettlementError("tclk: refund before refundAfterMs", code="refund-too-early")
        self._locks[ref] = replace(held, status="refunded")

    def status(self, ref: str) -> MemoryLockStatus | None:
        """The rail's own view of one lock (None when it holds nothing under ``ref``)."""
        held = self._locks.get(ref) if isinstance(ref, str) else None
        return None if held is None else held.status

    async def lock_status(self, ref: str) -> str | None:
        return self.status(ref)

    async def claimed_with(self, ref: str) -> str | None:
        held = self._locks.get(ref) if isinstance(ref, str) else None
        return held.secret if held is not None and held.status == "claimed" else None

    def claimed_secret(self, ref: str) -> str | None:
        """The secret a claim used, exactly as given; explicit, since reprs never show it."""
        held = self._locks.get(ref) if isinstance(ref, str) else None
        return None if held is None else held.secret

    def _require_locked(self, ref: str, op: str) -> _Held:
        held = self._locks.get(ref) if isinstance(ref, str) else None
        if held is None:
            raise SettlementError(f"tclk: {op} on an unknown lock {ref}", code="unknown-lock")
        if held.status != "locked":
            raise SettlementError(f"tclk: {op} on a {held.status} lock", code="not-locked")
        return held
