"""A deal's records and the fold of them: what the signed transcript has established.

Records arrive from the board (accepts and cancels naming the offer), from sealed letters (a
private accept) and from the deal room, in any order and any number of times; each is folded
in as it arrives (`RunningFold`), so a stranger filling a room costs one step a record. The
first valid accept this wallet journals binds the deal for good. Nothing here reads a rail or
states a gate: the layers above ask this one what the transcript says.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tclk_tui.engine.arbitration.side_lines import read_side_line
from tclk_tui.engine.deadlines import deal_deadlines
from tclk_tui.engine.deal.text import describe_frame, short
from tclk_tui.engine.events import DealAdvanced
from tclk_tui.engine.ports import DealContext
from tclk_tui.engine.views import Deadlines, RecordView
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.frames import OfferFrame
from tclk_tui.protocol.machine import ContractState
from tclk_tui.protocol.naming import deal_room
from tclk_tui.protocol.transcript import (
    FoldStep,
    RunningFold,
    TranscriptRecord,
    fold_transcript,
    verify_transcript_record,
)

MAX_REFUSED_SHOWN = 16
ROOM_KEPT_MS = 7 * 24 * 3_600_000
"""The venue reaps a room after 7 idle days: a settled deal's room is not read past that."""


@dataclass
class DealFold:
    """The offer, the accept it is bound to and the room's records, folded; the views of them."""

    ctx: DealContext
    deal_id: str
    role: str  # our side: payer | payee
    offer_record: TranscriptRecord
    # Accepts and cancels naming the offer, as the board ordered them; then the deal room's
    # records in room order. Records are kept in venue order whatever order they arrive in (our
    # own line is read back before the follower delivers what landed just ahead of it).
    board_records: list[TranscriptRecord] = field(default_factory=list)
    room_records: list[TranscriptRecord] = field(default_factory=list)
    # The accept this deal is bound to, forever: the first valid accept this wallet journaled
    # (public on the board, or `private`: a sealed letter whose seq counts in its own room).
    # Once set, the fold is the offer, this accept, then everything else (see `_records`).
    accept_record: TranscriptRecord | None = None
    accept_private: bool = False
    # Journals the accept the moment it binds (the book sets it), so a restart rebuilds the
    # same deal.
    on_bound: Callable[[DealFold], None] | None = field(default=None, repr=False)
    # Our own private accept, signed for the board and journaled before it was sealed to the
    # offerer ({kind, nonce, sig, line}): a restart sends this very letter again if the deal
    # is not bound yet.
    letter: dict | None = field(default=None, repr=False)
    # Private accepts refused since this wallet opened (sender, why): never journaled.
    refused_letters: list[tuple[str, str]] = field(default_factory=list, repr=False)
    _state: ContractState | None = None
    # The fold of `_records()`, kept as records arrive: a new record costs its own check
    # and step, not the whole room's again (a stranger may fill a deal room).
    _fold: RunningFold = field(default_factory=RunningFold, repr=False)
    _board_keys: set[tuple[int, str]] = field(default_factory=set, repr=False)
    _room_keys: set[tuple[int, str]] = field(default_factory=set, repr=False)
    _lock_lines: int = 0  # lock frames among the room's records, whoever's
    _views: dict[tuple[Any, ...], RecordView] = field(default_factory=dict, repr=False)
    _badges: dict[tuple[str, int, str], bool] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._board_keys = {(r.seq, r.line) for r in self.board_records}
        self._room_keys = {(r.seq, r.line) for r in self.room_records}
        self._lock_lines = sum(map(_is_lock_record, self.room_records))
        self._refold()

    @property
    def offer(self) -> OfferFrame:
        return self.state.offer

    @property
    def state(self) -> ContractState:
        assert self._state is not None
        return self._state

    @property
    def room(self) -> str | None:
        return deal_room(self.state.contract) if self.state.contract else None

    @property
    def observer(self) -> bool:
        """True once the contract exists and this wallet is not one of its two parties (another
        acceptor's accept came first): it may watch, never act."""
        state = self.state
        return state.status != "proposed" and self.ctx.did not in (state.payer_did,
                                                                    state.payee_did)

    def board_transcript(self) -> list[TranscriptRecord]:
        """The offer, then the accept the deal is bound to, then every other board record in
        board order: the deal's records before its room, in the order they are folded."""
        bound = self.accept_record
        if bound is None:
            return [self.offer_record, *self.board_records]
        return [self.offer_record, bound, *(r for r in self.board_records if r != bound)]

    def _records(self) -> list[TranscriptRecord]:
        # Board records first: once a contract exists nothing further on the board can move it,
        # and its room holds only records written after the accept. Records of different rooms
        # are never ordered by their seqs: the bound accept goes first whatever its seq says.
        return [*self.board_transcript(), *self.room_records]

    @property
    def _steps(self) -> tuple[FoldStep, ...]:
        return self._fold.steps

    def _refold(self) -> bool:
        """Fold every record again, in `_records()`' order: at the start, and when that order
        itself changes (an accept is bound). Any other record is folded in as it arrives."""
        before = self._state.status if self._state is not None else None
        self._fold = RunningFold(self._records())
        return self._folded(before)

    def _folded(self, before: str | None) -> bool:
        """Take the fold's state (binding the accept it took, once); True when its status is
        not `before`."""
        state = self._fold.state
        if state is None:
            raise TclkError("tclk: the offer record does not open a contract")
        self._state = state
        if self.accept_record is None and state.contract is not None:
            self._bind(self._records())
            if self.accept_record is not None:  # the same state, its steps in the new order
                self._fold = RunningFold(self._records())
                assert self._fold.state is not None
                self._state = self._fold.state
        if before != self._state.status:
            self._transcript_moved()
        return before != self._state.status

    def _transcript_moved(self) -> None:
        """The fold's status changed: a layer above that read something against the old
        transcript forgets it (the rail's word, see `DealRail`)."""

    def _bind(self, records: list[TranscriptRecord]) -> None:
        """Pin the accept the fold just took: from now on no other accept is folded first."""
        for record, step in zip(records, self._steps, strict=False):
            if step.ok and step.type == "accept":
                self._pin(record, private=False)
                return

    def _pin(self, record: TranscriptRecord, *, private: bool) -> None:
        """Bind to `record` and journal it; if the journal refuses, nothing is bound (the
        next fold or letter binds again, and journals it then)."""
        self.accept_record, self.accept_private = record, private
        try:
            if self.on_bound is not None:
                self.on_bound(self)
        except BaseException:
            self.accept_record, self.accept_private = None, False
            raise

    def ingest_board(self, record: TranscriptRecord) -> bool:
        """An accept or cancel naming our offer; True when it changed the contract's status."""
        key = (record.seq, record.line)
        if key in self._board_keys:
            return False
        self._board_keys.add(key)
        # After the board records of the same seq or before: where a stable sort puts it.
        at = bisect.bisect_right(self.board_records, record.seq, key=_seq)
        self.board_records.insert(at, record)
        before = self.state.status
        bound = self.accept_record
        if bound is None:
            self._fold.insert(1 + at, record)
        elif record != bound:  # after the offer and the bound accept (see `board_transcript`)
            ahead = sum(1 for r in self.board_records[:at] if r == bound)
            self._fold.insert(2 + at - ahead, record)
        changed = self._folded(before)
        self._announce(changed)
        return changed

    def ingest_private(self, record: TranscriptRecord, *,
                       bound_before_board: bool = False) -> str | None:
        """A private accept (its record signed for the board, its seq the sealed line's): it
        binds the deal if nothing has yet, else it is refused. None once it binds (or is the
        accept the deal is bound to already); otherwise why it was refused.

        `bound_before_board`: the caller has this wallet's own word that this accept was bound
        before the board's records (a restored offerer's withdrawal and its signed line in the
        accept's deal room): it is folded ahead of them, so the withdrawal does not end it."""
        bound = self.accept_record
        if bound is not None:
            if (bound.line, bound.signature) == (record.line, record.signature):
                return None
            why = f"the offer is already bound to {self.accepted_by()}"
        else:
            if bound_before_board:
                last = fold_transcript([self.offer_record, record]).steps[-1]
            else:
                last = fold_transcript([*self.board_transcript(), record]).steps[-1]
            if last.ok and last.type == "accept":
                self._pin(record, private=True)
                self._announce(self._refold())
                return None
            why = (last.reason or "refused by the fold").removeprefix("tclk: ")
        if len(self.refused_letters) < MAX_REFUSED_SHOWN:
            self.refused_letters.append((record.sender, why))
        return why

    def ingest_room(self, records: list[TranscriptRecord], *, verified: bool = False) -> bool:
        """Records of the deal room, in any order; True when one was new. `verified`: each
        one's signature was checked already (the venue client checks every record it reads),
        so the fold does not check it again."""
        known = self._room_keys
        fresh = [r for r in records if (r.seq, r.line) not in known]
        if not fresh:
            return False
        before = self.state.status
        for record in fresh:
            known.add((record.seq, record.line))
            at = bisect.bisect_right(self.room_records, record.seq, key=_seq)
            offset = len(self._fold) - len(self.room_records)  # the board's part of the fold
            self.room_records.insert(at, record)
            self._fold.insert(offset + at, record, verified=verified)
            self._lock_lines += _is_lock_record(record)
        changed = self._folded(before)
        self._announce(changed)
        return True

    def _verified(self, record: TranscriptRecord) -> bool:
        """A board record's signature badge, checked once per record (views are drawn
        often; the room's own records carry theirs in the fold)."""
        key = (record.room, record.seq, record.line)
        if key not in self._badges:
            self._badges[key] = verify_transcript_record(record).ok
        return self._badges[key]

    def unconfirmed_accept(self) -> str | None:
        """Why our accept may not be the one the offerer bound, or None. A private accept
        binds only when the offerer opens it, and loses to a public accept the offerer read
        first (which we may never see); an offerer that withdrew its offer from the board
        bound a private accept, perhaps before ours. Either way only the offerer's own signed
        frame in this contract's room says it is our deal (it posts one when it binds)."""
        offerer = self.offer["from"]
        if offerer == self.ctx.did or self.accept_record is None:
            return None
        withdrawn = any(r.sender == offerer and self._verified(r)
                        and (f := try_decode_frame(r.line)) is not None
                        and f["type"] == "cancel"
                        for r in self.board_records)
        if not (self.accept_private or withdrawn):
            return None
        if any(step.ok and record.sender == offerer and record.room == self.room
               for record, step in zip(self._records(), self._steps, strict=False)):
            return None
        how = "sealed privately" if self.accept_private else "withdrawn from the board"
        return (f"the offer was {how}: the offerer has not confirmed in the deal room that "
                "it bound this accept (another one may have bound it)")

    def accepted_by(self) -> str:
        """Which accept the deal is bound to, in words (empty while none is)."""
        bound = self.accept_record
        if bound is None:
            return ""
        how = "private" if self.accept_private else "public"
        where = "a sealed letter" if self.accept_private else "on the board"
        return (f"the {how} accept of {short(bound.sender)} ({where}), the first this wallet "
                "journaled")

    def refused_accepts(self) -> list[tuple[str, str]]:
        """Every other accept this deal has seen (sender, why refused): those on the board and
        the sealed ones refused since this wallet opened."""
        out = []
        for record, step in zip(self._records(), self._steps, strict=False):
            if step.type == "accept" and not step.ok:
                out.append((record.sender, self._accept_reason(step.reason)))
        return [*out, *self.refused_letters][:MAX_REFUSED_SHOWN]

    def _accept_reason(self, reason: str | None) -> str:
        """The fold's reason for a refused accept, saying which accept won when one did."""
        if self.accept_record is not None and (reason or "").startswith("accept in status"):
            return f"the offer is already bound to {self.accepted_by()}"
        return (reason or "refused").removeprefix("tclk: ")

    def _announce(self, changed: bool) -> None:
        last = self._fold.last_step
        self.ctx.events.publish(DealAdvanced(
            deal_id=self.deal_id, status=self.state.status,
            reason=None if last is None or last.ok else last.reason))

    def announce(self) -> None:
        """Tell the faces to redraw this deal (something beside its transcript changed)."""
        self._announce(False)

    def counterparty(self) -> str | None:
        other = self.state.payee_did if self.role == "payer" else self.state.payer_did
        return other

    def has_refused_lock(self) -> bool:
        """A lock frame is in the room but the fold did not take it (asked at every record
        read, so it is counted as records arrive)."""
        return not self.observer and self.state.rail_ref is None and self._lock_lines > 0

    def venue_time_ms(self) -> int:
        """The latest venue stamp on any record of this deal: the venue's clock has passed it."""
        return max((r.timestamp_ms for r in self._records()), default=0)

    def receipted(self) -> bool:
        """Whether the transcript already holds a valid receipt of ours: one is enough, and a
        second would only be noise in a finished deal's room."""
        return any(step.ok and step.type == "receipt" and record.sender == self.ctx.did
                   for record, step in zip(self._records(), self._steps, strict=False))

    def receipts_in(self) -> bool:
        """Whether both parties' valid receipts are in the transcript: then nothing more is
        expected in the deal's room."""
        parties = {self.state.payer_did, self.state.payee_did}
        senders = {record.sender for record, step in zip(self._records(), self._steps,
                                                         strict=False)
                   if step.ok and step.type == "receipt"}
        return None not in parties and parties <= senders

    def room_live(self) -> bool:
        """Whether the deal room is still worth reading: the deal is not settled, or it is
        and a party's receipt is still missing (a settled deal's room is read until both
        are in, while the venue may still hold the room: its 7 idle days after the last
        record or deadline)."""
        if self.room is None:
            return False
        if not self.state.terminal:
            return True
        last = max(self.venue_time_ms(), self.offer["refundAfterMs"])
        return not self.receipts_in() and self.ctx.now_ms() < last + ROOM_KEPT_MS

    def deadlines(self) -> Deadlines:
        """The deal's deadlines and last safe moment now (cheap: the per-second tick's view)."""
        return deal_deadlines(self.offer, self.state.status, self.role, self.ctx.now_ms(),
                              self.offer_record.timestamp_ms)

    def _record_view(self, index: int, record: TranscriptRecord, step: FoldStep,
                     amount: str) -> RecordView:
        """One transcript line as the deal view shows it, made once per record and what is
        shown of it (views are drawn often, and a room may hold thousands of records)."""
        reason = (self._accept_reason(step.reason) if step.type == "accept" and not step.ok
                  else step.reason)
        key = (record.room, record.seq, record.line, step.ok, reason, amount)
        shown = self._views.get(key)
        if shown is None:
            frame = try_decode_frame(record.line)
            # A referee's statement or a juror's vote is no frame, and no junk either.
            side = None if frame else read_side_line(record.line)
            shown = self._views[key] = RecordView(
                room=record.room, seq=record.seq, ts_ms=record.timestamp_ms,
                sender=record.sender, verified=self._fold.signed(index),
                type=frame.get("type") if frame else side[0] if side else None,
                summary=describe_frame(frame, amount) if frame else side[1] if side
                else record.line[:120],
                ok=step.ok or side is not None, mine=record.sender == self.ctx.did,
                reason=None if side else reason)
        return shown


def _seq(record: TranscriptRecord) -> int:
    return record.seq


def _is_lock_record(record: TranscriptRecord) -> bool:
    frame = try_decode_frame(record.line) if '"lock"' in record.line else None
    return bool(frame) and frame.get("type") == "lock"  # type: ignore[union-attr]
