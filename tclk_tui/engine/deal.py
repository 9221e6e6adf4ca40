"""One contract's whole life, as payer or payee, on either lock kind.

A deal's state is always the fold of the signed transcript it has seen (the same
`fold_transcript` an offline auditor runs); nothing here sets a status by hand. Actions that
commit money or a secret go through gates, re-checked at confirmation time.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import hashlib
import logging
import secrets as _secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tclk_tui.engine.crash import crashpoint
from tclk_tui.engine.deadlines import deal_deadlines, moment_text
from tclk_tui.engine.errors import JournalUnwritable
from tclk_tui.engine.events import DealAdvanced, Notice
from tclk_tui.engine.gates import (
    GateAction,
    GateFact,
    GateRefused,
    GateRequest,
    WrongCode,
    code_for,
    code_prompt,
    wrong_code,
)
from tclk_tui.engine.legal import DEAL_ACTIONS, Legal, Prospect, in_play, judge, prospect
from tclk_tui.engine.money import Money, money
from tclk_tui.engine.ports import DealContext
from tclk_tui.engine.side_lines import read_side_line
from tclk_tui.engine.views import Deadlines, DealView, RecordView, TimelineEntry
from tclk_tui.protocol.adaptor import PreSignature, pre_sign, verify_pre_signature
from tclk_tui.protocol.codec import encode_frame, try_decode_frame
from tclk_tui.protocol.errors import RailError, TclkError
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.machine import ContractState, lock_terms
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.panel import panel_of
from tclk_tui.protocol.rails import normalize_rail_id, rail_in_offer
from tclk_tui.protocol.transcript import (
    FoldStep,
    RunningFold,
    TranscriptRecord,
    fold_transcript,
    verify_transcript_record,
)
from tclk_tui.rails.base import LockQuote, LockTerms, SettlementRail
from tclk_tui.technocore.budget import traffic

log = logging.getLogger(__name__)

def claim_message(contract: str) -> bytes:
    """The message a point-lock pre-signature signs on the rehearsal rails.

    tclk/1 leaves the claim message to the rail; `memory` and `paper` settle by secret, so the
    pre-signature is bound to the contract id under a domain tag of this wallet.
    """
    return hashlib.sha256(b"FLOP::tclk::v1|claim|" + contract.encode("ascii")).digest()


def short(did: str | None) -> str:
    if not did:
        return "-"
    return f"{did[:12]}…{did[-4:]}" if len(did) > 20 else did


def describe_frame(frame: dict, amount_text: str | None = None) -> str:
    """A frame in plain words for the transcript view (values are quoted, never interpreted);
    an offer's amount as `amount_text` says it reads (engine.money), when given."""
    kind = frame.get("type")
    if kind == "offer":
        shown = amount_text or f"{frame['amount']} {frame['asset']}"
        return (f"offer: {frame['role']} {shown} under a "
                f"{frame['lock']} lock on {', '.join(frame['rails'])}")
    if kind == "accept":
        return f"accept with statement {frame['statement'][:14]}…"
    if kind == "lock":
        extra = " with an adaptor pre-signature" if "presig" in frame else ""
        return f"lock on {frame['rail']} ref {frame['ref']!r}{extra}"
    if kind == "reveal":
        return "reveal of the secret (claim)"
    if kind == "refund":
        return "refund" + (f": {frame['reason']!r}" if "reason" in frame else "")
    if kind == "cancel":
        return "cancel" + (f": {frame['reason']!r}" if "reason" in frame else "")
    if kind == "receipt":
        return f"receipt: {frame['outcome']}"
    if kind == "heartbeat":
        return "heartbeat" + (f": {frame['note']!r}" if "note" in frame else "")
    return str(kind)


UNKNOWN = "unknown"
MAX_REFUSED_SHOWN = 16
ROOM_KEPT_MS = 7 * 24 * 3_600_000
"""The venue reaps a room after 7 idle days: a settled deal's room is not read past that."""
"""A deal's shown status when its rail and its transcript disagree (see `disagreement`)."""
LOCK_MARGIN_MS = 120_000
"""The lock gate closes this long before refundAfterMs: venue stamps lag the local clock."""


@dataclass(frozen=True, slots=True)
class RailCheck:
    """What the rails said about this contract when last asked."""

    rail: str | None
    ref: str | None
    status: str | None  # locked | claimed | refunded | None (no lock found)
    checked_ms: int


@dataclass
class LockCheck:
    """What this wallet established about the counterparty's lock on the rail."""

    rail: str
    ref: str
    verified: bool | None = None  # None: not checked yet
    detail: str = "not checked yet"
    presig_ok: bool | None = None
    # What a chain rail read (chain id, block, confirmations, amount, recipient, timelock).
    facts: tuple[tuple[str, str], ...] = ()


