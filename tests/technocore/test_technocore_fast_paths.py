"""The fast paths of reading an export pinned to the plain reading they stand in for.

Reading a whole ring takes shortcuts: each line's JSON scanned from one decode of the body, the
common record shape checked inline, a signature prepared on one thread and checked by libsodium
on another, chunks of lines on a few threads. Each shortcut must give exactly what the plain
path gives (the same records, the same refusals with the same reasons in the same order), for
any input, and these properties hold it to that.
"""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.transcript import (
    TranscriptRecord,
    parse_timestamp_ms,
    verify_transcript_record,
)
from tclk_tui.technocore import records, verify
from tclk_tui.technocore.errors import MalformedResponse
from tclk_tui.technocore.records import (
    Malformed,
    RecordError,
    _checked,
    _fast_checked,
    _fast_loads,
    _raw_seq,
    _short,
    loads_strict,
    parse_export,
    parse_record,
    parse_room_view,
    signature_key,
)
from tclk_tui.technocore.verify import Opener, verify_records

from .helpers import PAYEE, PAYER, STRANGER, signed, unsigned, view

ROOM = "tclk-offers"
GENUINE = [signed((PAYER, PAYEE, STRANGER)[seq % 3], ROOM, seq, f"offer {seq} ✓")
           for seq in range(1, 13)]


def plain_export(room: str, body: bytes, generation: int | None,
                 verified_before: frozenset = frozenset()) -> tuple[tuple, tuple]:
    """The export read one line at a time, each record checked and verified in turn."""
    malformed: list[Malformed] = []
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        malformed.append(Malformed(_short(lines.pop().decode("utf-8", "replace")),
                                   "export ends in a torn line"))
    messages = []
    for index, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            messages.append(loads_strict(line))
        except ValueError:
            malformed.append(Malformed(_short(line.decode("utf-8", "replace")),
                                       f"export line {index} is not JSON"))
    kept, bad, previous = [], [], None
    for message in messages:
        try:
            record = parse_record(room, message, generation)
        except RecordError as exc:
            base = None
            with contextlib.suppress(RecordError):
                base = _checked(room, message)
            if base is None or signature_key(base) not in verified_before:
                bad.append(Malformed(_short(message), str(exc), _raw_seq(message)))
                continue
            record = records._venue_record(room, message, base, generation, records._VERIFIED)
        if previous is not None and record.seq <= previous:
            bad.append(Malformed(_short(message),
                                 f"record seq {record.seq} does not follow seq {previous}",
                                 record.seq))
            continue
        kept.append(record)
        previous = record.seq
    return tuple(kept), tuple(malformed + bad)


# Values a hostile venue might put in any field, beside the ones it should.
ODD_VALUES = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([-1, 0, 1, 2**53 - 1, 2**53, 10**19 - 1, 10**19, 1.0, 2.5, float(2**53)]),
    st.integers(), st.floats(allow_nan=False),
    st.sampled_from(["", " ", "0", "01", "١٢", "did:key:z6Mk", "bob", "BOB", "x" * 4097,
                     "2026-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "1969-12-31T23:59:59Z",
                     "2026-01-01T00:00:00.123456+05:30", "2026-01-01 00:00:00Z",
                     " padded", "padded ", "tab\there", "zero\u200bwidth", "\ud800", "é"]),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
FIELDS = ("seq", "ts", "from", "text", "nonce", "sig")


@st.composite
def venue_messages(draw: st.DrawFn) -> object:
    """A genuine record, some of whose fields are replaced, dropped or added to; or junk."""
    if draw(st.integers(0, 9)) == 0:
        return draw(ODD_VALUES)
    message = dict(draw(st.sampled_from([*GENUINE, unsigned("bob", 7, "hello")])))
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=3)):
        if draw(st.booleans()):
            message[name] = draw(ODD_VALUES)
        else:
            message.pop(name, None)
    if draw(st.booleans()):
        message[draw(st.text(max_size=4))] = draw(ODD_VALUES)
    return message


@given(venue_messages())
@settings(max_examples=400, deadline=None)
def test_the_inline_shape_checks_admit_only_what_the_full_ones_admit(message):
    fast = _fast_checked(ROOM, message, set(), {})
    if fast is not None:
        assert _checked(ROOM, message) == fast


