"""Read-only views the engine hands to faces: plain frozen values, no secrets, no I/O.

Faces render these and never derive protocol facts themselves; every field a pane shows is
computed here or below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tclk_tui.engine.events import DangerLevel

OfferStatus = Literal["open", "awaiting", "accepted", "expired", "cancelled", "mine"]


OFFER_ID_CHARS = 66  # `0x` and the 64 hex digits of a sha256: an offer's id is its hash


@dataclass(frozen=True, slots=True)
class OfferRow:
    offer_id: str
    sender: str
    role: str  # the sender's role: payer or payee
    amount: str
    asset: str
    lock: str  # hash | point
    rails: tuple[str, ...]
    claim_by_ms: int
    refund_after_ms: int
    expires_ms: int
    status: str  # open | awaiting (its statement) | accepted | expired | cancelled
    capability: tuple[str, ...] | None  # rails from the sender's DID note, a routing hint only
    mine: bool
    seq: int
    ts_ms: int
    job: str = ""  # "<proto>:<id>" or ""
    line: str = ""  # the exact signed line
    # The amount as money, as the engine read it (engine.money): `0.25 ETH`, and the number
    # alone, `0.25`. Faces read `amount_text` / `amount_units`.
    money_text: str = ""
    money_units: str = ""

    @property
    def amount_text(self) -> str:
        """`0.25 ETH`; `1000 FLOP` (minimal units) where no rail here knows the decimals."""
        return self.money_text or f"{self.amount} {self.asset}"

    @property
    def amount_units(self) -> str:
        return self.money_units or self.amount


@dataclass(frozen=True, slots=True)
class BoardQuery:
    text: str = ""
    asset: str | None = None
    rail: str | None = None
    lock: str | None = None
    role: str | None = None
    status: str | None = "open"
    sort: str = "expires_ms"  # any OfferRow field name
    descending: bool = False


@dataclass(frozen=True, slots=True)
class RecordView:
    """One signed record of a deal's transcript, with what the fold made of it."""

    room: str
    seq: int
    ts_ms: int
    sender: str
    verified: bool
    type: str | None
    summary: str  # the decoded frame in plain words (untrusted parts quoted literally)
    ok: bool
    reason: str | None
    mine: bool


@dataclass(frozen=True, slots=True)
class Deadlines:
    now_ms: int
    expires_ms: int
    claim_by_ms: int
    refund_after_ms: int
    last_safe_ms: int  # the moment after which the next action for this side is unsafe
    last_safe_what: str  # what must happen before last_safe_ms
    level: DangerLevel


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    status: str
    ts_ms: int
    by: str


@dataclass(frozen=True, slots=True)
class DealView:
    deal_id: str  # the offer id: stable from the moment the offer exists
    contract: str | None
    role: str  # our side: payer | payee | observer
    status: str
    amount: str
    asset: str
    lock: str
    rail: str | None
    rail_ref: str | None
    rails: tuple[str, ...]
    counterparty: str | None
    room: str | None
    deadlines: Deadlines
    actions: frozenset[str]  # accept, lock, reveal, refund, cancel, heartbeat, receipt
    records: tuple[RecordView, ...]
    timeline: tuple[TimelineEntry, ...]
    secret_held: bool
    rail_moves_value: bool
    note: str = ""  # last heartbeat note from the counterparty, untrusted
    # The rail's own word on the lock beside the transcript's status, and whether they differ
    # (e.g. claimed on chain while the room shows no reveal yet).
    rail_status: str | None = None
    rail_disagrees: bool = False
    # What a chain rail read about the lock (chain id, block, confirmations, amount, ...).
    lock_facts: tuple[tuple[str, str], ...] = ()
    # `status` is "unknown" when the rail and the transcript disagree; then both sides' facts:
    transcript_status: str = ""
    disagreement: str = ""  # one sentence with both sides' facts, empty when they agree
    # This wallet's own account on the deal's rail and its last-read balance ("" for rails
    # without accounts).
    rail_account: str = ""
    # The deal actions this status admits that are not legal now, each with the engine's
    # reason (engine.legal): faces show them as "not now" with that reason, never their own.
    unavailable: tuple[tuple[str, str], ...] = ()
    # Which accept the deal is bound to (the first valid one this wallet journaled), in words,
    # and every other accept seen, as (sender DID, why it was refused).
    accepted_by: str = ""
    refused_accepts: tuple[tuple[str, str], ...] = ()
    # The amount as money (engine.money): `0.25 ETH` where a rail here knows the asset's
    # decimals, `1000 FLOP` (minimal units) where none does; and in minimal units, named.
    money_text: str = ""
    money_minimal: str = ""

    @property
    def amount_text(self) -> str:
        return self.money_text or f"{self.amount} {self.asset}"

    @property
    def amount_minimal(self) -> str:
        return self.money_minimal or f"{self.amount} {self.asset} (minimal units)"


@dataclass(frozen=True, slots=True)
class FieldProblem:
    field: str
    message: str


@dataclass(frozen=True, slots=True)
class OfferDraft:
    """What the operator typed into the offer form; the engine validates and builds."""

    role: str = "payer"
    amount: str = ""
    asset: str = ""
    lock: str = "hash"
    rails: str = ""  # comma-separated, normalised by the engine
    claim_in_s: str = "3600"
    refund_gap_s: str = "3600"
    expires_in_s: str = "600"
    job: str = ""  # optional "proto:id"
    panel: str = ""  # optional: one arbiter's DID, or a committee's DIDs comma-separated


@dataclass(frozen=True, slots=True)
class VaultStatus:
    backend: str
    healthy: bool
    detail: str


@dataclass(frozen=True, slots=True)
class HeldSecret:
    """A secret the vault holds, by name and public statement: never the value."""

    name: str
    deal_id: str
    kind: str  # preimage | witness | payment-key | master
    statement: str | None