@dataclass
class DealSession:
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
    on_bound: Callable[[DealSession], None] | None = field(default=None, repr=False)
    # Our own private accept, signed for the board and journaled before it was sealed to the
    # offerer ({kind, nonce, sig, line}): a restart sends this very letter again if the deal
    # is not bound yet.
    letter: dict | None = field(default=None, repr=False)
    # Private accepts refused since this wallet opened (sender, why): never journaled.
    refused_letters: list[tuple[str, str]] = field(default_factory=list, repr=False)
    lock_check: LockCheck | None = None
    # The rail's own word on the lock (locked, claimed, refunded; None: unknown or not asked),
    # shown beside the transcript's status; see `watch_rail`.
    rail_status: str | None = None
    rail_check: RailCheck | None = None  # the rails' word on this contract (see check_rail)
    # What locking would take from this wallet's account on a value-moving rail, and which
    # rail it was read for (see quote_lock): the lock gate's balance, gas and margin.
    lock_quote: tuple[str, LockQuote] | None = None
    _state: ContractState | None = None
    # One gated action at a time: a confirmation re-checks its facts only after the one
    # before it acted (two faces confirming at once must not lock on two rails).
    _acting: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)
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

    # -- the fold ----------------------------------------------------------------------------

    @property
    def offer(self) -> dict:
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
            self.rail_check = None  # read against another transcript: ask the rail again
        return before != self._state.status

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

    def ingest_private(self, record: TranscriptRecord) -> str | None:
        """A private accept (its record signed for the board, its seq the sealed line's): it
        binds the deal if nothing has yet, else it is refused. None once it binds (or is the
        accept the deal is bound to already); otherwise why it was refused."""
        bound = self.accept_record
        if bound is not None:
            if (bound.line, bound.signature) == (record.line, record.signature):
                return None
            why = f"the offer is already bound to {self.accepted_by()}"
        else:
            trial = fold_transcript([*self.board_transcript(), record])
            last = trial.steps[-1]
            if last.ok and last.type == "accept":
                self._pin(record, private=True)
                self._announce(self._refold())
                return None
            why = (last.reason or "refused by the fold").removeprefix("tclk: ")
        if len(self.refused_letters) < MAX_REFUSED_SHOWN:
            self.refused_letters.append((record.sender, why))
        return why

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
                        and (try_decode_frame(r.line) or {}).get("type") == "cancel"
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

    def _announce(self, changed: bool) -> None:
        last = self._fold.last_step
        self.ctx.events.publish(DealAdvanced(
            deal_id=self.deal_id, status=self.state.status,
            reason=None if last is None or last.ok else last.reason))

    # -- views --------------------------------------------------------------------------------

    def counterparty(self) -> str | None:
        other = self.state.payee_did if self.role == "payer" else self.state.payer_did
        return other

    def _prospect(self, action: str, *, rail: str | None = None, note: str | None = None,
                  secret: str | None = None, ref: str | None = None,
                  presig: PreSignature | None = None) -> Prospect:
        """The frame this wallet would post for `action` now (see engine.legal)."""
        if action == "lock" and rail is None:
            rail = self._default_rail()
        if action == "reveal" and secret is None:
            secret = self.ctx.secrets.deal_secret(self.deal_id)
        built = prospect(action, self.state, did=self.ctx.did, deal_id=self.deal_id, rail=rail,
                         secret=secret, note=note, ref=ref)
        if presig is not None:
            built.frame["presig"] = dict(presig)
        return built

    def can(self, action: str, *, rail: str | None = None) -> Legal:
        """Whether `action` is legal now: the frame it would post, dry-run through
        `apply_frame` (the rule every record read from the venue is judged by)."""
        if action not in DEAL_ACTIONS:
            return Legal(False, f"{action} is not a deal action")
        try:
            built = self._prospect(action, rail=rail)
        except TclkError as exc:
            return Legal(False, str(exc).removeprefix("tclk: "))
        return judge(self.state, built, self.ctx.now_ms())

    def legal_actions(self) -> dict[str, Legal]:
        """Every deal action with the engine's answer: the one table the faces read.

        The transcript's rule, with the rail's word on top: money the rail holds for this
        contract can come back at the window whatever the fold says, and a deal whose rail and
        transcript disagree can be reconciled (and not receipted) until they agree."""
        answers = {action: self.can(action) for action in DEAL_ACTIONS}
        if self._rail_refund_open():
            answers["refund"] = Legal(True)
        if self.disagreement() is not None:
            answers["reconcile"] = Legal(True)
            if answers["receipt"].ok:
                answers["receipt"] = Legal(False, "the rail and the transcript disagree: "
                                           "reconcile first")
        if answers["receipt"].ok and self.receipted():
            answers["receipt"] = Legal(False, "this deal's receipt is already posted")
        return answers

    def actions(self) -> frozenset[str]:
        return frozenset(a for a, legal in self.legal_actions().items() if legal.ok)

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

    def view(self) -> DealView:
        state = self.state
        shown = self.money(state.rail)
        records = [self._record_view(index, record, step, shown.text) for index, (record, step)
                   in enumerate(zip(self._records(), self._steps, strict=False))]
        timeline = []
        for record, step in zip(self._records(), self._steps, strict=False):
            if step.ok and step.type in ("offer", "accept", "lock", "reveal", "refund",
                                         "cancel"):
                status = {"offer": "proposed", "accept": "accepted", "lock": "locked",
                          "reveal": "claimed", "refund": "refunded",
                          "cancel": "cancelled"}[step.type]
                timeline.append(TimelineEntry(status=status, ts_ms=record.timestamp_ms,
                                              by=record.sender))
        rail = self.ctx.rails.get(state.rail or "")
        note = ""
        for record, step in reversed(list(zip(self._records(), self._steps, strict=False))):
            # Only a heartbeat the fold accepted (so from a party) and not our own.
            if step.ok and step.type == "heartbeat" and record.sender != self.ctx.did:
                frame = try_decode_frame(record.line)
                note = frame.get("note", "") if frame else ""
                break
        answers = self.legal_actions()
        disagreement = self.disagreement()
        return DealView(
            deal_id=self.deal_id, contract=state.contract,
            role="observer" if self.observer else self.role,
            status=UNKNOWN if disagreement else state.status,
            transcript_status=state.status, disagreement=disagreement or "",
            amount=self.offer["amount"], asset=self.offer["asset"],
            lock=self.offer["lock"], rail=state.rail, rail_ref=state.rail_ref,
            rails=tuple(self.offer["rails"]), counterparty=self.counterparty(),
            room=self.room,
            deadlines=self.deadlines(),
            actions=frozenset(a for a, legal in answers.items() if legal.ok),
            unavailable=tuple((a, legal.reason or "") for a, legal in answers.items()
                              if not legal.ok and in_play(state, a) and not self.observer),
            records=tuple(records), timeline=tuple(timeline),
            secret_held=self.ctx.secrets.deal_secret(self.deal_id) is not None,
            rail_moves_value=bool(rail.moves_value) if rail is not None else False,
            note=note, rail_status=self.rail_check.status if self.rail_check else self.rail_status,
            rail_disagrees=self.rail_disagrees(),
            lock_facts=self.lock_check.facts if self.lock_check is not None else (),
            rail_account=_account_text(rail),
            money_text=shown.text, money_minimal=shown.minimal,
            accepted_by=self.accepted_by(), refused_accepts=tuple(self.refused_accepts()))

    # -- the rail beside the transcript ---------------------------------------------------------

    def rail_disagrees(self) -> bool:
        """True when the rail's word and the transcript's status tell different stories."""
        if self.disagreement() is not None:
            return True
        status, seen = self.state.status, self.rail_status
        if seen is None or status not in ("locked", "claimed", "refunded"):
            return False
        return seen != status

    async def watch_rail(self) -> bool:
        """Ask the rail about a locked or settled deal; True when what it says changed.

        A payer learns the secret from the rail itself when the payee claimed there without
        posting a reveal (the evm-htlc escrow publishes it in its Claimed event): the vault
        keeps it, and an event says so. A lock the rail no longer holds (a reorg) takes the
        payee's verification back.
        """
        state = self.state
        if state.rail is None or state.rail_ref is None or self.observer:
            return False
        rail = self._rail_for(state.rail)
        if rail is None:
            return False
        seen = await _rail_status(rail, state.rail_ref)
        changed = seen != self.rail_status
        self.rail_status = seen
        self.rail_check = RailCheck(rail=_canonical_rail(state.rail), ref=state.rail_ref,
                                    status=seen, checked_ms=self.ctx.now_ms())
        if seen == "claimed" and self.role == "payer" and state.statement:
            try:
                secret = await rail.claimed_with(state.rail_ref)
            except Exception:  # a rail that cannot answer has shown no secret
                secret = None
            remember = getattr(self.ctx.secrets, "remember_revealed", None)
            learned = getattr(self.ctx.secrets, "revealed_secret", None)
            if (isinstance(secret, str) and remember is not None and learned is not None
                    and learned(self.deal_id) is None
                    and verify_secret(self.offer["lock"], state.statement, secret)):
                remember(self.deal_id, secret)
                self.ctx.events.publish(Notice(
                    "info", f"the payee claimed on {state.rail}: the secret was read from the "
                    "rail" + ("" if state.status == "claimed" else
                              " (no reveal frame posted yet)"), deal_id=self.deal_id))
        if self.role == "payee" and state.status == "locked" and self.lock_check is not None \
                and rail.moves_value:
            before = self.lock_check.verified
            await self.check_lock()
            changed = changed or before != self.lock_check.verified
        if changed:
            self._announce(False)
        return changed

    def _lock_claims(self) -> list[tuple[str, str]]:
        """(rail, ref) pairs that may hold this contract's funds: the lock the fold took, then
        any lock frame of a party the fold refused (a cancel raced it, the venue stamped it
        late), then the contract id on every offered rail (our rails key locks by it)."""
        state = self.state
        found: list[tuple[str, str]] = []
        if state.rail and state.rail_ref:
            found.append((state.rail, state.rail_ref))
        parties = {state.payer_did, state.payee_did, self.ctx.did} - {None}
        for record in reversed(self.room_records):
            if record.sender not in parties:
                continue
            frame = try_decode_frame(record.line)
            if frame and frame.get("type") == "lock" and frame.get("contract") == state.contract:
                found.append((frame["rail"], frame["ref"]))
        if state.contract:
            found += [(rail_id, state.contract) for rail_id in self.offer["rails"]]
        return list(dict.fromkeys(found))

    def has_refused_lock(self) -> bool:
        """A lock frame is in the room but the fold did not take it (asked at every record
        read, so it is counted as records arrive)."""
        return not self.observer and self.state.rail_ref is None and self._lock_lines > 0

    async def check_rail(self) -> RailCheck | None:
        """Ask the rails what they hold for this contract; the answer outranks the fold."""
        state = self.state
        if not state.contract or self.observer:
            return self.rail_check
        check = RailCheck(rail=None, ref=None, status=None, checked_ms=self.ctx.now_ms())
        for rail_id, ref in self._lock_claims():
            rail = self._rail_for(rail_id)
            if rail is None:
                continue
            status = await _rail_status(rail, ref)
            if status is not None:
                check = RailCheck(rail=_canonical_rail(rail_id), ref=ref, status=status,
                                  checked_ms=check.checked_ms)
                break
        self.rail_check = check
        self.rail_status = check.status
        return check

    def _rail_holds_funds(self) -> bool:
        check = self.rail_check
        return check is not None and check.status == "locked"

    def _rail_refund_open(self) -> bool:
        """The payer may take back what the rail holds: the window is open, whatever the fold."""
        return (self._rail_holds_funds() and self.role == "payer" and not self.observer
                and self.ctx.now_ms() >= self.offer["refundAfterMs"])

    def disagreement(self) -> str | None:
        """Both sides' facts when the rail and the transcript disagree, else None."""
        check, fold = self.rail_check, self.state.status
        if check is None:
            return None
        rail = check.status
        if rail == fold or (rail is None and fold in ("proposed", "accepted", "cancelled")):
            return None
        where = f"{check.rail} ref {check.ref}" if check.rail else "every offered rail"
        return (f"the transcript says {fold}; {where} shows "
                f"{rail or 'no lock'} (read {_ms_ago(self.ctx.now_ms() - check.checked_ms)})")

    async def reconcile(self) -> DealView:
        """Re-read the rail (the fold is always current); what is then legal (a refund once
        the window is open and the rail holds the funds) is in the view's actions."""
        await self.check_rail()
        if self.role == "payee" and self.state.status == "locked":
            await self.check_lock()
        self._announce(False)
        view = self.view()
        log.info("deal %s reconciled: the transcript says %s, the rail %s%s; legal now: %s",
                 self.deal_id, self.state.status, view.rail_status or "nothing",
                 " (they disagree)" if view.disagreement else "",
                 ", ".join(sorted(view.actions)) or "nothing")
        return view

    def venue_time_ms(self) -> int:
        """The latest venue stamp on any record of this deal: the venue's clock has passed it."""
        return max((r.timestamp_ms for r in self._records()), default=0)

    def learned_secret(self) -> str | None:
        """The secret the rail (or a reveal) showed this payer, from the vault."""
        learned = getattr(self.ctx.secrets, "revealed_secret", None)
        return None if learned is None else learned(self.deal_id)

    # -- lock verification (payee) -------------------------------------------------------------

    def terms(self) -> LockTerms:
        return lock_terms(self.state)

    async def check_lock(self) -> LockCheck | None:
        """Ask the rail whether the announced lock exists with exactly our terms."""
        state = self.state
        if state.status != "locked" or state.rail is None or state.rail_ref is None:
            return self.lock_check
        check = LockCheck(rail=state.rail, ref=state.rail_ref)
        rail = self._rail_for(state.rail)
        if rail is None:
            check.verified, check.detail = False, f"this wallet has no {state.rail} rail"
        else:
            try:
                ok = await self._verify_on(rail, check)
            except Exception as exc:  # a rail transport failure is "not verified", never yes
                ok, check.detail = False, f"rail check failed: {exc}"
            else:
                if not check.facts:
                    check.detail = ("lock verified with matching terms" if ok else
                                    "the rail holds no lock with these terms under that ref")
                if not ok and await self._claimed_by_us(rail, state.rail_ref):
                    ok, check.detail = True, ("already claimed on the rail with this wallet's "
                                              "secret (before a restart): reveal to announce it")
            check.verified = ok
        if state.presig is not None and state.payer_key and state.statement and state.contract:
            check.presig_ok = verify_pre_signature(
                state.payer_key, "0x" + claim_message(state.contract).hex(), state.statement,
                state.presig)
        self.lock_check = check
        return check

    def rail_kwargs(self, rail: SettlementRail) -> dict[str, Any]:
        """A rail that pays an address (evm-htlc) needs the payee's signed paymentKey: the
        address is derived from it, never taken from anyone's word."""
        if rail.requires_payment_key:
            return {"payee_key": self.state.payee_key}
        return {}

    async def _verify_on(self, rail: SettlementRail, check: LockCheck) -> bool:
        report = await rail.inspect_lock(self.terms(), check.ref, **self.rail_kwargs(rail))
        check.facts = tuple(report.facts)
        check.detail = report.detail if report.ok else f"{report.rule}: {report.detail}"
        return bool(report.ok)

    async def _claimed_by_us(self, rail: SettlementRail, ref: str) -> bool:
        """Our own claim that landed before a crash: the rail says it was claimed with the secret
        our vault holds (nobody else knows it until we reveal)."""
        secret = self.ctx.secrets.deal_secret(self.deal_id)
        statement = self.state.statement
        if secret is None or statement is None:
            return False
        try:
            claimed = await rail.claimed_with(ref)
        except Exception:  # a rail that cannot answer has not shown us a claim
            return False
        return (isinstance(claimed, str) and claimed.lower() == secret.lower()
                and verify_secret(self.offer["lock"], statement, secret))

    def _rail_for(self, rail_id: str) -> SettlementRail | None:
        if rail_id in self.ctx.rails:
            return self.ctx.rails[rail_id]
        for canonical, rail in self.ctx.rails.items():
            if rail_in_offer([rail_id], canonical):
                return rail
        return None

    # -- amounts and the account ---------------------------------------------------------------

    def money(self, rail: str | None = None) -> Money:
        """The deal's amount as it reads on `rail` (or on the first offered rail that knows the
        asset): exact units where the decimals are known, minimal units otherwise."""
        rails = [rail] if rail else list(self.offer["rails"])
        return money(self.offer["amount"], self.offer["asset"], rails, self.ctx.rails)

    async def quote_lock(self, rail: str | None = None) -> LockQuote | None:
        """Read what locking would take from this wallet's account on a value-moving rail
        (balances, allowance, gas, the margin), for the lock gate; None when there is nothing
        to read (not the payer, not accepted, a rail that moves no value)."""
        state = self.state
        chosen = rail or self._default_rail()
        if self.role != "payer" or self.observer or state.status != "accepted" or not chosen:
            return None
        rail_obj = self._rail_for(chosen)
        if rail_obj is None or not rail_obj.moves_value:
            return None
        try:
            quote = await rail_obj.lock_quote(self.terms(), **self.rail_kwargs(rail_obj))
        except Exception as exc:  # an unreachable node: the gate says so and refuses
            quote = LockQuote(facts=(), problems=(f"could not read the account on {chosen}: "
                                                  f"{exc}",), read_ms=self.ctx.now_ms())
        if quote is not None:
            self.lock_quote = (_canonical_rail(chosen), quote)
        return quote

    def _quote_facts(self, rail: str, facts: list[GateFact], blockers: list[str],
                     now: int) -> None:
        """The account's side of a lock on a value-moving rail, from the last quote."""
        held = self.lock_quote
        if held is None or held[0] != _canonical_rail(rail):
            facts.append(GateFact("account", None, "not read yet (it is read again before "
                                  "the lock is sent)"))
            return
        quote = held[1]
        facts += [GateFact(label, None, value) for label, value in quote.facts]
        covered = not quote.problems
        facts.append(GateFact("account covers the lock", covered,
                              f"yes (read {_ms_ago(now - quote.read_ms)})" if covered else
                              "; ".join(quote.problems)))
        blockers += [f"the account cannot cover this lock: {p}" for p in quote.problems]


    def _request(self, action: GateAction, facts: list[GateFact], blockers: list[str], *,
                 late: bool = False, code: str | None = None) -> GateRequest:
        if self.observer:
            blockers = ["this wallet is not a party to the contract: another accept came first",
                        *blockers]
        return self.ctx.stated.state(GateRequest(
            action=action, deal_id=self.deal_id, contract=self.state.contract,
            facts=tuple(facts), blockers=tuple(blockers), late=late, confirm_code=code,
            created_ms=self.ctx.now_ms(), token=_secrets.token_hex(8),
            prompt=code_prompt(code, digits_of="contract id") if code else ""))

    def _time_facts(self, now: int) -> list[GateFact]:
        o = self.offer
        return [
            GateFact("time to claimByMs", None if now < o["claimByMs"] else False,
                     _ms_text(o["claimByMs"] - now)),
            GateFact("time to refundAfterMs", None if now < o["refundAfterMs"] else False,
                     _ms_text(o["refundAfterMs"] - now)),
        ]

    def request_lock(self, rail: str | None = None) -> GateRequest:
        state, now = self.state, self.ctx.now_ms()
        facts: list[GateFact] = []
        blockers: list[str] = []
        chosen = rail or self._default_rail()
        refused: Mapping[str, str] = getattr(self.ctx, "refused_rails", {})
        if chosen is None:  # only set-aside rails offered: say why, not that none is set up
            chosen = next((r for r in self.offer["rails"] if r in refused), None)
        if chosen is not None:
            try:  # the canonical id, before anything touches the rail or a frame names it
                chosen = normalize_rail_id(chosen)
            except RailError as exc:
                blockers.append(str(exc).removeprefix("tclk: "))
        legal = self.can("lock", rail=chosen)
        if not legal.ok and not blockers:
            blockers.append(legal.reason or "the protocol refuses a lock now")
        if legal.ok and (unbound := self.unconfirmed_accept()):
            blockers.append(unbound)
        room_refusal = getattr(self.ctx, "room_refusal", None)
        why_no_room = room_refusal(self.room) if room_refusal is not None else None
        if why_no_room:  # never lock on the rail a lock that could not be announced
            blockers.append(why_no_room)
        if self.offer["refundAfterMs"] - LOCK_MARGIN_MS <= now < self.offer["refundAfterMs"]:
            blockers.append(f"less than {LOCK_MARGIN_MS // 1000} s before refundAfterMs: the "
                            "venue could stamp the lock after it, and the transcript would "
                            "refuse the lock while the rail holds the funds")
        if chosen is not None:
            facts.append(GateFact("rail offered", rail_in_offer(self.offer["rails"], chosen),
                                  chosen))
            rail_obj = self._rail_for(chosen)
            if rail_obj is None:
                blockers.append(refused.get(chosen) or f"this wallet has no {chosen} rail")
            else:
                facts.append(GateFact("settles value", None, "yes" if rail_obj.moves_value else
                                      "NO: rehearsal rail, settles nothing"))
                window = rail_obj.window_note()
                if window is not None:
                    facts.append(GateFact("rail window", None, window))
                if rail_obj.requires_payment_key and not state.payee_key:
                    blockers.append(f"{chosen} pays the payee's paymentKey address, and the "
                                    "payee signed no paymentKey")
        facts.append(GateFact("amount", None, self.money(chosen).gate_text))
        if chosen is not None and (rail_obj := self._rail_for(chosen)) is not None \
                and rail_obj.moves_value:
            self._quote_facts(chosen, facts, blockers, now)
        facts.append(GateFact("payee", None, short(state.payee_did)))
        provenance = getattr(self.ctx, "provenance", None)
        if provenance is not None:  # an offer naming referees: the statement must be theirs
            ok, why = provenance(self.offer, state.statement)
            if ok is not None:
                facts.append(GateFact("statement from the panel", ok, why))
                if not ok:
                    blockers.append(why)
        facts += self._time_facts(now)
        if self.offer["claimByMs"] <= now < self.offer["refundAfterMs"]:
            facts.append(GateFact("payee claim window", False,
                                  "already past claimByMs: the payee could only reveal late"))
        req = self._request("lock", facts, blockers)
        return self.ctx.stated.state(_with_rail(req, chosen))

    def _default_rail(self) -> str | None:
        for rail_id in self.offer["rails"]:
            if self._rail_for(rail_id) is not None:
                return rail_id
        return None

    def request_reveal(self) -> GateRequest:
        state, now = self.state, self.ctx.now_ms()
        facts: list[GateFact] = []
        blockers: list[str] = []
        legal = self.can("reveal")
        if not legal.ok:
            blockers.append(legal.reason or "the protocol refuses a reveal now")
        check = self.lock_check
        if check is None or check.ref != state.rail_ref:
            facts.append(GateFact("lock on the rail", False, "not verified yet"))
            blockers.append("the lock has not been verified on the rail")
        else:
            facts.append(GateFact(f"lock on {check.rail}", check.verified, check.detail))
            facts += [GateFact(label, None, value) for label, value in check.facts]
            if not check.verified:
                blockers.append(f"lock not verified on the rail: {check.detail}")
            checked_on = self._rail_for(check.rail)
            by_signature = checked_on is not None and checked_on.settles_by_signature
            if check.presig_ok is False and by_signature:
                facts.append(GateFact("adaptor pre-signature", False,
                                      "does not verify against the payer's payment key"))
                blockers.append("the payer's pre-signature does not verify")
            elif check.presig_ok is False:  # SPEC §3.3: presig is for rails that settle by it
                facts.append(GateFact("adaptor pre-signature", None,
                                      f"does not verify, but {check.rail} settles by secret, "
                                      "not by signature: the claim does not need it"))
            elif check.presig_ok:
                facts.append(GateFact("adaptor pre-signature", True, "verifies"))
        if state.statement:
            facts.append(GateFact("statement", None, state.statement[:18] + "…"))
        facts.append(GateFact("amount", None, self.money(state.rail).gate_text))
        rail = self._rail_for(state.rail) if state.rail else None
        if rail is not None:
            facts.append(GateFact("settles value", None, "yes" if rail.moves_value else
                                  "NO: rehearsal rail, settles nothing"))
        facts.append(GateFact("payer", None, short(state.payer_did)))
        secret = self.ctx.secrets.deal_secret(self.deal_id)
        holds = secret is not None and state.statement is not None and verify_secret(
            self.offer["lock"], state.statement, secret)
        facts.append(GateFact("secret in the vault opens the statement", holds,
                              "yes" if holds else "no"))
        facts += self._time_facts(now)
        venue_ms = self.venue_time_ms()
        if now < self.offer["refundAfterMs"] <= venue_ms:
            # Our clock may be behind; a record the venue stamped is evidence of its time.
            blockers.append("the venue has already stamped a record after refundAfterMs (this "
                            "computer's clock is behind): the refund window is open")
        late = self.offer["claimByMs"] <= now < self.offer["refundAfterMs"]
        code = code_for(state.contract)
        return self._request("reveal", facts, blockers, late=late, code=code)

    def request_cancel(self) -> GateRequest:
        state = self.state
        legal = self.can("cancel")
        blockers = [] if legal.ok else [legal.reason or "the protocol refuses a cancel now"]
        facts = [GateFact("status", None, state.status)]
        if state.status == "accepted":
            facts.append(GateFact("counterparty", None,
                                  f"{short(self.counterparty())} may be locking right now"))
        return self._request("cancel", facts, blockers)

    def request_refund(self) -> GateRequest:
        state, now = self.state, self.ctx.now_ms()
        check = self.rail_check
        legal = Legal(True) if self._rail_refund_open() else self.can("refund")
        early = now < self.offer["refundAfterMs"] and not legal.ok and (
            legal.reason == "refund window not open yet"
            or (self._rail_holds_funds() and self.role == "payer"))
        if early:  # the one thing to know is when it opens; the facts list the rest
            legal = Legal(False, "the refund window is not open yet: it opens at "
                          + moment_text(self.offer["refundAfterMs"], now))
        blockers = [] if legal.ok else [legal.reason or "the protocol refuses a refund now"]
        if check is not None and check.status == "claimed":
            blockers.append(f"the rail shows the funds claimed ({check.rail} ref {check.ref})")
        rail, ref = self._refund_target()
        facts = [GateFact("rail", None, f"{rail} ref {ref}"), *self._time_facts(now)]
        if check is not None:
            facts.insert(1, GateFact("funds on the rail", check.status == "locked",
                                     check.status or "no lock found"))
            if state.status != "locked":
                facts.insert(2, GateFact("transcript", False, f"says {state.status}: the rail "
                                         "decides whether money can come back"))
        return self._request("refund", facts, blockers)

    def _refund_target(self) -> tuple[str | None, str | None]:
        check, state = self.rail_check, self.state
        if check is not None and check.status in ("locked", "refunded") and check.rail:
            return check.rail, check.ref
        return state.rail, state.rail_ref

    async def fetch_secret(self) -> None:
        """As payee of a deal whose referees hold the secret, read the sealed mail before
        anything needs the secret: a released secret (or the last share) may be waiting
        there, whichever face asks and whether or not anything else polled the mail."""
        read_mail = getattr(self.ctx, "read_mail", None)
        if (read_mail is None or self.role != "payee" or self.observer
                or self.ctx.secrets.deal_secret(self.deal_id) is not None):
            return
        try:
            named = panel_of(self.offer) is not None
        except TclkError:
            named = False
        if named:
            await read_mail()

    async def confirm(self, request: GateRequest, *, typed_code: str | None = None,
                      acknowledge_late: bool = False) -> DealView:
        """Perform a gated action after re-checking every fact now, on a request this engine
        stated (a face's made-up one is refused); one at a time per deal."""
        async with self._acting:
            return await self._confirm(request, typed_code=typed_code,
                                       acknowledge_late=acknowledge_late)

    async def _confirm(self, request: GateRequest, *, typed_code: str | None,
                       acknowledge_late: bool) -> DealView:
        request = self.ctx.stated.stated(request)
        if request.deal_id != self.deal_id:
            raise GateRefused("this confirmation belongs to another deal")
        if request.action == "reveal":
            await self.fetch_secret()
            await self.check_lock()
            fresh = self.request_reveal()
        elif request.action == "lock":
            await self.quote_lock(_rail_of(request))  # the account, read again now
            fresh = _with_rail(self.request_lock(_rail_of(request)), _rail_of(request))
        elif request.action == "cancel":
            fresh = self.request_cancel()
        elif request.action == "refund":
            await self.check_rail()  # the rail, not the transcript, decides a refund
            fresh = self.request_refund()
        else:
            raise GateRefused(f"{request.action} is not a deal action")
        if fresh.blockers:
            raise GateRefused("; ".join(fresh.blockers))
        if not fresh.code_matches(typed_code):
            raise WrongCode(wrong_code())
        if fresh.late and not acknowledge_late:
            raise GateRefused("the reveal is late (past claimByMs): acknowledge the risk first")
        await getattr(self, f"_do_{request.action}")(fresh)
        self.ctx.stated.answered(request)
        return self.view()

    # -- the actions ---------------------------------------------------------------------------

    async def _post(self, room: str | None, built: Prospect) -> None:
        """Post a frame only if the state machine takes it now (h11's rule: what we send is
        judged exactly like what we read)."""
        legal = judge(self.state, built, self.ctx.now_ms())
        if not legal.ok or room is None:
            raise GateRefused(legal.reason or "there is no deal room to post in yet")
        frame = built.frame
        # A reveal's secret is handed over separately so the outbox journals a placeholder.
        await self.ctx.publisher.publish(room, encode_frame(frame), deal_id=self.deal_id,
                                         secret=frame.get("secret"))

    async def _do_lock(self, request: GateRequest) -> None:
        rail_id = _rail_of(request)
        rail = self._rail_for(rail_id) if rail_id else None
        if rail_id is None or rail is None:
            raise GateRefused("no rail was chosen for this lock")
        terms = self.terms()
        extra = self.rail_kwargs(rail)
        if await _safe_verify(rail, terms, terms.contract, **extra):
            ref = terms.contract  # locked before a crash: announce it, never lock twice
        else:
            try:
                ref = await rail.lock(terms, **extra)
            except Exception as exc:  # a squatter on a world-writable note, an outage
                raise GateRefused(f"the rail refused the lock: {exc}") from None
            crashpoint("after-rail-lock")
        self.rail_check = None
        presig = None
        if self.offer["lock"] == "point":
            sk = self.ctx.secrets.payment_secret_key(self.deal_id)
            presig = pre_sign(sk, "0x" + claim_message(terms.contract).hex(), terms.statement)
            if presig is None:
                raise GateRefused("could not pre-sign the claim message")
        with _rail_moved(f"the amount is locked on {rail_id} (ref {ref})", "lock"):
            await self._post(self.room, self._prospect("lock", rail=rail_id, ref=ref,
                                                       presig=presig))

    def _lock_on_rail(self) -> tuple[SettlementRail, str]:
        """The rail and ref the contract's lock names (a locked contract has both)."""
        state = self.state
        rail = self._rail_for(state.rail) if state.rail else None
        if rail is None or state.rail_ref is None:
            raise GateRefused(f"this wallet has no {state.rail} rail for the lock")
        return rail, state.rail_ref

    async def _do_reveal(self, request: GateRequest) -> None:
        secret = self.ctx.secrets.deal_secret(self.deal_id)
        if secret is None:
            raise GateRefused("the vault holds no secret for this deal")
        rail, ref = self._lock_on_rail()
        try:
            await rail.claim(ref, secret)
            crashpoint("after-rail-claim")
        except TclkError as exc:
            # Only our own claim that landed before a crash lets the reveal go on; the rail's
            # word decides, never the wording of its error.
            if not await self._claimed_by_us(rail, ref):
                raise GateRefused(f"the rail refused the claim: {exc}") from None
        with _rail_moved(f"the claim went through on {self.state.rail}: the funds are "
                         "yours, and the secret is out on the rail", "reveal"):
            await self._post(self.room, self._prospect("reveal", secret=secret))

    async def _do_refund(self, request: GateRequest) -> None:
        rail_id, ref = self._refund_target()
        rail = self._rail_for(rail_id) if rail_id else None
        if rail is None or ref is None:
            raise GateRefused("no rail holds a lock for this contract")
        try:
            await rail.refund(ref)
        except TclkError as exc:
            if await _rail_status(rail, ref) != "refunded":
                raise GateRefused(f"the rail refused the refund: {exc}") from None
        await self.check_rail()
        built = self._prospect("refund", ref=ref)
        if judge(self.state, built, self.ctx.now_ms()).ok:
            with _rail_moved(f"the refund went through on {rail_id}", "refund"):
                await self._post(self.room, built)
        else:  # the transcript cannot take a refund frame (it says cancelled or accepted)
            self.ctx.events.publish(Notice(
                "info", f"refunded on {rail_id} (ref {ref}); the transcript says "
                f"{self.state.status}, so no refund frame was posted", deal_id=self.deal_id))

    async def _do_cancel(self, request: GateRequest) -> None:
        room = OFFER_ROOM if self.state.status == "proposed" else self.room
        await self._post(room, self._prospect("cancel"))

    def _ungated(self, action: str, note: str | None = None) -> Prospect:
        try:
            built = self._prospect(action, note=note)
        except TclkError as exc:
            raise GateRefused(str(exc).removeprefix("tclk: ")) from None
        legal = judge(self.state, built, self.ctx.now_ms())
        if not legal.ok:
            raise GateRefused(f"no {action} now: {legal.reason}")
        return built

    async def heartbeat(self, note: str | None = None) -> DealView:
        with traffic("optional"):  # a liveness note never takes a lock's or a reveal's write
            await self._post(self.room, self._ungated("heartbeat", note or None))
        return self.view()

    async def receipt(self) -> DealView:
        legal = self.legal_actions()["receipt"]
        if not legal.ok:
            raise GateRefused(f"no receipt now: {legal.reason}")
        state = self.state
        await self._post(self.room, self._ungated("receipt"))
        self.ctx.events.publish(Notice("info", f"receipt posted: {state.status}",
                                       deal_id=self.deal_id))
        return self.view()