def test_the_inline_shape_checks_take_every_record_a_venue_writes():
    for message in [*GENUINE, unsigned("bob", 7, "hello"), signed(PAYER, ROOM, 2**53 - 1, "x",
                                                                  nonce=10**19 - 1)]:
        assert _fast_checked(ROOM, message, set(), {}) == _checked(ROOM, message)


@given(st.one_of(
    st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")),
    st.text(alphabet="0123456789-T:.Z+ ١", min_size=25, max_size=29),
    st.sampled_from(["1969-12-31T23:59:59.999999Z", "1970-01-01T00:00:00.000000Z",
                     "2026-02-29T00:00:00.000000Z", "2028-02-29T23:59:59.999999Z",
                     "2026-13-01T00:00:00.000000Z", "2026-01-01T24:00:00.000000Z",
                     "2026-01-01T00:60:00.000000Z", "2026-01-01T00:00:60.000000Z",
                     "2026-01-01T00:00:00.00000١Z", "2026-01-01T00:00:00.000000z",
                     "2026-01-01T00:00:00,000000Z", "2026-01-01t00:00:00.000000Z"]),
), st.booleans())
@settings(max_examples=500, deadline=None)
def test_the_venue_timestamp_reading_agrees_with_parse_timestamp_ms(text, warm):
    minutes: dict[str, int] = {}
    if warm:  # the minute read before, from another instant in it
        records._venue_stamp(text[:16] + ":00.000000Z", minutes)
    fast = records._venue_stamp(text, minutes)
    if fast is not None:
        assert parse_timestamp_ms(text) == fast


LINE_PARTS = st.one_of(
    st.sampled_from([json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode()
                     for m in GENUINE]),
    st.sampled_from([b"{}", b"{} ", b" {}", b"{}\r", b"{}x", b"{}{}", b'{"a":NaN}',
                     b'{"a":1e999}', b'{"a":' + b"9" * 5000 + b"}", b"[" * 600 + b"]" * 600,
                     b'{"a":' + b"[" * 600 + b"]" * 600 + b"}", b"\xef\xbb\xbf{}",
                     '{"a":"é"}'.encode("utf-16-le"), '{"a":"é"}'.encode("utf-16"),
                     b'{\x00"', b"{\xff}", b'{"a":"\xed\xa0\x80"}', b'{"a":"\\ud800"}',
                     b'{"a":"tab\there"}', b"null", b"1", b'"{"']),
    st.binary(max_size=20).map(lambda b: b"{" + b),
    st.binary(max_size=20),
)


@given(LINE_PARTS)
@settings(max_examples=400, deadline=None)
def test_the_one_pass_json_reading_agrees_with_loads_strict(line):
    try:
        text = line.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return  # such a body is read line by line with loads_strict alone
    fast = _fast_loads(line, text)
    if fast is not records._SLOW:
        assert repr(loads_strict(line)) == repr(fast)


def _line(message: object) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


EXPORT_LINES = st.one_of(
    venue_messages().map(_line),
    LINE_PARTS,
    st.sampled_from([b"", b"  ", b"\r"]),
)


@given(st.lists(EXPORT_LINES, max_size=24), st.binary(max_size=6), st.booleans(),
       st.booleans())
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_an_export_reads_exactly_as_line_by_line(monkeypatch, lines, tail, threads, known):
    # In threads (chunks of 3 lines on a pool from one record up) and on the calling thread.
    monkeypatch.setattr(verify, "PARALLEL_VERIFY_MIN", 1 if threads else 10**9)
    monkeypatch.setattr(verify, "VERIFY_THREADS", 2)
    monkeypatch.setattr(records, "CHUNK", 3)
    body = b"".join(line + b"\n" for line in lines) + tail
    before = frozenset(signature_key(_checked(ROOM, m)) for m in GENUINE[::2]) if known else ()
    seen: list[TranscriptRecord] = []
    export = parse_export(ROOM, body, 5, verified_before=before, while_verifying=seen.append)
    assert (export.records, export.malformed) == plain_export(ROOM, body, 5, before or frozenset())
    assert export.raw == body
    shaped = []
    for line in body.split(b"\n")[:-1]:
        with contextlib.suppress(ValueError):
            shaped.append(_checked(ROOM, loads_strict(line)))
    assert sorted(seen, key=repr) == sorted(shaped, key=repr)


