"""The wallet: one profile's identity, vault, journal, venue client, rails, board and deals.

Everything a face does is one call here. The wallet follows the offer board and every live
deal room, journals each signed record it sees (evidence outlives the venue's retention),
routes records to deals, and publishes events. It never acts on a deadline by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets as _secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tclk_tui.engine import arbitration as arb
from tclk_tui.engine.board import OffersBoard, statement_line
from tclk_tui.engine.crash import crashpoint
from tclk_tui.engine.deadlines import danger_level
from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.errors import EngineError, ProfileBusy
from tclk_tui.engine.events import (
    DeadlineWarning,
    EventBus,
    Notice,
    VenueStatus,
)
from tclk_tui.engine.gates import GateFact, GateRefused, GateRequest
from tclk_tui.engine.keeper import PaymentKeyPlan, SecretPlan, VaultKeeper
from tclk_tui.engine.outbox import Outbox
from tclk_tui.engine.views import (
    DealView,
    FieldProblem,
    HeldSecret,
    OfferDraft,
    VaultStatus,
)
from tclk_tui.protocol.builders import make_accept, make_offer
from tclk_tui.protocol.codec import encode_frame, try_decode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.locks import validate_deadlines, verify_secret
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.rails import normalize_rail_ids
from tclk_tui.protocol.transcript import (
    TranscriptRecord,
    VerifyResult,
    verify_transcript_record,
)
from tclk_tui.rails.base import SettlementRail
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rails.paper import PaperRail
from tclk_tui.store import SECRET_PLACEHOLDER
from tclk_tui.store.journal import Journal
from tclk_tui.store.profile_lock import ProfileLock, ProfileLocked
from tclk_tui.store.rows import RecordRow
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError
from tclk_tui.technocore.follow import (
    Backoff,
    EpochChange,
    RecordsEvent,
    Rejected,
    RingGap,
    WaitNotHeld,
)
from tclk_tui.technocore.identity import Identity
from tclk_tui.technocore.records import VenueRecord
from tclk_tui.vault.errors import VaultError
from tclk_tui.vault.seed import Vault, derive_bytes

IDENTITY_ENTRY = "identity-ed25519"
IDENTITY_DOMAIN = "tclk-tui identity ed25519 v1"
MIN_CLAIM_WINDOW_MS = 60_000
MIN_REFUND_GAP_MS = 60_000
TICK_S = 1.0
READ_LIMIT = 200


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class _Ctx:
    """The slice of the wallet a DealSession sees (engine.ports.DealContext)."""

    did: str
    events: EventBus
    publisher: Outbox
    secrets: VaultKeeper
    rails: dict[str, SettlementRail]
    now_ms: Callable[[], int]


class Wallet:
    def __init__(self, *, profile: str, venue_url: str, vault: Vault, journal: Journal,
                 identity: Identity, client: VenueClient, rails: dict[str, SettlementRail],
                 clock_ms: Callable[[], int]) -> None:
        self.profile = profile
        self.venue_url = venue_url
        self.vault = vault
        self.journal = journal
        self.identity = identity
        self.client = client
        self.rails = rails
        self._clock = clock_ms
        self.events = EventBus()
        self.venue_status = VenueStatus("connecting")
        self.board = OffersBoard(identity.did)
        self.keeper = VaultKeeper(vault)
        self.outbox = Outbox(journal, client, deal_row_id=self._deal_row_id,
                             secret_for=self.keeper.deal_secret, on_record=self._on_own_record)
        self._ctx = _Ctx(did=identity.did, events=self.events, publisher=self.outbox,
                         secrets=self.keeper, rails=rails, now_ms=self.now_ms)
        self._deals: dict[str, DealSession] = {}
        self._rows: dict[str, int] = {}
        self._row_facts: dict[str, tuple] = {}  # what each deal's journal row last said
        self._followers: dict[str, asyncio.Task[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._levels: dict[str, str] = {}
        # Our own offers journaled but not yet seen back on the board: line -> (id, role).
        self._pending_offers: dict[str, tuple[str, str]] = {}
        self._closed = False
        self._capabilities_read: set[str] = set()
        self._lock: ProfileLock | None = None

    def __repr__(self) -> str:
        return f"Wallet(profile={self.profile!r}, did={self.did!r}, venue={self.venue_url!r})"

    # -- opening and closing --------------------------------------------------------------------

    @classmethod
    async def open(cls, profile: str, *, venue_url: str, data_dir: Path, vault: Vault,
                   clock_ms: Callable[[], int] = wall_clock_ms,
                   rails: Mapping[str, SettlementRail] | None = None,
                   follow: bool = True) -> Wallet:
        profile_dir = Path(data_dir) / profile
        lock = take_profile_lock(profile_dir)  # before the journal: one owner per profile
        try:
            wallet = await cls._open_locked(profile, profile_dir, venue_url=venue_url,
                                            vault=vault, clock_ms=clock_ms, rails=rails)
        except BaseException:
            lock.release()
            raise
        wallet._lock = lock
        if follow:
            wallet.start_following()
        return wallet

    @classmethod
    async def _open_locked(cls, profile: str, profile_dir: Path, *, venue_url: str,
                           vault: Vault, clock_ms: Callable[[], int],
                           rails: Mapping[str, SettlementRail] | None) -> Wallet:
        journal = Journal(profile_dir / "journal.sqlite3", clock=clock_ms)
        known = {row.did for row in journal.identities()}
        try:
            if known and not vault.has_seed() and vault.backend.get(IDENTITY_ENTRY) is None:
                raise EngineError(
                    f"profile {profile} already has an identity ({sorted(known)[0]}) but this "
                    "vault holds none of its secrets: open the profile's own vault (see "
                    "`tclk-tui vault doctor`) or restore its master seed; nothing was created")
            vault.ensure_seed()
            identity = _load_identity(vault)
        except VaultError as exc:
            journal.close()
            raise EngineError(f"the vault cannot be used: {exc}") from None
        except EngineError:
            journal.close()
            raise
        if known and identity.did not in known:
            journal.close()
            raise EngineError(
                f"this vault's identity {identity.did} is not profile {profile}'s "
                f"({sorted(known)[0]}): wrong vault or wrong profile")
        if not known:
            journal.add_identity(identity.did, label=profile)
        client = VenueClient(venue_url, identity, nonces=journal.nonces)
        all_rails: dict[str, SettlementRail] = {
            "paper": PaperRail(client.notes(), clock=clock_ms),
            "memory": MemoryRail(clock=clock_ms),
        }
        all_rails.update(rails or {})
        wallet = cls(profile=profile, venue_url=venue_url, vault=vault, journal=journal,
                     identity=identity, client=client, rails=all_rails, clock_ms=clock_ms)
        try:
            wallet._restore()
            try:
                await wallet.sync()
                for note in await wallet.outbox.recover():
                    wallet.events.publish(Notice("info", note))
                await wallet._publish_missing_statements()
            except (VenueError, EngineError) as exc:
                wallet._status("offline", str(exc))
        except BaseException:
            await wallet.close()  # never leave the journal or the HTTP client open
            raise
        return wallet

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        tasks = [*self._followers.values(), *self._tasks]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.client.aclose()
        self.journal.close()
        if self._lock is not None:
            self._lock.release()  # last: the journal is closed before anyone else may open it

    async def __aenter__(self) -> Wallet:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def did(self) -> str:
        return self.identity.did

    def now_ms(self) -> int:
        return int(self._clock())

    # -- journal <-> deals --------------------------------------------------------------------

    def _deal_row_id(self, deal_id: str | None) -> int | None:
        return self._rows.get(deal_id or "")

    def _restore(self) -> None:
        """Rebuild deals from the journal: plans, records, and the folds they give."""
        restored: list[DealSession] = []
        for row in self.journal.list_deals():
            meta = row.terms
            try:
                offer_record = TranscriptRecord(**meta["offer_record"])
            except (KeyError, TypeError):
                continue
            self._rows[row.offer_id] = row.id
            self._install_plans(row.offer_id, meta)
            if offer_record.signature is None:  # posted (or not) just before a crash
                self._pending_offers[offer_record.line] = (row.offer_id, row.role)
                continue
            deal = DealSession(self._ctx, row.offer_id, row.role, offer_record)
            self._deals[row.offer_id] = deal
            restored.append(deal)
        # The board once (it routes every accept and board cancel), then each deal's room; the
        # journal row is written last so a settled deal never reads as merely accepted.
        board = [self._as_transcript(r) for r in self.journal.records(OFFER_ROOM)]
        self.board.ingest(board, now_ms=self.now_ms())
        self._route_board(board)
        for deal in restored:
            if deal.room:
                deal.ingest_room([self._as_transcript(r) for r in self.journal.records(deal.room)])
            self._sync_deal_row(deal)

    def _as_transcript(self, row) -> TranscriptRecord:
        """A journaled record as the venue stored it, its reveal secret (if any) put back."""
        record = TranscriptRecord(room=row.room, seq=row.seq, timestamp_ms=row.ts_ms,
                                  sender=row.sender, nonce=row.nonce, signature=row.sig,
                                  line=row.line)
        deal = self._deal_in_room(row.room) if SECRET_PLACEHOLDER in row.line else None
        if deal is None:
            return record
        for secret in (self.keeper.deal_secret(deal.deal_id),
                       self.keeper.revealed_secret(deal.deal_id)):
            if secret is not None:
                whole = dataclasses.replace(record,
                                            line=row.line.replace(SECRET_PLACEHOLDER, secret))
                if verify_transcript_record(whole).ok:
                    return whole
        return record  # cannot be put back: it reads as an unverifiable record, never a claim

    def _deal_in_room(self, room: str) -> DealSession | None:
        return next((d for d in self._deals.values() if d.room == room), None)

    def _install_plans(self, deal_id: str, meta: dict) -> None:
        if meta.get("secret_plan"):
            self.keeper.plan_secret(deal_id, SecretPlan(**meta["secret_plan"]))
        if meta.get("key_plan"):
            self.keeper.plan_payment_key(deal_id, PaymentKeyPlan(**meta["key_plan"]))

    def _journal_deal(self, offer_id: str, role: str, offer_record: TranscriptRecord,
                      secret_plan: SecretPlan | None, key_plan: PaymentKeyPlan | None) -> None:
        meta = {
            "offer_record": {
                "room": offer_record.room, "seq": offer_record.seq,
                "timestamp_ms": offer_record.timestamp_ms, "sender": offer_record.sender,
                "nonce": offer_record.nonce, "signature": offer_record.signature,
                "line": offer_record.line,
            },
            "secret_plan": secret_plan.to_dict() if secret_plan else None,
            "key_plan": key_plan.to_dict() if key_plan else None,
        }
        row = self.journal.add_deal(offer_id=offer_id, role=role, status="proposed", terms=meta)
        self._rows[offer_id] = row.id
        self._install_plans(offer_id, meta)

    def _journal_records(self, records: list[VenueRecord]) -> None:
        """One transaction for the batch: a whole ring arrives at start-up."""
        self.journal.add_records([
            RecordRow(room=r.room, generation=r.generation or 0, seq=r.seq,
                      ts_ms=r.timestamp_ms, sender=r.sender, nonce=r.nonce, sig=r.sig,
                      line=self._redacted(r.room, r.text), received_ms=0)
            for r in records])

    def _redacted(self, room: str, line: str) -> str:
        """The line to journal: a reveal's secret goes to the vault, never to SQLite.

        Published or not, a secret in the journal file outlives every deal; the journal keeps
        a placeholder and `_as_transcript` restores the exact signed line when reading back.
        """
        frame = try_decode_frame(line)
        if frame is None or frame["type"] != "reveal":
            return line
        secret = frame["secret"]
        deal = self._deal_in_room(room)
        if deal is not None and deal.state.statement and verify_secret(
                deal.offer["lock"], deal.state.statement, secret):
            self.keeper.remember_revealed(deal.deal_id, secret)
        return line.replace(secret, SECRET_PLACEHOLDER)

    # -- reading the venue ----------------------------------------------------------------------

    async def sync(self) -> None:
        """Read the board and every live deal room once, whole (export), and fold them in."""
        export = await self.client.export(OFFER_ROOM)
        for bad in export.malformed:
            self._board_reject(bad.reason, bad.seq, bad.raw)
        self._ingest(OFFER_ROOM, list(export.records), export.generation)
        for deal in list(self._deals.values()):
            if deal.room and not deal.state.terminal:
                room_export = await self.client.export(deal.room)
                self._ingest(deal.room, list(room_export.verified), room_export.generation)
        await self._check_locks()
        self._status("following" if self._followers else "connecting", "")

    def _ingest(self, room: str, records: list[VenueRecord], generation: int | None, *,
                complete: bool = True) -> None:
        """Journal, then fold in, records of one room in venue order.

        `complete` says nothing unread lies between the journal's cursor and these records, so
        the cursor may move past them; records at or below the cursor are journaled already.
        """
        signed = [r for r in records if r.verified]
        cursor = self.journal.cursor(room)
        done = cursor.seq if cursor is not None and cursor.generation == (generation or 0) else 0
        self._journal_records([r for r in signed if r.seq > done])
        if complete and signed and signed[-1].seq > done:
            self.journal.set_cursor(room, generation or 0, signed[-1].seq)
        transcript = [r.transcript for r in signed]
        if room == OFFER_ROOM:
            for record in transcript:
                pending = self._pending_offers.pop(record.line, None)
                if pending is not None and record.sender == self.did:
                    self._adopt_offer(pending[0], pending[1], record)
            # The board sees unverified records too, so it can count them by reason.
            changed = self.board.ingest(
                [r.transcript for r in records], now_ms=self.now_ms(),
                verdicts=[VerifyResult(r.verified, r.unverified_reason) for r in records])
            if changed.added or changed.updated or changed.rejected:
                self.events.publish(changed)
            self._route_board(transcript)
            if changed.added and self._following:
                self._look_up_capabilities()
        else:
            for deal in self._deals.values():
                if deal.room == room:
                    deal.ingest_room(transcript)
                    self._sync_deal_row(deal)

    def _board_reject(self, reason: str, seq: int | None, raw: object) -> None:
        """A board item the venue client could not even read as a record: count it too."""
        changed = self.board.reject(reason, key=(seq, str(raw)[:256]))
        if changed.rejected:
            self.events.publish(changed)

    def _route_board(self, transcript: list[TranscriptRecord]) -> None:
        for record in transcript:
            frame = try_decode_frame(record.line)
            if frame is None:
                continue
            if frame["type"] == "accept" and frame["ref"] in self._deals:
                deal = self._deals[frame["ref"]]
                if deal.ingest_board(record):
                    self._sync_deal_row(deal)
                    if not self._closed and self._following:
                        self._follow(deal.room)
            elif frame["type"] == "cancel" and frame["contract"] in self._deals:
                deal = self._deals[frame["contract"]]
                if deal.ingest_board(record):
                    self._sync_deal_row(deal)

    def _sync_deal_row(self, deal: DealSession) -> None:
        row_id = self._rows.get(deal.deal_id)
        facts = (deal.state.status, deal.state.contract, deal.room)
        if row_id is not None and self._row_facts.get(deal.deal_id) != facts:
            self.journal.update_deal(row_id, status=facts[0], contract_id=facts[1], room=facts[2])
            self._row_facts[deal.deal_id] = facts

    async def _on_own_record(self, record: VenueRecord) -> None:
        """Our own confirmed line: fold it in now rather than waiting for the follower, after
        whatever the venue ordered before it (a competing accept, the counterparty's cancel)."""
        earlier = await self._unread_before(record)
        self._ingest(record.room, [*(earlier or []), record], record.generation,
                     complete=earlier is not None)
        await self._check_locks()

    async def _unread_before(self, record: VenueRecord) -> list[VenueRecord] | None:
        """What the venue stored between our cursor and our own line; None if unreadable."""
        cursor = self.journal.cursor(record.room)
        generation = record.generation or 0
        since = cursor.seq if cursor is not None and cursor.generation == generation else 0
        if record.seq <= since + 1:
            return []
        try:
            view = await self.client.read(record.room, since=since, limit=READ_LIMIT)
            if view.first_seq is not None and view.first_seq > since + 1:  # more than a page
                export = await self.client.export(record.room)
                return [r for r in export.records if since < r.seq < record.seq]
        except VenueError as exc:
            self.events.publish(Notice("warning", f"could not read {record.room} before our "
                                       f"own line: {exc}; the follower will fill it in"))
            return None
        return [r for r in view.records if since < r.seq < record.seq]

    async def _check_locks(self) -> None:
        for deal in self._deals.values():
            state = deal.state
            if (deal.role == "payee" and state.status == "locked"
                    and (deal.lock_check is None or deal.lock_check.ref != state.rail_ref)):
                await deal.check_lock()
                deal._announce(False)

    # -- following --------------------------------------------------------------------------

    _following = False

    def start_following(self) -> None:
        self._following = True
        self._follow(OFFER_ROOM)
        for deal in self._deals.values():
            if deal.room and not deal.state.terminal:
                self._follow(deal.room)
        self._tasks.append(asyncio.create_task(self._tick()))
        self._look_up_capabilities()

    def _follow(self, room: str | None) -> None:
        if room is None or room in self._followers:
            return
        self._followers[room] = asyncio.create_task(self._follow_room(room))

    async def _follow_room(self, room: str) -> None:
        cursor = self.journal.cursor(room)
        since = cursor.seq if cursor else None
        generation = cursor.generation if cursor else None
        while not self._closed:
            try:
                follower = self.client.follow(room, since=since, generation=generation)
                async for event in follower:
                    await self._on_follow_event(room, event)
                    # Only after the event is folded in: a batch that failed is read again.
                    since, generation = follower.cursor, follower.generation
            except VenueError as exc:
                self._status("reconnecting", f"{room}: {exc}")
                await asyncio.sleep(2.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a follower must never die silently
                self.events.publish(Notice("error", f"following {room} failed: {exc}"))
                await asyncio.sleep(2.0)

    async def _on_follow_event(self, room: str, event) -> None:
        if isinstance(event, RecordsEvent):
            self._ingest(room, list(event.records), event.generation)
            await self._check_locks()
            if self.venue_status.state != "following":
                self._status("following", "")
        elif isinstance(event, RingGap):
            if event.lost > 0:
                self._status("gap-detected",
                             f"{room}: {event.lost} records dropped before they were read")
                self.events.publish(Notice("warning", f"ring gap in {room}: records "
                                           f"{event.expected}..{event.got - 1} not all read"))
        elif isinstance(event, EpochChange):
            self.events.publish(Notice("warning", f"{room} was reaped and recreated "
                                       f"(generation {event.old} -> {event.new})"))
        elif isinstance(event, WaitNotHeld):
            self._status("rate-limited", f"{room}: the venue did not hold the wait")
        elif isinstance(event, Backoff):
            self._status("reconnecting", f"{room}: {event.error}")
        elif isinstance(event, Rejected):
            if room == OFFER_ROOM:
                self._board_reject(event.reason, event.seq, event.raw)
            else:
                self.events.publish(Notice("warning", f"{room}: rejected record: {event.reason}"))

    def _status(self, state, detail: str) -> None:
        status = VenueStatus(state, detail)
        if status != self.venue_status:
            self.venue_status = status
            self.events.publish(status)

    async def _tick(self) -> None:
        while not self._closed:
            self.tick()
            await asyncio.sleep(TICK_S)

    def tick(self) -> None:
        """Expire offers and raise deadline warnings; the faces call nothing else per second."""
        now = self.now_ms()
        changed = self.board.refresh_status(now)
        if changed.updated:
            self.events.publish(changed)
        for deal in self._deals.values():
            d = deal.deadlines()
            if deal.state.terminal or deal.observer or d.last_safe_ms == 0:
                continue
            opened = deal.offer_record.timestamp_ms
            level = danger_level(now, d.last_safe_ms, d.last_safe_ms - opened)
            if self._levels.get(deal.deal_id) != level:
                self._levels[deal.deal_id] = level
                if level != "calm":
                    self.events.publish(DeadlineWarning(deal.deal_id, level, d.last_safe_what,
                                                        d.last_safe_ms - now))

    # -- offers -------------------------------------------------------------------------------

    def validate_offer_draft(self, draft: OfferDraft) -> list[FieldProblem]:
        problems = []
        if draft.role not in ("payer", "payee"):
            problems.append(FieldProblem("role", "payer or payee"))
        if not draft.amount.isascii() or not draft.amount.isdigit() or draft.amount.startswith("0"):
            problems.append(FieldProblem("amount", "a whole number of minimal units, no leading 0"))
        if not (1 <= len(draft.asset) <= 32) or not all(
                c.isascii() and (c.isalnum() or c in "_-") for c in draft.asset):
            problems.append(FieldProblem("asset", "1-32 letters, digits, _ or -"))
        if draft.lock not in ("hash", "point"):
            problems.append(FieldProblem("lock", "hash or point"))
        try:
            rails = normalize_rail_ids([r for r in draft.rails.split(",") if r.strip()] or [""])
        except TclkError as exc:
            problems.append(FieldProblem("rails", str(exc).removeprefix("tclk: ")))
        else:
            missing = [r for r in rails if r not in self.rails]
            if len(missing) == len(rails):
                problems.append(FieldProblem("rails", "none of these rails is set up in this "
                                             "wallet (available: " + ", ".join(self.rails) + ")"))
        for name in ("claim_in_s", "refund_gap_s", "expires_in_s"):
            value = getattr(draft, name)
            if not value.isascii() or not value.isdigit() or int(value) <= 0:
                problems.append(FieldProblem(name, "a positive number of seconds"))
        if not problems and int(draft.expires_in_s) >= int(draft.claim_in_s):
            problems.append(FieldProblem("expires_in_s", "the offer must expire before claimByMs"))
        if draft.job and ":" not in draft.job:
            problems.append(FieldProblem("job", "proto:id, e.g. a2a:task-42"))
        return problems

    async def post_offer(self, draft: OfferDraft) -> DealView:
        problems = self.validate_offer_draft(draft)
        if problems:
            raise EngineError("; ".join(f"{p.field}: {p.message}" for p in problems))
        now = self.now_ms()
        claim_by = now + int(draft.claim_in_s) * 1000
        nonce = _secrets.token_hex(8)
        key_plan = PaymentKeyPlan(offer_id=None, nonce=nonce) if draft.lock == "point" else None
        job = None
        if draft.job:
            proto, _, job_id = draft.job.partition(":")
            job = {"proto": proto.strip(), "id": job_id.strip()}
        try:
            offer = make_offer(
                from_=self.did, role=draft.role, amount=draft.amount, asset=draft.asset,
                lock=draft.lock, rails=[r for r in draft.rails.split(",") if r.strip()],
                claim_by_ms=claim_by, refund_after_ms=claim_by + int(draft.refund_gap_s) * 1000,
                expires_ms=now + int(draft.expires_in_s) * 1000, nonce=nonce, job=job,
                payment_key=self.keeper.payment_public_key(key_plan) if key_plan else None)
            line = encode_frame(offer)
        except TclkError as exc:
            raise EngineError(str(exc)) from None
        secret_plan = None
        if draft.role == "payee":
            secret_plan = SecretPlan(offer_id=offer["id"], nonce=nonce, lock=draft.lock)
            statement = self.keeper.mint(secret_plan)
            crashpoint("after-secret-derived")
        provisional = TranscriptRecord(room=OFFER_ROOM, seq=0, timestamp_ms=now,
                                       sender=self.did, nonce=None, signature=None, line=line)
        self._journal_deal(offer["id"], draft.role, provisional, secret_plan, key_plan)
        self._pending_offers[line] = (offer["id"], draft.role)
        await self.outbox.publish(OFFER_ROOM, line, deal_id=offer["id"])
        if secret_plan is not None:
            await self.outbox.publish(OFFER_ROOM, statement_line(offer["id"], statement),
                                      deal_id=offer["id"])
        return self._deals[offer["id"]].view()

    async def _publish_missing_statements(self) -> None:
        """Publish the statement line of an open payee offer of ours that a crash kept off the
        board (killed after the offer was journaled, before the statement line was): without
        it no payer can accept. The line is deterministic, so this never posts it twice."""
        queued = {item.text for item in self.journal.unfinished_outbox()}
        for deal_id, deal in list(self._deals.items()):
            row = self.board.get(deal_id)
            if (deal.role != "payee" or deal.offer["from"] != self.did or row is None
                    or row.status != "open" or self.board.published_statement(deal_id)):
                continue
            statement = self.keeper.statement_of(deal_id)
            if statement is None:
                continue
            line = statement_line(deal_id, statement)
            if line not in queued:
                await self.outbox.publish(OFFER_ROOM, line, deal_id=deal_id)
                self.events.publish(Notice("info", f"offer {deal_id[:10]}…: lock statement "
                                           "published after the restart", deal_id=deal_id))

    def _adopt_offer(self, offer_id: str, role: str, record: TranscriptRecord) -> None:
        row_id = self._rows[offer_id]
        row = self.journal.get_deal(row_id)
        meta = dict(row.terms)
        meta["offer_record"] = {"room": record.room, "seq": record.seq,
                                "timestamp_ms": record.timestamp_ms, "sender": record.sender,
                                "nonce": record.nonce, "signature": record.signature,
                                "line": record.line}
        self.journal.update_deal(row_id, terms=meta)
        if offer_id in self._deals:
            return
        self._deals[offer_id] = DealSession(self._ctx, offer_id, role, record)
        self.events.publish(Notice("info", f"offer {offer_id[:10]}… posted", deal_id=offer_id))

    async def accept_offer(self, offer_id: str, *, rail: str | None = None) -> DealView:
        row = self.board.get(offer_id)
        offer = self.board.offer_frame(offer_id)
        record = self.board.offer_record(offer_id)
        if row is None or offer is None or record is None:
            raise EngineError("no such offer on the board")
        if row.mine:
            raise EngineError("this is your own offer")
        if offer_id in self._deals:
            raise EngineError("you already took part in this offer")
        now = self.now_ms()
        if row.status != "open" or now >= offer["expiresMs"]:
            raise EngineError(f"the offer is {row.status if row.status != 'open' else 'expired'}")
        if not validate_deadlines(offer, now, MIN_CLAIM_WINDOW_MS, MIN_REFUND_GAP_MS):
            raise EngineError("the deadlines leave less than a minute to claim or to refund")
        usable = [r for r in offer["rails"] if r in self.rails]
        if not usable:
            raise EngineError("none of the offered rails is set up in this wallet")
        if rail is not None and rail not in usable:
            raise EngineError(f"rail {rail} is not offered or not set up here")
        role = "payee" if offer["role"] == "payer" else "payer"
        nonce = _secrets.token_hex(8)
        secret_plan = None
        key_plan = PaymentKeyPlan(offer_id=offer_id, nonce=nonce) if offer["lock"] == "point" \
            else None
        if role == "payee":
            secret_plan = SecretPlan(offer_id=offer_id, nonce=nonce, lock=offer["lock"])
            statement = self.keeper.mint(secret_plan)  # durably in the vault before publishing
            crashpoint("after-secret-derived")
        else:
            published = self.board.published_statement(offer_id)
            if published is None:
                raise EngineError("the payee has not published its lock statement yet")
            statement = published
        try:
            accept = make_accept(offer, from_=self.did, statement=statement, nonce=nonce,
                                 payment_key=self.keeper.payment_public_key(key_plan)
                                 if key_plan else None)
            line = encode_frame(accept)
        except TclkError as exc:
            raise EngineError(str(exc)) from None
        self._journal_deal(offer_id, role, record, secret_plan, key_plan)
        self._deals[offer_id] = DealSession(self._ctx, offer_id, role, record)
        await self.outbox.publish(OFFER_ROOM, line, deal_id=offer_id)
        return self._deals[offer_id].view()

    # -- deals --------------------------------------------------------------------------------

    def deals(self) -> list[DealView]:
        return [d.view() for d in sorted(self._deals.values(),
                                         key=lambda d: -d.offer_record.timestamp_ms)]

    def deal(self, deal_id: str) -> DealSession:
        try:
            return self._deals[deal_id]
        except KeyError:
            matches = [d for k, d in self._deals.items()
                       if k.startswith(deal_id) or (d.state.contract or "").startswith(deal_id)]
            if len(matches) == 1:
                return matches[0]
            raise EngineError(f"no deal {deal_id!r}" if not matches else
                              f"{deal_id!r} names more than one deal") from None

    async def _room_records(self, contract: str) -> list[TranscriptRecord]:
        try:
            room = deal_room(contract.strip())
        except TclkError as exc:
            raise arb.ArbitrationError(str(exc)) from None
        export = await self.client.export(room)
        return [r.transcript for r in export.verified]

    async def _post_vote_line(self, contract: str, line: str) -> None:
        await self.outbox.publish(deal_room(contract), line)

    @property
    def arbitration(self) -> arb.ArbitrationDesk:
        return arb.ArbitrationDesk(self._room_records, self._post_vote_line)

    # -- vault ------------------------------------------------------------------------------

    def vault_status(self) -> VaultStatus:
        try:
            healthy = self.vault.has_seed()
            detail = self.vault.describe()
        except VaultError as exc:
            return VaultStatus(backend=type(self.vault.backend).__name__, healthy=False,
                               detail=str(exc))
        return VaultStatus(backend=self.vault.backend.describe(), healthy=healthy, detail=detail)

    def held_secrets(self) -> list[HeldSecret]:
        held = [HeldSecret(name="master seed", deal_id="", kind="master", statement=None)]
        for deal_id, plan in self.keeper.held().items():
            deal = self._deals.get(deal_id)
            statement = deal.state.statement if deal and deal.state.statement else None
            held.append(HeldSecret(name=f"{plan.lock} secret of {deal_id[:12]}…",
                                   deal_id=deal_id,
                                   kind="preimage" if plan.lock == "hash" else "witness",
                                   statement=statement))
        return held

    def request_seed_backup(self) -> GateRequest:
        facts = (GateFact("what", None, "the master seed restores every deal secret"),
                 GateFact("where", None, "it is shown once, on this screen only"),
                 GateFact("fingerprint", None, self.vault.seed_fingerprint()))
        return GateRequest(action="seed-backup", deal_id="", contract=None, facts=facts,
                           confirm_code="backup", created_ms=self.now_ms(),
                           token=_secrets.token_hex(8))

    def confirm_seed_backup(self, request: GateRequest, typed_code: str = "") -> str:
        if request.action != "seed-backup":
            raise GateRefused("not a seed backup request")
        if typed_code.strip().lower() != "backup":
            raise GateRefused("type backup to show the seed")
        return self.vault.export_seed()

    async def restore_seed(self, text: str) -> str:
        try:
            return self.vault.restore_seed(text, replace=True)
        except VaultError as exc:
            raise EngineError(str(exc)) from None

    def request_secret_reveal(self, deal_id: str) -> GateRequest:
        deal = self.deal(deal_id)
        blockers = [] if self.keeper.deal_secret(deal.deal_id) else ["no secret held for it"]
        code = (deal.state.contract or deal.deal_id)[2:6]
        facts = (GateFact("deal", None, deal.deal_id[:18] + "…"),
                 GateFact("status", None, deal.state.status),
                 GateFact("risk", None if deal.state.status in ("claimed",) else False,
                          "anyone who sees it can claim before you" if deal.state.status ==
                          "locked" else "shown on this screen only"))
        return GateRequest(action="secret-reveal", deal_id=deal.deal_id,
                           contract=deal.state.contract, facts=facts,
                           blockers=tuple(blockers), confirm_code=code,
                           created_ms=self.now_ms(), token=_secrets.token_hex(8))

    def confirm_secret_reveal(self, request: GateRequest, typed_code: str) -> str:
        if request.action != "secret-reveal" or request.blockers:
            raise GateRefused("; ".join(request.blockers) or "not a secret reveal request")
        if typed_code.strip().lower() != request.confirm_code:
            raise GateRefused(f"type {request.confirm_code} to show the secret")
        secret = self.keeper.deal_secret(request.deal_id)
        if secret is None:
            raise GateRefused("no secret held for this deal")
        return secret

    # -- capability hints ---------------------------------------------------------------------

    def _look_up_capabilities(self) -> None:
        """Read the DID notes of senders not looked up yet, in the background, bounded."""
        fresh = [d for d in self.board.senders() if d not in self._capabilities_read]
        if not fresh or self._closed:
            return
        self._capabilities_read.update(fresh)
        self._tasks = [t for t in self._tasks if not t.done()]
        self._tasks.append(asyncio.create_task(self.refresh_capabilities(dids=fresh)))

    async def refresh_capabilities(self, limit: int = 50,
                                   dids: list[str] | None = None) -> None:
        """Read DID notes of board senders (a routing hint, never proof)."""
        for did in (dids if dids is not None else list(self.board.senders()))[:limit]:
            try:
                note = await self.client.read_did_note(did)
            except (VenueError, ValueError):
                continue
            rails = tuple(note.rails) if note is not None and note.rails else None
            changed = self.board.set_capability(did, rails)
            if changed.updated:
                self.events.publish(changed)

    async def advertise(self) -> None:
        """Publish this wallet's DID note with the rails it can settle on."""
        await self.client.publish_did_note(rails=sorted(self.rails))


def take_profile_lock(profile_dir: Path) -> ProfileLock:
    try:
        return ProfileLock.acquire(profile_dir)
    except ProfileLocked as exc:
        raise ProfileBusy(str(exc), exc.pid) from None


def _load_identity(vault: Vault) -> Identity:
    """The profile's Ed25519 identity: derived from the master seed, so the one seed backup
    restores the DID too, and cached in the vault like every derived secret."""
    backend = vault.backend
    seed = backend.get(IDENTITY_ENTRY)
    if seed is None:
        seed = derive_bytes(vault.master_seed(), IDENTITY_DOMAIN)
        backend.put(IDENTITY_ENTRY, seed)
    return Identity.from_seed(bytes(seed))


__all__ = ["EngineError", "ProfileBusy", "Wallet"]