@contextlib.contextmanager
def _rail_moved(done: str, action: str) -> Iterator[None]:
    """The rail acted and the frame saying so could not be journaled (a full disk): the
    error says what the rail did, not only that nothing was posted."""
    try:
        yield
    except JournalUnwritable as exc:
        raise JournalUnwritable(
            f"{done}, but {exc.why}: the {action} frame that tells the deal room was not "
            f"posted; confirm the {action} again once there is room (the rail is not asked "
            "twice)", happened=exc.happened, why=exc.why) from None


def _seq(record: TranscriptRecord) -> int:
    return record.seq


def _is_lock_record(record: TranscriptRecord) -> bool:
    frame = try_decode_frame(record.line) if '"lock"' in record.line else None
    return bool(frame) and frame.get("type") == "lock"  # type: ignore[union-attr]


def _account_text(rail: SettlementRail | None) -> str:
    return rail.account_text() if rail is not None else ""


async def _rail_status(rail: SettlementRail, ref: str) -> str | None:
    try:
        return await rail.lock_status(ref)
    except Exception:  # a rail that cannot answer has not shown a refund
        return None


async def _safe_verify(rail: SettlementRail, terms: LockTerms, ref: str, **extra: Any) -> bool:
    try:
        return bool(await rail.verify_lock(terms, ref, **extra))
    except Exception:
        return False


def _canonical_rail(rail_id: str) -> str:
    try:
        return normalize_rail_id(rail_id)
    except RailError:
        return rail_id


def _ms_ago(ms: int) -> str:
    return "just now" if ms < 1000 else f"{_ms_text(ms)} ago"


def _with_rail(request: GateRequest, rail: str | None) -> GateRequest:
    """Carry the chosen rail inside the request (as a fact) so confirm locks on that rail."""
    if rail is None or any(f.label == "chosen rail" for f in request.facts):
        return request
    return dataclasses.replace(request,
                               facts=(GateFact("chosen rail", None, rail), *request.facts))


def _rail_of(request: GateRequest) -> str | None:
    for fact in request.facts:
        if fact.label == "chosen rail":
            return fact.detail
    return None


def _ms_text(ms: int) -> str:
    if ms <= 0:
        return "passed"
    s = ms // 1000
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"

