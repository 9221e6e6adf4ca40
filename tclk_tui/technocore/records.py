"""Venue records: parsing what a room read or an export returns, keeping every record whole.

A record is room, seq, ts, from, text and, when signed, nonce and sig. The text is kept exactly as
stored (a signature covers those bytes), the nonce as its exact decimal digits (up to 19, past
2^53), and the signature is re-verified here from the record alone, so the venue's word that a
write was signed is never taken on trust. A record this client cannot accept is reported with a
reason beside the good ones; one bad record never hides the rest of a reply.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Container, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field

from tclk_tui.protocol.didkey import DID_RE
from tclk_tui.protocol.jsondepth import MAX_JSON_DEPTH, too_deep
from tclk_tui.protocol.transcript import (
    TRANSCRIPT_ROOM_RE,
    TranscriptRecord,
    VerifyResult,
    parse_timestamp_ms,
    transcript_record,
    verify_transcript_record,
)
from tclk_tui.technocore.errors import MalformedResponse
from tclk_tui.technocore.identity import MAX_NONCE, MAX_TEXT_CHARS, is_name
from tclk_tui.technocore.sweep import survives_sweep
from tclk_tui.technocore.verify import VERIFY_THREADS, Opener, in_threads

MAX_RAW_REPR = 200


class RecordError(ValueError):
    """One record was refused; the message is the reason."""


def _reject_constant(name: str) -> object:
    raise ValueError(f"JSON constant {name} is not allowed")


# Built once: `json.loads(..., parse_constant=...)` builds a new decoder on every call, and an
# export is parsed one line at a time.
_STRICT_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads_strict(data: bytes | str) -> object:
    """json.loads that refuses NaN/Infinity and survives hostile nesting or giant numbers."""
    try:
        if too_deep(data):
            raise RecursionError
        if isinstance(data, bytes | bytearray):  # as json.loads reads bytes
            data = bytes(data).decode(json.detect_encoding(data), "surrogatepass")
        elif data.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", data, 0)
        return _STRICT_DECODER.decode(data)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc
    except UnicodeDecodeError as exc:
        raise ValueError("body is not UTF-8") from exc


def _short(raw: object) -> object:
    """Keep a rejected item for inspection without letting a hostile one grow without bound."""
    if isinstance(raw, str) and len(raw) > MAX_RAW_REPR:
        return raw[:MAX_RAW_REPR] + "…"
    return raw


@dataclass(frozen=True, slots=True)
class Malformed:
    """An item of a venue reply that could not be accepted as a record."""

    raw: object
    reason: str
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class VenueRecord:
    """One stored message, exactly as the venue holds it.

    `verified` is True only when `sig` re-verified against `sender` over
    `<room>|<nonce>|<text>`. An unsigned record (or one written before the venue kept `sig`) is
    kept with `verified` False and `unverified_reason` set: it is data, never a commitment.
    """

    room: str
    seq: int
    ts: str
    timestamp_ms: int
    sender: str
    text: str
    nonce: str | None
    sig: str | None
    generation: int | None
    verified: bool
    unverified_reason: str | None = None
    # The protocol record it was read as, kept when the parse made one (a whole ring is
    # 20,000 records, each wanted as one by the board and the deals).
    _transcript: TranscriptRecord | None = field(default=None, compare=False, repr=False)

    @property
    def signed(self) -> bool:
        return self.sig is not None

    @property
    def transcript(self) -> TranscriptRecord:
        """The protocol's view of this record, for verification and folding."""
        kept = self._transcript
        if (kept is not None and kept.line is self.text and kept.room is self.room
                and kept.seq == self.seq and kept.timestamp_ms == self.timestamp_ms
                and kept.sender is self.sender and kept.nonce is self.nonce
                and kept.signature is self.sig):  # not a copy with a field replaced
            return kept
        return TranscriptRecord(
            room=self.room,
            seq=self.seq,
            timestamp_ms=self.timestamp_ms,
            sender=self.sender,
            nonce=self.nonce,
            signature=self.sig,
            line=self.text,
        )


