"""Following the venue: the offer board and every live deal room, journaled and routed.

Each signed record is journaled before it is folded in (evidence outlives the venue's
retention), then routed: board records to the board and to the deals they name, room records to
their deal. Gaps, epochs, rate limits and rejects become events and the venue status.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tclk_tui.engine.background import Background
from tclk_tui.engine.board.bulk import collector_paused
from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.board.read import read_ring
from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.deal.book import DealBook
from tclk_tui.engine.events import EventBus, Notice, VenueState, VenueStatus
from tclk_tui.engine.evidence import Evidence
from tclk_tui.engine.sync.decoded import DecodedLines
from tclk_tui.engine.sync.follow_policy import board_want, deal_room_want
from tclk_tui.engine.sync.read_scheduler import ReadScheduler, Want
from tclk_tui.engine.words import plural
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import TranscriptRecord, VerifyResult
from tclk_tui.store.journal import Journal
from tclk_tui.technocore.client import MAX_LIMIT, VenueClient
from tclk_tui.technocore.errors import RateLimited, VenueError
from tclk_tui.technocore.follow import (
    Backoff,
    EpochChange,
    FollowEvent,
    Idle,
    RecordsEvent,
    Rejected,
    RingGap,
    WaitNotHeld,
)
from tclk_tui.technocore.records import RoomView, VenueRecord, signature_key

READ_LIMIT = 200
_VERIFIED = VerifyResult(True, None)


def _may_name_a_deal(line: str) -> bool:
    """False only for a line that cannot decode to an accept or a cancel: a frame's `type`
    is spelled out in its line unless a JSON escape (a backslash) hides it. Most of a ring is
    offers, which routing then skips without decoding."""
    return "accept" in line or "cancel" in line or "\\" in line


class RoomSync:
    def __init__(self, *, did: str, client: VenueClient, journal: Journal, board: OffersBoard,
                 book: DealBook, evidence: Evidence, events: EventBus,
                 background: Background, now_ms: Callable[[], int],
                 on_new_senders: Callable[[], None], reads: ReadScheduler) -> None:
        self.did = did
        self.client = client
        self.journal = journal
        self.board = board
        self.book = book
        self.evidence = evidence
        self.events = events
        self.background = background
        self.now_ms = now_ms
        self._on_new_senders = on_new_senders
        self.status = VenueStatus("connecting")
        self.following = False
        self.reads = reads
        self._room_deals: dict[str, DealSession] = {}
        # Board records the journal replay brought in (and whether each verified), so an
        # export of the same ring, when the read after the cursor cannot do, does not verify
        # them again; emptied by the first sync.
        self._replayed: list[tuple[TranscriptRecord, VerifyResult]] = []
        # Set once the venue was read (or could not be): our own lines are folded in only
        # after the board they join (see `on_own_record`). Reads never overlap.
        self.first_read = asyncio.Event()
        self._reading = asyncio.Lock()

    # -- the journal, at start-up -----------------------------------------------------------

    def replay_journal(self, restored: list[DealSession]) -> None:
        """Fold the journaled records into the board and the restored deals.

        The board once (it routes every accept and board cancel), then each deal's room; the
        journal row is written last so a settled deal never reads as merely accepted. Board
        records the journal vouches for are neither verified nor validated a second time (see
        `Evidence.replay`): a restart shows the board it closed with for the cost of reading
        the journal, not of checking 20,000 signatures and offers again.
        """
        decoded = DecodedLines()
        with collector_paused():
            board, verdicts = self.evidence.replay(OFFER_ROOM, decoded)
            self.board.ingest(board, now_ms=self.now_ms(), verdicts=verdicts, decoded=decoded)
            self._replayed = list(zip(board, verdicts, strict=True))
            self.route_board(board, decoded)
        for deal in restored:
            if deal.room:
                deal.ingest_room(self.evidence.records(deal.room))
            self.book.sync_row(deal)

    # -- reading the venue ----------------------------------------------------------------------

    async def sync(self) -> None:
        """Read the board and every live deal room once, and fold them in.

        The board is read after the journal's cursor when the venue still holds everything
        past it in one page; otherwise (a first open, more than a page, a gap, a recreated
        room) it is exported whole, and the records the journal already holds are not
        verified again.
        """
        try:
            await self.sync_board()
            for deal in self.book:
                if deal.room and deal.room_live():
                    room_export = await self.client.export(deal.room)
                    self.ingest(deal.room, list(room_export.verified), room_export.generation)
            await self.check_locks()
            self.set_status("following" if self.following else "connecting", "")
        finally:
            self.first_read.set()

    async def sync_board(self) -> None:
        """Read the board once, after the journal's cursor or whole (see `sync`); never two
        reads at once."""
        async with self._reading:
            await self._sync_board()

    async def _sync_board(self) -> None:
        replayed, self._replayed = self._replayed, []
        window = await self._board_after_cursor()
        if window is not None:
            for bad in window.malformed:
                self.board_reject(bad.reason, bad.seq, bad.raw)
            self.ingest(OFFER_ROOM, list(window.records), window.generation)
        else:
            # Lines the board has not seen yet are decoded while the export's signatures
            # are checked; the records the journal replay brought in need neither.
            decoded = DecodedLines()
            with collector_paused():
                known = {signature_key(record) for record, verdict in replayed if verdict.ok}
                await read_ring(self, known, decoded)

    async def _board_after_cursor(self) -> RoomView | None:
        """The board records after the journal's cursor, or None when only the export can
        say what the ring holds: nothing journaled yet, the room recreated (another
        generation, or a last seq behind the cursor), or a first seq past the cursor + 1
        (more than a page arrived, or the ring dropped records unread)."""
        cursor = self.journal.cursors.get(OFFER_ROOM)
        if cursor is None:
            return None
        view = await self.client.read(OFFER_ROOM, since=cursor.seq, limit=MAX_LIMIT)
        if ((view.generation or 0) != cursor.generation or view.last_seq < cursor.seq
                or (view.first_seq is not None and view.first_seq > cursor.seq + 1)):
            return None
        return view

    def ingest(self, room: str, records: list[VenueRecord], generation: int | None, *,
               complete: bool = True, decoded: DecodedLines | None = None) -> None:
        """Journal, then fold in, records of one room in venue order.

        `complete` says nothing unread lies between the journal's cursor and these records, so
        the cursor may move past them; records at or below the cursor are journaled already.
        `decoded` may hold lines of these records decoded already.
        """
        if decoded is None:  # each line decoded once for the journal, board and routing
            decoded = DecodedLines()
        signed = [r for r in records if r.verified]
        done = self.journaled(room, generation)
        self.evidence.add([r for r in signed if r.seq > done], decoded)
        if complete and signed and signed[-1].seq > done:
            self.journal.cursors.set(room, generation or 0, signed[-1].seq)
        self.fold_in(room, records, decoded)

    def journaled(self, room: str, generation: int | None) -> int:
        """The seq up to which the journal holds this generation of the room (0: none)."""
        cursor = self.journal.cursors.get(room)
        return cursor.seq if cursor is not None and cursor.generation == (generation or 0) else 0

    def fold_in(self, room: str, records: list[VenueRecord], decoded: DecodedLines) -> None:
        """`ingest` after the journal: records of one room, in venue order, into the board
        (and the deals it names) or the room's deals."""
        everything = [r.transcript for r in records]
        transcript = [t for r, t in zip(records, everything, strict=True) if r.verified]
        if room == OFFER_ROOM:
            for record in transcript:
                pending = self.book.pending_offers.pop(record.line, None)
                if pending is not None and record.sender == self.did:
                    self.book.adopt_offer(pending[0], pending[1], record)
            # The board sees unverified records too, so it can count them by reason.
            changed = self.board.ingest(
                everything, now_ms=self.now_ms(),
                verdicts=[_VERIFIED if r.verified else VerifyResult(False, r.unverified_reason)
                          for r in records],
                decoded=decoded)
            if changed.added or changed.updated or changed.rejected:
                self.events.publish(changed)
            for record in transcript:
                if record.sender == self.did and self.book.recover(record, self.board):
                    self.events.publish(changed)
            self.route_board(transcript, decoded)
            if changed.added and self.following:
                self._on_new_senders()
        else:
            for deal in self.book:
                if deal.room == room:
                    deal.ingest_room(transcript, verified=True)  # `signed`: checked on reading
                    self.book.sync_row(deal)
            self.reads.kick()  # a deal's state may have changed how eagerly it is read

    def board_reject(self, reason: str, seq: int | None, raw: object) -> None:
        """A board item the venue client could not even read as a record: count it too."""
        changed = self.board.reject(reason, key=(seq, str(raw)[:256]))
        if changed.rejected:
            self.events.publish(changed)

    def route_board(self, transcript: list[TranscriptRecord],
                    decoded: DecodedLines | None = None) -> None:
        """Hand each accept and board cancel to the deal it names."""
        lines = decoded if decoded is not None else DecodedLines()
        for record in transcript:
            if not _may_name_a_deal(record.line):
                continue
            frame = lines.frame(record.line)
            if frame is None:
                continue
            if frame["type"] == "accept":
                deal = self.book.get(frame["ref"])
                if deal is not None and deal.ingest_board(record):
                    self.book.sync_row(deal)
                    if self.following:
                        self.follow(deal.room)
            elif frame["type"] == "cancel":
                deal = self.book.get(frame["contract"])
                if deal is not None and deal.ingest_board(record):
                    self.book.sync_row(deal)

    async def on_own_record(self, record: VenueRecord) -> None:
        """Our own confirmed line: fold it in now rather than waiting for the follower, after
        whatever the venue ordered before it (a competing accept, the counterparty's cancel),
        and after the venue's first read (the board a line joins is folded in venue order)."""
        await self.first_read.wait()
        earlier = await self._unread_before(record)
        self.ingest(record.room, [*(earlier or []), record], record.generation,
                    complete=earlier is not None)
        self.reads.touch(record.room)  # the counterparty's answer may come at once
        await self.check_locks()

    async def _unread_before(self, record: VenueRecord) -> list[VenueRecord] | None:
        """What the venue stored between our cursor and our own line; None if unreadable."""
        cursor = self.journal.cursors.get(record.room)
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

    async def check_locks(self) -> None:
        """As payee, check each new lock on its rail before anyone is asked to reveal."""
        for deal in self.book:
            state = deal.state
            if (deal.role == "payee" and state.status == "locked"
                    and (deal.lock_check is None or deal.lock_check.ref != state.rail_ref)):
                await deal.check_lock()
                deal._announce(False)
            elif deal.has_refused_lock() and deal.rail_check is None:
                # A lock frame the fold refused (a cancel raced it, a late stamp): the rail
                # may hold the funds anyway, and only the rail can say.
                await deal.check_rail()
                deal._announce(False)

    # -- following --------------------------------------------------------------------------

    def start_following(self) -> None:
        """Hand the board and every live deal room to the read scheduler (a settled deal
        whose receipts are in, or quiet since, is not followed again)."""
        self.following = True
        if self.status.state == "connecting":  # the venue answered the first reads
            self.set_status("following", "")
        self.follow(OFFER_ROOM)
        for deal in self.book:
            self.follow(deal.room)

    def follow(self, room: str | None) -> None:
        if room is None or self.background.closed or self.reads.following(room):
            return
        cursor = self.journal.cursors.get(room)
        if room == OFFER_ROOM:
            def want(quiet_s: float) -> Want:
                return board_want(self.book, self.did, self.now_ms())
        else:
            def want(quiet_s: float) -> Want:
                deal = self._deal_of(room)
                if deal is None:
                    return Want.DROP
                return deal_room_want(deal, self.now_ms(), quiet_s)

        async def handler(events: list[FollowEvent]) -> None:
            for event in events:
                await self._on_follow_event(room, event)

        self.reads.add(room, handler=handler, want=want,
                       since=cursor.seq if cursor else None,
                       generation=cursor.generation if cursor else None)

    def _deal_of(self, room: str) -> DealSession | None:
        deal = self._room_deals.get(room)
        if deal is None or deal.room != room:
            self._room_deals = {d.room: d for d in self.book if d.room}
            deal = self._room_deals.get(room)
        return deal

    async def _on_follow_event(self, room: str, event: FollowEvent) -> None:
        if isinstance(event, RecordsEvent):
            self.ingest(room, list(event.records), event.generation)
            await self.check_locks()
            if self.status.state != "following":
                self.set_status("following", "")
        elif isinstance(event, RingGap):
            if event.lost > 0:
                self.set_status("gap-detected",
                                f"{room}: {plural(event.lost, 'record')} dropped before being "
                                "read")
                self.events.publish(Notice("warning", f"ring gap in {room}: records "
                                           f"{event.expected}..{event.got - 1} not all read"))
        elif isinstance(event, EpochChange):
            self.events.publish(Notice("warning", f"{room} was reaped and recreated "
                                       f"(generation {event.old} -> {event.new})"))
        elif isinstance(event, WaitNotHeld):
            # Not a limit: the venue had no free long-poll slot and answered at once, so the
            # follower asks again after a pause; updates arrive up to that pause late.
            self.set_status("polling", f"{room}: the venue had no free waiting slot and "
                            f"answered at once; asking again every {event.retry_in_s:g} s "
                            "(updates may arrive that much later; nothing is limited)")
        elif isinstance(event, Idle):
            # A long-poll that really waited and came back empty: the venue is up, the room
            # quiet. Without this a quiet room kept an old warning up for minutes.
            if self.status.state != "following":
                self.set_status("following", "")
        elif isinstance(event, Backoff):
            if isinstance(event.error, RateLimited):
                self.set_status("rate-limited", f"{room}: the venue asked for a pause of "
                                f"{event.delay_s:g} s ({event.error})")
            else:
                self.set_status("reconnecting", f"{room}: {event.error}")
        elif isinstance(event, Rejected):
            if room == OFFER_ROOM:
                self.board_reject(event.reason, event.seq, event.raw)
            else:
                self.events.publish(Notice("warning", f"{room}: rejected record: {event.reason}"))

    def follow_failed(self, room: str, exc: Exception) -> None:
        """A read the venue refused outright, or a batch that could not be folded in (it is
        read again): never silent."""
        if isinstance(exc, VenueError):
            self.set_status("reconnecting", f"{room}: {exc}")
        else:
            self.events.publish(Notice("error", f"following {room} failed: {exc}"))

    def set_status(self, state: VenueState, detail: str) -> None:
        status = VenueStatus(state, detail)
        if status != self.status:
            self.status = status
            self.events.publish(status)