@given(st.lists(venue_messages(), max_size=20), st.booleans())
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_view_reads_exactly_as_record_by_record(monkeypatch, messages, threads):
    monkeypatch.setattr(verify, "PARALLEL_VERIFY_MIN", 1 if threads else 10**9)
    monkeypatch.setattr(verify, "VERIFY_THREADS", 2)
    monkeypatch.setattr(records, "CHUNK", 3)
    body = json.dumps(view(ROOM, messages, last_seq=2**53 - 1, first_seq=1)).encode()
    try:
        got = parse_room_view(ROOM, body, since=None)
    except MalformedResponse as exc:  # the same refusal of the whole reply on either path
        monkeypatch.setattr(verify, "PARALLEL_VERIFY_MIN", 1 if not threads else 10**9)
        with pytest.raises(MalformedResponse) as again:
            parse_room_view(ROOM, body, since=None)
        assert str(again.value) == str(exc)
        return
    lines = b"".join(_line(message) + b"\n" for message in messages)
    assert (got.records, got.malformed) == plain_export(ROOM, lines, 1)


GOOD_SIGNATURE = GENUINE[0]["sig"]
RECORD_VARIANTS: dict[str, list[object]] = {
    "room": ["tclk-offers", "other-room", "", "UPPER", "x" * 300, 5],
    "seq": [0, -1, 2**53, 1.0, 1.5, True, "1"],
    "timestamp_ms": [0, -1, 2**53, 3.0, False],
    "sender": [PAYER.did, PAYEE.did, "bob", PAYER.did[:-1] + "1", "did:key:z6Mk" + "1" * 44,
               "d" * 200, 7],
    "nonce": ["0", "00", "01", "", "١", "10000000000000000000", None, 7, True],
    "signature": ["", "A" * 86, "A" * 85 + "B", "A" * 84 + "+Q", "A" * 84 + "/Q",
                  "A" * 84 + "=Q", "A" * 84 + "éQ", "A" * 87, None, 5,
                  GOOD_SIGNATURE[:40] + "_" + GOOD_SIGNATURE[41:],
                  GOOD_SIGNATURE[:85] + "B", GOOD_SIGNATURE[:85] + "\n"],
    "line": ["tampered", "", "\ud800 lone", "€" * 6000, None],
}


def _genuine_record(message: dict) -> dict[str, object]:
    return {"room": ROOM, "seq": message["seq"], "timestamp_ms": 1, "sender": message["from"],
            "nonce": str(message["nonce"]), "signature": message["sig"],
            "line": message["text"]}


@st.composite
def transcript_records(draw: st.DrawFn) -> object:
    fields = _genuine_record(draw(st.sampled_from(GENUINE)))
    for name in draw(st.lists(st.sampled_from(list(RECORD_VARIANTS)), max_size=3)):
        fields[name] = draw(st.sampled_from(RECORD_VARIANTS[name]))
    return TranscriptRecord(**fields)


@pytest.mark.parametrize(("name", "value"), [
    (name, value) for name, values in RECORD_VARIANTS.items() for value in values])
def test_a_prepared_check_gives_the_full_verdict_for_each_odd_field(name, value):
    for message in GENUINE[:3]:
        record = TranscriptRecord(**{**_genuine_record(message), name: value})
        assert Opener().verify(record) == verify_transcript_record(record)


@given(st.lists(transcript_records(), min_size=1, max_size=12))
@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_prepared_signature_checks_give_the_full_verdicts(monkeypatch, batch):
    wanted = [verify_transcript_record(record) for record in batch]
    opener = Opener()
    assert [opener.verify(record) for record in batch] == wanted
    assert verify_records(batch) == wanted  # on this thread
    monkeypatch.setattr(verify, "PARALLEL_VERIFY_MIN", 1)
    monkeypatch.setattr(verify, "VERIFY_THREADS", 2)
    monkeypatch.setattr(verify, "CHUNK", 2)
    assert verify_records(batch) == wanted  # in threads
    seen: list[TranscriptRecord] = []
    assert verify_records(batch, while_verifying=seen.append) == wanted
    assert sorted(seen, key=repr) == sorted(batch, key=repr)