def _nonce_text(value: object) -> object:
    """Venue nonces are JSON integers of up to 19 digits: keep their exact digits."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= MAX_NONCE:
            raise RecordError("record nonce is outside 0..10**19-1")
        return str(value)
    return value


def _checked(room: str, message: object) -> TranscriptRecord:
    """Every check of `parse_record` but the signature's; raises RecordError."""
    if not isinstance(message, dict):
        raise RecordError("record is not a JSON object")
    normalised = dict(message)
    if "nonce" in normalised:
        normalised["nonce"] = _nonce_text(normalised["nonce"])
    try:
        base = transcript_record(room, normalised)
    except ValueError as exc:  # TclkError is a ValueError
        raise RecordError(str(exc)) from None
    text = base.line
    if not text:
        raise RecordError("record text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise RecordError(f"record text is longer than {MAX_TEXT_CHARS} characters")
    if not survives_sweep(text):
        raise RecordError("record text holds characters the venue's single-line sweep removes")
    sender = base.sender
    if not (is_name(sender) or DID_RE.fullmatch(sender)):
        raise RecordError("record sender is neither a nickname nor a did:key")
    return base


_MAX_MINUTES = 4096


def _venue_stamp(text: str, minutes: dict[str, int]) -> int | None:
    """`parse_timestamp_ms(text)` for the venue's own spelling, `YYYY-MM-DDTHH:MM:SS.ffffffZ`;
    None for any other spelling or an invalid time (then `parse_timestamp_ms` decides).

    A ring's records are minutes apart at most, so the minute (`minutes` maps the first 16
    characters to its Unix ms, found by `parse_timestamp_ms` itself) is read once per minute;
    the seconds and fraction are checked here as the timestamp pattern checks them."""
    if (len(text) != 27 or text[26] != "Z" or text[19] != "." or text[16] != ":"
            or not "0" <= text[17] <= "5" or not "0" <= text[18] <= "9"):
        return None
    fraction = text[20:26]
    if not (fraction.isascii() and fraction.isdigit()):
        return None
    minute = text[:16]
    start = minutes.get(minute)
    if start is None:
        try:  # also refuses a minute before 1970, when every instant in it is
            start = parse_timestamp_ms(minute + ":00Z")
        except ValueError:
            return None
        if len(minutes) >= _MAX_MINUTES:
            minutes.clear()
        minutes[minute] = start
    return start + int(text[17:19]) * 1000 + int(fraction[:3])


def _fast_checked(room: str, message: object, senders: set[str],
                  minutes: dict[str, int]) -> TranscriptRecord | None:
    """`_checked` for the record every venue writes, or None for any other (then `_checked`
    itself decides, and gives the reason).

    Each test here admits only what `_checked` admits, to the same record; `senders` holds
    senders that passed already (a ring has few), `minutes` what `_venue_stamp` read. The
    caller checked `room`."""
    if type(message) is not dict:
        return None
    seq = message.get("seq")
    stamp = message.get("ts")
    sender = message.get("from")
    text = message.get("text")
    nonce = message.get("nonce")
    signature = message.get("sig")
    if not (
        type(seq) is int and 0 <= seq <= MAX_SAFE_INT
        and type(stamp) is str and type(sender) is str and type(text) is str
        and 0 < len(text) <= MAX_TEXT_CHARS
        and (signature is None or type(signature) is str)
    ):
        return None
    if type(nonce) is int:
        if not 0 <= nonce <= MAX_NONCE:
            return None
        nonce = str(nonce)
    elif nonce is not None and type(nonce) is not str:
        return None
    if not ((text.isascii() and text.isprintable() and text[0] != " " and text[-1] != " ")
            or survives_sweep(text)):
        return None  # (printable ASCII is swept of nothing but its outer spaces)
    if sender not in senders:
        if not (is_name(sender) or DID_RE.fullmatch(sender)):
            return None
        senders.add(sender)
    timestamp_ms = _venue_stamp(stamp, minutes)
    if timestamp_ms is None:
        try:
            timestamp_ms = parse_timestamp_ms(stamp)
        except ValueError:
            return None
    return TranscriptRecord(room, seq, timestamp_ms, sender, nonce, signature, text)


def _venue_record(room: str, message: dict, base: TranscriptRecord, generation: int | None,
                  verdict: VerifyResult | None) -> VenueRecord:
    """The record, given the verdict on its signature (None when it carries none)."""
    verified = False
    reason: str | None = "record is unsigned"
    if verdict is not None:
        if not verdict.ok:
            raise RecordError(verdict.reason or "record signature does not verify")
        verified, reason = True, None
    return VenueRecord(room, base.seq, message["ts"], base.timestamp_ms, base.sender, base.line,
                       base.nonce, base.signature, generation, verified, reason,
                       base)


def parse_record(room: str, message: object, generation: int | None) -> VenueRecord:
    """Accept one venue message (JSON view item or export row) or raise RecordError."""
    base = _checked(room, message)
    assert isinstance(message, dict)
    verdict = verify_transcript_record(base) if base.signature is not None else None
    return _venue_record(room, message, base, generation, verdict)


def _raw_seq(message: object) -> int | None:
    if isinstance(message, dict):
        seq = message.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            return seq
    return None


SignatureKey = tuple[str, str, str | None, str | None, str]


def signature_key(record: TranscriptRecord) -> SignatureKey:
    """Everything a signature check reads of a record that passed the shape checks: two
    records with the same key get the same verdict."""
    return record.room, record.sender, record.nonce, record.signature, record.line


_VERIFIED = VerifyResult(True, None)


# What the per-record work makes of one item of a reply: the JSON value and the record (or why
# it was refused); or, for an export line that is not JSON, that line's refusal.
Outcome = tuple[object, VenueRecord | RecordError] | Malformed
# Items per chunk handed to a thread: enough that a chunk costs far more than handing it over,
# few enough that the last chunks keep both threads busy to the end.
CHUNK = 128


class _Checker:
    """Every check of one reply's records, the signature's included: the work one thread does
    for a chunk of them (several threads may run it at once)."""

    def __init__(self, room: str, generation: int | None,
                 verified_before: Container[SignatureKey],
                 while_verifying: Callable[[TranscriptRecord], object] | None) -> None:
        self.room = room
        self.generation = generation
        self.verified_before = verified_before
        self.while_verifying = while_verifying
        self.fast = isinstance(room, str) and TRANSCRIPT_ROOM_RE.fullmatch(room) is not None
        # Shared by the threads: a race only reads a sender or a minute twice.
        self.senders: set[str] = set()
        self.minutes: dict[str, int] = {}

    def record(self, message: object, opener: Opener) -> VenueRecord | RecordError:
        base = (_fast_checked(self.room, message, self.senders, self.minutes) if self.fast
                else None)
        if base is None:
            try:
                base = _checked(self.room, message)
            except RecordError as exc:
                return exc
        if self.while_verifying is not None:
            self.while_verifying(base)
        verdict: VerifyResult | None = None
        if base.signature is not None:
            known = bool(self.verified_before) and signature_key(base) in self.verified_before
            verdict = _VERIFIED if known else opener.verify(base)
        assert isinstance(message, dict)
        try:
            return _venue_record(self.room, message, base, self.generation, verdict)
        except RecordError as exc:
            return exc

    def messages(self, chunk: Sequence[object]) -> list[Outcome]:
        opener = Opener()
        return [(message, self.record(message, opener)) for message in chunk]

    def lines(self, chunk: tuple[int, Sequence[bytes], Sequence[str] | None]) -> list[Outcome]:
        """Export lines `start`.. (1-based): each line's JSON, then its record."""
        start, lines, texts = chunk
        opener = Opener()
        outcomes: list[Outcome] = []
        for offset, line in enumerate(lines):
            if not line or line.isspace():  # `not line.strip()`, without copying the line
                continue
            message = _fast_loads(line, texts[offset]) if texts is not None else _SLOW
            if message is _SLOW:
                try:
                    message = loads_strict(line)
                except ValueError:
                    outcomes.append(Malformed(_short(line.decode("utf-8", "replace")),
                                              f"export line {start + offset} is not JSON"))
                    continue
            outcomes.append((message, self.record(message, opener)))
        return outcomes


class InOrder:
    """What reading a reply's outcomes in venue order keeps and refuses, one chunk at a time:
    a record refused for any reason never moves the seq order on, exactly as when each was
    parsed in turn. Records and refusals accumulate; `take` also returns the chunk's records."""

    def __init__(self, after: int | None) -> None:
        self.after = after
        self.previous = after
        self.records: list[VenueRecord] = []
        self.malformed: list[Malformed] = []  # records refused, in order
        self.not_json: list[Malformed] = []  # export lines that are not JSON, in order

    def take(self, chunk: Iterable[Outcome]) -> list[VenueRecord]:
        kept: list[VenueRecord] = []
        after, previous = self.after, self.previous
        for outcome in chunk:
            if isinstance(outcome, Malformed):
                self.not_json.append(outcome)
                continue
            message, record = outcome
            if isinstance(record, RecordError):
                self.malformed.append(Malformed(_short(message), str(record), _raw_seq(message)))
                continue
            if previous is not None and record.seq <= previous:
                reason = (
                    f"record seq {record.seq} is not after the cursor {after}"
                    if previous == after
                    else f"record seq {record.seq} does not follow seq {previous}"
                )
                self.malformed.append(Malformed(_short(message), reason, record.seq))
                continue
            kept.append(record)
            previous = record.seq
        self.previous = previous
        self.records.extend(kept)
        return kept


def _accept_in_order(
    chunks: Iterable[list[Outcome]], after: int | None, not_json: list[Malformed],
) -> tuple[list[VenueRecord], list[Malformed]]:
    # In venue order, each record's outcome and then the seq order (see `InOrder`). Lines that
    # are not JSON go to `not_json`, in order.
    order = InOrder(after)
    order.not_json = not_json
    for chunk in chunks:
        order.take(chunk)
    return order.records, order.malformed


# Seqs and generations are counters; anything past 2^53 - 1 is a hostile or broken venue (and
# would not fit the journal's integers either).
MAX_SAFE_INT = 2**53 - 1


def _optional_int(view: dict[str, object], key: str) -> int | None:
    value = view.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SAFE_INT:
        raise MalformedResponse(f"venue view field {key} is not a non-negative safe integer")
    return value


@dataclass(frozen=True, slots=True)
class RoomView:
    """One read of a room: the records, what was refused, and the venue's cursor facts.

    `first_seq` is the venue's (it may name a record refused into `malformed`); `last_seq` is the
    cursor to continue from. `generation` is the room's epoch (None on venues that predate it),
    `wait_held` False means a long-poll was refused a slot and returned at once.
    """

    room: str
    records: tuple[VenueRecord, ...]
    malformed: tuple[Malformed, ...]
    first_seq: int | None
    last_seq: int
    generation: int | None
    wait_held: bool | None = None
    posted: VenueRecord | None = None
    count: int = 0
    since: int | None = field(default=None, repr=False)


def parse_room_view(room: str, body: bytes | str, since: int | None) -> RoomView:
    """Parse a `?format=json` room reply. Raises MalformedResponse when the reply as a whole is
    unusable; individual bad records land in `malformed`."""
    try:
        view = loads_strict(body)
    except ValueError as exc:
        raise MalformedResponse(f"venue reply for /r/{room} is not JSON ({exc})") from None
    if not isinstance(view, dict):
        raise MalformedResponse(f"venue reply for /r/{room} is not a JSON object")
    if view.get("room") != room:
        raise MalformedResponse(f"venue answered for another room than /r/{room}")
    messages = view.get("messages")
    if not isinstance(messages, list):
        raise MalformedResponse(f"venue reply for /r/{room} has no messages list")
    last_seq = _optional_int(view, "last_seq")
    if last_seq is None:
        raise MalformedResponse(f"venue reply for /r/{room} has no last_seq")
    first_seq = _optional_int(view, "first_seq")
    generation = _optional_int(view, "generation")
    count = _optional_int(view, "count") or 0
    wait_held = view.get("wait_held")
    if wait_held is not None and not isinstance(wait_held, bool):
        raise MalformedResponse(f"venue reply for /r/{room} has a non-boolean wait_held")
    if messages and first_seq is None:
        raise MalformedResponse(f"venue reply for /r/{room} has messages but no first_seq")
    checker = _Checker(room, generation, (), None)
    chunks = [messages[i:i + CHUNK] for i in range(0, len(messages), CHUNK)]
    with closing(in_threads(checker.messages, chunks, len(messages))) as checked:
        records, malformed = _accept_in_order(checked, since, [])
    top = max((seq for m in messages if (seq := _raw_seq(m)) is not None), default=None)
    if top is not None and top > last_seq:
        raise MalformedResponse(
            f"venue reply for /r/{room} holds seq {top} past its own last_seq {last_seq}"
        )
    posted: VenueRecord | None = None
    if "posted" in view:
        try:
            posted = parse_record(room, view["posted"], generation)
        except RecordError as exc:
            raise MalformedResponse(
                f"venue reports a posted record it cannot back: {exc}"
            ) from None
    return RoomView(
        room=room,
        records=tuple(records),
        malformed=tuple(malformed),
        first_seq=first_seq,
        last_seq=last_seq,
        generation=generation,
        wait_held=wait_held,
        posted=posted,
        count=count,
        since=since,
    )


def parse_posted(room: str, body: bytes | str) -> VenueRecord | None:
    """The `posted` record of a write reply (None when the venue sent none).

    A write reply also carries the room's newest records; they are not needed to confirm the
    write, so they are not parsed or verified here (a follower reads them anyway).
    """
    try:
        view = loads_strict(body)
    except ValueError as exc:
        raise MalformedResponse(
            f"venue reply to a write in /r/{room} is not JSON ({exc})"
        ) from None
    if not isinstance(view, dict) or view.get("room") != room:
        raise MalformedResponse(f"venue reply to a write in /r/{room} is not this room's view")
    if "posted" not in view:
        return None
    generation = _optional_int(view, "generation")
    try:
        return parse_record(room, view["posted"], generation)
    except RecordError as exc:
        raise MalformedResponse(
            f"venue reports a posted record it cannot back: {exc}"
        ) from None


@dataclass(frozen=True, slots=True)
class RoomExport:
    """A room's retained ring as exported: the exact bytes, and the records they hold.

    `raw` is the body byte for byte (archive it: every signed line re-verifies from it alone).
    """

    room: str
    generation: int | None
    records: tuple[VenueRecord, ...]
    malformed: tuple[Malformed, ...]
    raw: bytes = field(repr=False)

    @property
    def transcript(self) -> list[TranscriptRecord]:
        """The records as protocol transcript records, ready to fold."""
        return [record.transcript for record in self.records]

    @property
    def verified(self) -> list[VenueRecord]:
        return [record for record in self.records if record.verified]


def _decoded_lines(whole_lines: bytes) -> list[str] | None:
    """Newline-ended lines as text, decoded in one pass; None when they are not all UTF-8
    (then each line is read on its own, as `loads_strict` reads it).

    A newline byte never occurs inside a UTF-8 sequence, so line `i` of the decoded body is
    line `i` of the body decoded alone."""
    try:
        return whole_lines.decode("utf-8", "surrogatepass").split("\n")
    except UnicodeDecodeError:
        return None


_SLOW = object()
# The decoder's own scanner (what `decode` calls after skipping leading whitespace).
_scan_once: Callable[[str, int], tuple[object, int]] = (
    _STRICT_DECODER.scan_once)  # type: ignore[attr-defined]


def _fast_loads(line: bytes, text: str) -> object:
    """`loads_strict(line)` for a line that is one JSON object and nothing else, given `text`,
    the line decoded; `_SLOW` for any other line, which `loads_strict` then reads itself.

    A line opening with `{` and a non-zero byte is one `json.detect_encoding` reads as UTF-8;
    one with no more brackets than the depth limit cannot be too deep; an object that ends
    where the line ends leaves no extra data."""
    if (line[:1] != b"{" or (len(line) > 1 and line[1] == 0)
            or line.count(b"[") + line.count(b"{") > MAX_JSON_DEPTH):
        return _SLOW
    try:
        message, end = _scan_once(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return _SLOW
    return message if end == len(text) else _SLOW


def parse_export(room: str, body: bytes, generation: int | None, *,
                 verified_before: Container[SignatureKey] = (),
                 while_verifying: Callable[[TranscriptRecord], object] | None = None,
                 ) -> RoomExport:
    """Parse an export body (JSONL, one record per line). Bad lines are reported, not fatal.

    `verified_before` holds the `signature_key`s of records whose signatures this process has
    just verified (a journal replayed at start-up): those are not checked a second time.
    `while_verifying` is called with every record that passed the shape checks, verified or
    not yet, beside the signature checks: work the caller will need anyway (decoding the lines)
    then overlaps them. For a whole ring it runs on the verifying threads, in no set order, so
    it must be safe to call from several threads at once. What it returns is ignored.

    A whole ring is read in chunks of lines on a few threads, each line's JSON, shape and
    signature in turn (see `verify.in_threads`); the outcomes are then taken in venue order,
    so what is kept and refused, and why, is what reading one line after another gives."""
    malformed, chunks, count = _export_chunks(body)
    checker = _Checker(room, generation, verified_before, while_verifying)
    with closing(in_threads(checker.lines, chunks, count)) as checked:
        records, bad = _accept_in_order(checked, None, malformed)
    return RoomExport(
        room=room,
        generation=generation,
        records=tuple(records),
        malformed=tuple(malformed + bad),
        raw=body,
    )


ExportChunk = tuple[int, Sequence[bytes], Sequence[str] | None]


def _export_chunks(body: bytes) -> tuple[list[Malformed], list[ExportChunk], int]:
    """An export body as chunks of lines (first line number, lines, their texts when the body
    is all UTF-8), with the torn last line refused, and the number of lines."""
    malformed: list[Malformed] = []
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        malformed.append(Malformed(_short(lines.pop().decode("utf-8", "replace")),
                                   "export ends in a torn line"))
    texts = _decoded_lines(body[:sum(map(len, lines)) + len(lines)])
    chunks: list[ExportChunk] = [
        (start + 1, lines[start:start + CHUNK],
         None if texts is None else texts[start:start + CHUNK])
        for start in range(0, len(lines), CHUNK)]
    return malformed, chunks, len(lines)


class ExportChecks:
    """`parse_export`'s per-line work (JSON, shape, signature) on the verify threads, chunk by
    chunk in an order the caller chooses, each chunk's outcomes awaitable as soon as it is
    done: a caller may read the newest records first, then fold the whole ring in venue order
    while the rest is still being checked. `InOrder` then takes the outcomes in venue order,
    so what is kept and refused, and why, is exactly `parse_export`'s (`torn` first).

    The threads run only between `start` and `close`; `close` cancels chunks not begun."""

    def __init__(self, room: str, body: bytes, generation: int | None, *,
                 verified_before: Container[SignatureKey] = (),
                 while_verifying: Callable[[TranscriptRecord], object] | None = None) -> None:
        self.room = room
        self.generation = generation
        self.torn, self._chunks, self.lines = _export_chunks(body)
        self._offsets = []
        offset = 0
        for _start, lines, _texts in self._chunks:
            self._offsets.append(offset)
            offset += sum(map(len, lines)) + len(lines)
        self._checker = _Checker(room, generation, verified_before, while_verifying)
        self._pool: ThreadPoolExecutor | None = None
        self._futures: dict[int, Future[list[Outcome]]] = {}

    @property
    def chunks(self) -> int:
        return len(self._chunks)

    def chunk_lines(self, index: int) -> int:
        return len(self._chunks[index][1])

    def line_offset(self, index: int) -> int:
        """Where chunk `index`'s first line starts in the body."""
        return self._offsets[index]

    def start(self, order: Sequence[int]) -> None:
        """Hand every chunk to the verify threads, those in `order` first, in that order."""
        self._pool = ThreadPoolExecutor(max_workers=VERIFY_THREADS,
                                        thread_name_prefix="verify")
        for index in [*order, *(i for i in range(len(self._chunks)) if i not in set(order))]:
            self._futures[index] = self._pool.submit(self._checker.lines, self._chunks[index])

    async def outcomes(self, index: int) -> list[Outcome]:
        """Chunk `index`'s outcomes, once its checks are done."""
        return await asyncio.wrap_future(self._futures[index])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
