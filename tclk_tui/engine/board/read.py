"""Reading a whole offers ring (a first open, or a board the journal cannot vouch for), so the
board shows verified offers while the rest of the ring is still being checked.

Every signature of a fresh ring must be checked before its offer is shown, and 20,000 of them
take libsodium most of a second on two cores. So the export's lines are checked on the verify
threads chunk by chunk, newest chunks first; their offers are shown at once as a preview
(`OffersBoard.show_preview`: rows whose records verified, each with every later record's
effect on it). Meanwhile the ring is folded in venue order, batch by batch as the chunks
before it are done: journaled, read into the board, accepts routed to their deals, exactly as
one reading of the whole export would, and each batch published while the next is checked.
Each `BoardChanged` says how many records are still being checked; nothing unverified is
ever shown as an offer.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tclk_tui.engine.events import BoardChanged
from tclk_tui.engine.sync.decoded import DecodedLines
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import TranscriptRecord, VerifyResult
from tclk_tui.store.rows import RecordRow
from tclk_tui.technocore.records import (
    CHUNK,
    ExportChecks,
    InOrder,
    Malformed,
    Outcome,
    SignatureKey,
    VenueRecord,
    loads_strict,
    parse_export,
    signature_key,
)
from tclk_tui.technocore.verify import threaded

if TYPE_CHECKING:
    from tclk_tui.engine.sync.room_sync import RoomSync

# The newest records checked first and shown at once: several screens of offers.
PREVIEW_RECORDS = 1024
# Records folded in per batch: small enough that the screen follows the pass.
BATCH_RECORDS = 1024
# Records journaled per transaction: the journal waits for the disk at every commit.
JOURNAL_RECORDS = 4096
# While the pass runs, a thread waiting for the interpreter gets it within this long. The
# default (5 ms) would hold a verify thread at every turn for as long as the batch being
# folded in on the event loop's thread runs Python, and the checks would wait for it.
SWITCH_INTERVAL_S = 0.0005


async def read_ring(rooms: RoomSync, known: Collection[SignatureKey],
                    decoded: DecodedLines) -> None:
    """Export `tclk-offers` and fold it in, the records in `known` (verified by the journal's
    replay) not checked again. `decoded` takes each line's frame as it is checked."""
    body, generation = await rooms.client.export_body(OFFER_ROOM)

    def decode(record: TranscriptRecord) -> object:
        return (bool(known) and signature_key(record) in known) or decoded.decode(record.line)

    checks = ExportChecks(OFFER_ROOM, body, generation, verified_before=known,
                          while_verifying=decode)
    if not threaded(checks.lines):  # a small ring: one reading on this thread
        export = parse_export(OFFER_ROOM, body, generation, verified_before=known,
                              while_verifying=decode)
        _reject(rooms, export.malformed)
        rooms.ingest(OFFER_ROOM, list(export.records), generation, decoded=decoded)
        return
    count = checks.chunks
    newest = list(range(count - min(-(-PREVIEW_RECORDS // CHUNK), count // 2), count))
    board = rooms.board
    left = checks.lines
    journal = _Journaling(rooms, generation)
    try:
        with _quick_turns():
            checks.start(newest)
            spelled = _spelled(body)  # while the first chunks are checked
            if newest:
                outcomes = [await checks.outcomes(index) for index in newest]
                records = _exact_preview(body, checks.line_offset(newest[0]), outcomes,
                                         spelled, decoded)
                if records:
                    shown = board.show_preview([r.transcript for r in records],
                                               [_verdict(r) for r in records], decoded)
                    rooms.events.publish(BoardChanged(added=shown.added, checking=left))
            held: dict[str, int] = {}  # offers not shown yet: where the last line naming
            order = InOrder(None)      # each starts
            _reject(rooms, checks.torn)
            batch: list[VenueRecord] = []
            for index in range(count):
                before = (len(order.not_json), len(order.malformed))
                batch += order.take(await checks.outcomes(index))
                _reject(rooms, order.not_json[before[0]:])
                _reject(rooms, order.malformed[before[1]:])
                left -= checks.chunk_lines(index)
                if len(batch) >= BATCH_RECORDS or index == count - 1:
                    read = checks.line_offset(index + 1) if index + 1 < count else len(body)
                    later = _named_later(batch, decoded, spelled, read)
                    board.hold(later)
                    held.update(later)
                    await journal.add(batch, decoded)
                    rooms.fold_in(OFFER_ROOM, batch, decoded)
                    batch = []
                    settled = [oid for oid, at in held.items() if at < read]
                    for oid in settled:
                        del held[oid]
                    released = board.release(settled)
                    rooms.events.publish(BoardChanged(added=released.added, checking=left))
            await journal.done()
    finally:
        await journal.abandon()
        checks.close()
        board.end_preview()
        if left:  # the pass stopped short: nothing is being checked any more
            rooms.events.publish(BoardChanged(checking=0))


_SEQ_RE = re.compile(rb'"seq"\s*:\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)')
_HEX32_RE = re.compile(rb"0x[0-9a-f]{64}")
_HEX32_TEXT = re.compile(r"0x[0-9a-f]{64}")
_ESCAPE = b"\\u"


@dataclass
class _Spelled:
    """Where the export spells each 32-byte hex word (an offer id in its offer, in the `ref`
    of an accept, the `contract` of a board cancel, the text of a statement line): the start
    of the first and of the last line holding it. Found generously, in the bytes: a line with
    a `\\u` escape, which can spell a word otherwise, is read whole and its frame decoded
    (`escaped`: its start, its seq, its words)."""

    first: dict[bytes, int] = field(default_factory=dict)
    last: dict[bytes, int] = field(default_factory=dict)
    escaped: list[tuple[int, float, set[bytes]]] = field(default_factory=list)


def _spelled(body: bytes) -> _Spelled:
    spelled = _Spelled()
    first, last = spelled.first, spelled.last
    for match in _HEX32_RE.finditer(body):
        word, at = match.group(), match.start()
        first.setdefault(word, at)
        last[word] = at
    at = body.find(_ESCAPE)
    while at != -1:
        line_start = body.rfind(b"\n", 0, at) + 1
        line_end = body.find(b"\n", at)
        line_end = len(body) if line_end == -1 else line_end
        seq, words = _line_facts(body[line_start:line_end])
        spelled.escaped.append((line_start, seq, words))
        for word in words:
            first[word] = min(first.get(word, line_start), line_start)
            last[word] = max(last.get(word, line_start), line_start)
        at = body.find(_ESCAPE, line_end)
    return spelled


def _line_facts(line: bytes) -> tuple[float, set[bytes]]:
    """The seq and the hex words of an export line, read as the pass reads it."""
    try:
        message = loads_strict(line)
    except ValueError:
        return -1.0, set()
    if not isinstance(message, dict):
        return -1.0, set()
    seq = message.get("seq")
    top = float(seq) if isinstance(seq, int | float) and not isinstance(seq, bool) else -1.0
    text = message.get("text")
    if not isinstance(text, str):
        return top, set()
    words = set(_HEX32_RE.findall(text.encode("utf-8", "surrogatepass")))
    frame = try_decode_frame(text)
    for value in (frame or {}).values():
        if isinstance(value, str) and _HEX32_TEXT.fullmatch(value):
            words.add(value.encode("ascii"))
    return top, words


def _exact_preview(body: bytes, start: int, outcomes: list[list[Outcome]],
                   spelled: _Spelled, decoded: DecodedLines) -> list[VenueRecord]:
    """The newest records (the lines from byte `start` on) to show as a preview, or none
    when the preview could show a row the board will not have.

    An offer's row depends on its own record and on later ones only, with two exceptions
    the older lines decide: an earlier copy of the same offer (the board keeps the first),
    and an older seq at or above a newer record's (the board then refuses the newer one as
    out of order). A preview with a newer record under any seq the older bytes spell is not
    shown at all; an offer whose id an older line spells is left to the pass in venue order."""
    older = memoryview(body)[:start]
    seqs = [float(seq) for seq in _SEQ_RE.findall(older)]
    seqs += [seq for at, seq, _words in spelled.escaped if at < start]
    top = max(seqs, default=-1.0)
    order = InOrder(None)
    for chunk in outcomes:
        for outcome in chunk:
            if not isinstance(outcome, Malformed) and isinstance(outcome[1], VenueRecord) \
                    and outcome[1].seq <= top:
                return []
        order.take(chunk)
    kept = []
    for record in order.records:
        frame = decoded.frame(record.text) if record.verified else None
        if frame is not None and frame["type"] == "offer" \
                and spelled.first.get(frame["id"].encode(), start) < start:
            continue
        kept.append(record)
    return kept


def _named_later(batch: list[VenueRecord], decoded: DecodedLines, spelled: _Spelled,
                 read: int) -> dict[str, int]:
    """The batch's offers that a line past byte `read` spells (an accept or a cancel may
    still change them), with where the last such line starts."""
    later = {}
    for record in batch:
        if record.verified and '"offer"' in record.text:
            frame = decoded.frame(record.text)
            if frame is not None and frame["type"] == "offer":
                at = spelled.last.get(frame["id"].encode(), -1)
                if at >= read:
                    later[frame["id"]] = at
    return later


class _Journaling:
    """The pass's records journaled in venue order, a few large batches each written on a
    thread of its own (SQLite does its work, and waits for the disk at each commit, without
    holding the interpreter) while the pass goes on; the journal's cursor moves past a batch
    once its rows are written. A board row may show before its record is journaled: nothing
    is lost by a crash then, the restart reads the ring again from the cursor."""

    def __init__(self, rooms: RoomSync, generation: int | None) -> None:
        self._rooms = rooms
        self._generation = generation or 0
        self._done = rooms.journaled(OFFER_ROOM, generation)
        self._rows: list[RecordRow] = []
        self._last = 0  # the seq of the last record in `_rows`
        self._writing: asyncio.Future[Any] | None = None
        self._through = 0

    async def add(self, batch: list[VenueRecord], decoded: DecodedLines) -> None:
        """Take `batch`'s rows (made here); write them once enough wait and no write runs."""
        signed = [r for r in batch if r.verified and r.seq > self._done]
        if signed:
            self._rows += self._rooms.evidence.rows(signed, decoded)
            self._last = signed[-1].seq
        if len(self._rows) >= JOURNAL_RECORDS and (self._writing is None
                                                   or self._writing.done()):
            await self._settle()
            self._start()

    async def done(self) -> None:
        """Write what is left and wait until everything is written."""
        await self._settle()
        self._start()
        await self._settle()

    def _start(self) -> None:
        if self._rows:
            rows, self._rows = self._rows, []
            self._writing = asyncio.ensure_future(
                asyncio.to_thread(self._rooms.journal.records.add_many, rows))
            self._through = self._last

    async def _settle(self) -> None:
        """Wait for the batch being written, then move the cursor past it."""
        writing, self._writing = self._writing, None
        if writing is not None:
            await writing
            self._rooms.journal.cursors.set(OFFER_ROOM, self._generation, self._through)

    async def abandon(self) -> None:
        """The pass stopped: let the batch being written finish (the journal is not closed
        under it), the cursor left where it was."""
        writing, self._writing = self._writing, None
        if writing is not None:
            with contextlib.suppress(Exception):
                await writing


def _verdict(record: VenueRecord) -> VerifyResult:
    return VerifyResult(record.verified, record.unverified_reason)


def _reject(rooms: RoomSync, malformed: list[Malformed] | tuple[Malformed, ...]) -> None:
    for bad in malformed:
        rooms.board_reject(bad.reason, bad.seq, bad.raw)


@contextlib.contextmanager
def _quick_turns() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, SWITCH_INTERVAL_S))
    try:
        yield
    finally:
        sys.setswitchinterval(before)
