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

import contextlib
import re
import sys
from collections.abc import Container, Iterator
from typing import TYPE_CHECKING

from tclk_tui.engine.decoded import DecodedLines
from tclk_tui.engine.events import BoardChanged
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import VerifyResult
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
    from tclk_tui.engine.room_sync import RoomSync

# The newest records checked first and shown at once: several screens of offers.
PREVIEW_RECORDS = 1024
# Records folded in per batch: one journal transaction each (the journal waits for the disk
# at every commit), small enough that the screen follows the pass.
BATCH_RECORDS = 1024
# While the pass runs, a thread waiting for the interpreter gets it within this long. The
# default (5 ms) would hold a verify thread at every turn for as long as the batch being
# folded in on the event loop's thread runs Python, and the checks would wait for it.
SWITCH_INTERVAL_S = 0.0005


async def read_ring(rooms: RoomSync, known: Container[SignatureKey],
                    decoded: DecodedLines) -> None:
    """Export `tclk-offers` and fold it in, the records in `known` (verified by the journal's
    replay) not checked again. `decoded` takes each line's frame as it is checked."""
    body, generation = await rooms.client.export_body(OFFER_ROOM)

    def decode(record: object) -> object:
        return signature_key(record) in known or decoded.decode(record.line)  # type: ignore

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
    try:
        with _quick_turns():
            checks.start(newest)
            if newest:
                outcomes = [await checks.outcomes(index) for index in newest]
                records = _exact_preview(body, checks.line_offset(newest[0]), outcomes)
                if records:
                    shown = board.show_preview([r.transcript for r in records],
                                               [_verdict(r) for r in records], decoded)
                    rooms.events.publish(BoardChanged(added=shown.added, checking=left))
            order = InOrder(None)
            _reject(rooms, checks.torn)
            batch: list[VenueRecord] = []
            for index in range(count):
                before = (len(order.not_json), len(order.malformed))
                batch += order.take(await checks.outcomes(index))
                _reject(rooms, order.not_json[before[0]:])
                _reject(rooms, order.malformed[before[1]:])
                left -= checks.chunk_lines(index)
                if len(batch) >= BATCH_RECORDS or index == count - 1:
                    rooms.ingest(OFFER_ROOM, batch, generation, decoded=decoded)
                    batch = []
                    if left:
                        rooms.events.publish(BoardChanged(checking=left))
    finally:
        checks.close()
        board.end_preview()
    rooms.events.publish(BoardChanged(checking=0))


_SEQ_RE = re.compile(rb'"seq"\s*:\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)')
_HEX32_RE = re.compile(rb"0x[0-9a-f]{64}")
_ESCAPE = b"\\u"


def _exact_preview(body: bytes, start: int, outcomes: list[list[Outcome]]
                   ) -> list[VenueRecord]:
    """The newest records (the lines from byte `start` on) to show as a preview, or none
    when the preview could show a row the board will not have.

    An offer's row depends on its own record and on later ones only (an accept or a cancel
    follows its offer), with two exceptions the older lines decide: an earlier copy of the
    same offer (the board keeps the first), and an older seq at or above a newer record's
    (the board then refuses the newer one as out of order). Both are looked for in the older
    bytes, generously: every seq and every 32-byte hex word they spell, and, for a line with
    a `\\u` escape (which can spell them otherwise), its record read whole and its frame
    decoded. A preview with a newer record under that seq is not shown at all; an offer
    whose id an older line names is left to the pass in venue order."""
    older = memoryview(body)[:start]
    named = set(_HEX32_RE.findall(older))
    top = max((float(seq) for seq in _SEQ_RE.findall(older)), default=-1.0)
    at = body.find(_ESCAPE, 0, start)
    while at != -1:  # the older lines holding an escape, each read in full
        line_start = body.rfind(b"\n", 0, at) + 1
        line_end = body.find(b"\n", at, start)
        line_end = start if line_end == -1 else line_end
        seq, ids = _line_facts(body[line_start:line_end])
        top = max(top, seq)
        named |= ids
        at = body.find(_ESCAPE, line_end, start)
    order = InOrder(None)
    for chunk in outcomes:
        for outcome in chunk:
            if not isinstance(outcome, Malformed) and isinstance(outcome[1], VenueRecord) \
                    and outcome[1].seq <= top:
                return []
        order.take(chunk)
    kept = []
    for record in order.records:
        frame = try_decode_frame(record.text) if record.verified else None
        if frame is not None and frame["type"] == "offer" and frame["id"].encode() in named:
            continue
        kept.append(record)
    return kept


def _line_facts(line: bytes) -> tuple[float, set[bytes]]:
    """The seq and the hex words an export line holds, read as the pass reads it."""
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
    ids = set(_HEX32_RE.findall(text.encode("utf-8", "surrogatepass")))
    frame = try_decode_frame(text)
    if frame is not None and isinstance(frame.get("id"), str):
        ids.add(frame["id"].encode("utf-8", "surrogatepass"))
    return top, ids


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
