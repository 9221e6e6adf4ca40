"""PaperRail: a rail that settles nothing (digest §11, ``src/paper-rail.ts``).

IT HOLDS NO VALUE AND CANNOT. Its records are lines in a world-writable note namespace on a
chat venue that holds no funds and executes nothing: anyone can overwrite any status on any
contract. It exists so the whole choreography can run end to end between two processes that
share no memory, as a rehearsal. ``verify_lock`` returning True means a string is present in a
namespace a stranger could have written - evidence of a rehearsal, never of a payment.

Stricter than the reference where the digest lists quirks: the clock goes through
``rail_now`` (a NaN or negative clock throws instead of skipping every deadline guard), and
records are decoded by ``decode_paper_record``, which takes plain decimal ``refundAfterMs``
only (the reference's ``Number()`` also took ``1e3``, ``0x10``, ``+5``, ``1.0``, ``00012``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.locks import is_valid_statement, verify_secret
from tclk_tui.protocol.naming import decode_paper_record, encode_paper_record, paper_note
from tclk_tui.protocol.quoting import quote

from .base import (
    MAX_SAFE_INTEGER,
    Clock,
    LockTerms,
    RailFeatures,
    SettlementError,
    ascii_lower,
    is_number,
    rail_now,
    wall_clock_ms,
)
from .notes import NoteStore

__all__ = ["PAPER_RECORD_PREFIX", "PaperRail", "PaperRecord", "PaperStatus"]

PAPER_RECORD_PREFIX = "tclkpaper1"

PaperStatus = Literal["locked", "claimed", "refunded"]

PAPER_DESCRIPTION = (
    "PAPER RAIL - REHEARSAL ONLY. IT SETTLES NOTHING AND MOVES NO VALUE. "
    "Its 'locks' are lines in a world-writable venue note that anyone can overwrite; no "
    "escrow, no arbiter, no coin stands behind them. A locked, claimed or refunded paper "
    "record is evidence of a rehearsal, never of a payment. Never offer or accept it as "
    "settlement outside an explicitly non-value rehearsal."
)


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """One decoded paper record. ``secret`` is set once claimed (the claim made it public),
    but stays out of the repr all the same."""

    status: PaperStatus
    lock: Literal["hash", "point"]
    statement: str
    refund_after_ms: int
    secret: str | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, object]:
        record: dict[str, object] = {
            "status": self.status,
            "lock": self.lock,
            "statement": self.statement,
            "refund_after_ms": self.refund_after_ms,
        }
        if self.secret is not None:
            record["secret"] = self.secret
        return record


def _decode(value: object) -> PaperRecord | None:
    """Anonymous input from a world-writable namespace: anything odd reads as None."""
    if not isinstance(value, str):
        return None
    try:
        decoded = decode_paper_record(value)
        if decoded is None:
            return None
        return PaperRecord(
            status=decoded["status"],
            lock=decoded["lock"],
            statement=decoded["statement"],
            refund_after_ms=decoded["refund_after_ms"],
            secret=decoded.get("secret"),
        )
    except Exception:
        return None


def _note_path(contract: object) -> tuple[str, str]:
    """The record's (ns, key); a malformed contract id raises the reference's message."""
    if not isinstance(contract, str):
        raise SettlementError(f"tclk: malformed contract id: {quote(contract)}",
                              code="malformed-ref")
    try:
        return paper_note(contract)
    except TclkError as exc:
        raise SettlementError(str(exc), code="malformed-ref") from None


def _safe_positive_ms(value: object) -> int | None:
    """``Number.isSafeInteger(v) && v > 0`` as an int (integral floats allowed, bools not)."""
    if not is_number(value):
        return None
    assert isinstance(value, int | float)
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    as_int = int(value)
    return as_int if 0 < as_int <= MAX_SAFE_INTEGER else None


def _fits(lock: object, statement: object) -> bool:
    if lock not in ("hash", "point") or not isinstance(statement, str):
        return False
    try:
        return bool(is_valid_statement(lock, statement))  # type: ignore[arg-type]
    except Exception:
        return False


class PaperRail(RailFeatures):
    """Records the lock/claim/refund lifecycle on venue notes and backs it with nothing.

    It enforces the predicates a real rail must, so a client written against it is written
    correctly; it cannot make any of that binding on a counterparty.
    """

    id: str = "paper"
    moves_value: bool = False

    def __init__(self, notes: NoteStore, clock: Clock = wall_clock_ms) -> None:
        self._notes = notes
        self._clock = clock

    def __repr__(self) -> str:
        return "PaperRail(id='paper', moves_value=False)"

    def describe(self) -> str:
        return PAPER_DESCRIPTION

    async def lock(self, terms: LockTerms, *, payee_key: str | None = None) -> str:
        now = rail_now(self._clock)
        deadline = terms.refund_after_ms
        # A non-number deadline is refused just below, as the reference's comparison
        # (false against NaN or a non-number) lets it fall through to that check.
        if is_number(deadline) and now >= deadline:
            raise SettlementError(
                "tclk: refusing to lock into an already-open refund window",
                code="refund-window-open",
            )
        # The record holds canonical lowercase spellings only; refuse anything a reader
        # could not parse back rather than write an unauditable record.
        if not _fits(terms.lock, terms.statement):
            raise SettlementError(
                "tclk: paper rail lock statement does not fit its lock kind", code="bad-terms"
            )
        refund_after_ms = _safe_positive_ms(deadline)
        if refund_after_ms is None:
            raise SettlementError(
                "tclk: paper rail lock refundAfterMs must be a positive unix-ms integer",
                code="bad-terms",
            )
        ns, key = _note_path(terms.contract)
        record = PaperRecord(
            status="locked",
            lock="point" if terms.lock == "point" else "hash",  # _fits refused any other
            statement=terms.statement,
            refund_after_ms=refund_after_ms,
        )
        won = await self._notes.set(ns, key, encode_paper_record(record.to_dict()), if_absent=True)
        if not won:
            raise SettlementError(
                f"tclk: paper rail already has a record for {terms.contract}",
                code="already-locked",
            )
        return terms.contract

    async def verify_lock(self, terms: LockTerms, ref: str, *,
                          payee_key: str | None = None) -> bool:
        if not isinstance(ref, str) or ref != terms.contract:
            return False
        # None for a malformed id or an unparseable line; a transport failure from the
        # store still raises, because an outage is not a negative answer.
        record = await self.read(ref)
        deadline = terms.refund_after_ms
        return (
            record is not None
            and record.status == "locked"
            and record.lock == terms.lock
            and record.statement == terms.statement
            and is_number(deadline)
            and record.refund_after_ms == deadline
        )

    async def claim(self, ref: str, secret: str) -> None:
        current, record = await self._require_locked(ref, "claim")
        if rail_now(self._clock) >= record.refund_after_ms:
            raise SettlementError("tclk: claim after refundAfterMs", code="claim-too-late")
        # verify_secret takes either case, but the record is canonical lowercase: store the
        # lowercase spelling so a claimed record stays readable.
        canonical = ascii_lower(secret) if isinstance(secret, str) else None
        if canonical is None or not verify_secret(record.lock, record.statement, canonical):
            raise SettlementError("tclk: secret does not open the statement", code="bad-secret")
        claimed = PaperRecord(
            status="claimed",
            lock=record.lock,
            statement=record.statement,
            refund_after_ms=record.refund_after_ms,
            secret=canonical,
        )
        await self._advance(ref, current, claimed)

    async def refund(self, ref: str) -> None:
        current, record = await self._require_locked(ref, "refund")
        if rail_now(self._clock) < record.refund_after_ms:
            raise SettlementError("tclk: refund before refundAfterMs", code="refund-too-early")
        refunded = PaperRecord(
            status="refunded",
            lock=record.lock,
            statement=record.statement,
            refund_after_ms=record.refund_after_ms,
        )
        await self._advance(ref, current, refunded)

    async def lock_status(self, ref: str) -> str | None:
        record = await self.read(ref)
        return None if record is None else record.status

    async def claimed_with(self, ref: str) -> str | None:
        record = await self.read(ref)
        return record.secret if record is not None and record.status == "claimed" else None

    async def read(self, ref: str) -> PaperRecord | None:
        """The record as it stands; None when the id is malformed, absent or unparseable."""
        try:
            ns, key = _note_path(ref)
        except SettlementError:
            return None
        return _decode(await self._notes.get(ns, key))

    async def _require_locked(self, ref: str, op: str) -> tuple[str, PaperRecord]:
        ns, key = _note_path(ref)
        current = await self._notes.get(ns, key)
        if current is None:
            raise SettlementError(
                f"tclk: {op} on an unknown paper record {ref}", code="unknown-lock"
            )
        record = _decode(current)
        if record is None:
            raise SettlementError(
                f"tclk: {op} on an unreadable paper record {ref}", code="unreadable-record"
            )
        if record.status != "locked":
            raise SettlementError(f"tclk: {op} on a {record.status} record", code="not-locked")
        return current, record

    async def _advance(self, ref: str, expected: str, nxt: PaperRecord) -> None:
        """CAS against the exact bytes read: it stops two of our own workers racing, and
        does NOT fence a stranger, who can overwrite the note at any time."""
        ns, key = _note_path(ref)
        won = await self._notes.set(ns, key, encode_paper_record(nxt.to_dict()), if_value=expected)
        if not won:
            raise SettlementError(f"tclk: paper record for {ref} changed under us", code="cas-lost")
