"""Typed rows the journal returns. All fields are public facts; none is a secret."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class OutboxState(StrEnum):
    PENDING = "pending"
    POSTED = "posted"
    CONFIRMED = "confirmed"
    FAILED = "failed"


# Allowed outbox transitions. A frame is confirmed by reading it back from the venue, which can
# happen before the post's own response arrives (or after that response was lost), so pending ->
# confirmed is allowed. Confirmed is final; failed can be queued again by the operator.
OUTBOX_TRANSITIONS: dict[OutboxState, frozenset[OutboxState]] = {
    OutboxState.PENDING: frozenset({OutboxState.POSTED, OutboxState.CONFIRMED, OutboxState.FAILED}),
    OutboxState.POSTED: frozenset({OutboxState.CONFIRMED, OutboxState.FAILED}),
    OutboxState.FAILED: frozenset({OutboxState.PENDING}),
    OutboxState.CONFIRMED: frozenset(),
}


class RecordInsert(StrEnum):
    """Outcome of journaling a venue record."""

    INSERTED = "inserted"
    DUPLICATE = "duplicate"  # the same record was already journaled
    CONFLICT = "conflict"  # same (room, generation, seq) or (room, sender, nonce), other content


@dataclass(frozen=True)
class IdentityRow:
    did: str
    label: str | None
    created_ms: int


@dataclass(frozen=True)
class DealRow:
    id: int
    offer_id: str
    contract_id: str | None
    role: str
    status: str
    room: str | None
    terms: dict[str, Any]
    created_ms: int
    updated_ms: int


@dataclass(frozen=True)
class RecordRow:
    room: str
    generation: int
    seq: int
    ts_ms: int
    sender: str
    nonce: str | None
    sig: str | None
    line: str
    received_ms: int
    # Whether `line` decoded as a valid tclk/1 frame when it was journaled (None: not known).
    frame_ok: bool | None = None
    # The profile's keyed hash over the row as written, for a restart to trust it by.
    vouch: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class RoomCursor:
    room: str
    generation: int
    seq: int
    updated_ms: int


@dataclass(frozen=True)
class OutboxRow:
    id: int
    room: str
    text: str
    nonce: str | None
    state: OutboxState
    attempts: int
    last_error: str | None
    deal_id: int | None
    secret_ref: str | None
    created_ms: int
    updated_ms: int
