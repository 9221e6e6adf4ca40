import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.transcript import verify_transcript_record
from tclk_tui.technocore.errors import MalformedResponse
from tclk_tui.technocore.records import (
    RecordError,
    loads_strict,
    parse_export,
    parse_record,
    parse_room_view,
)

from .helpers import PAYEE, PAYER, STRANGER, export_body, signed, unsigned, view

ROOM = "tclk-offers"


def body(data) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode()


def test_signed_record_is_kept_whole_and_verified():
    message = signed(PAYER, ROOM, 3, "hello world", nonce=9_999_999_999_999_999_999)
    record = parse_record(ROOM, message, 2)
    assert record.verified and record.unverified_reason is None
    assert (record.room, record.seq, record.sender, record.text) == (ROOM, 3, PAYER.did,
                                                                     "hello world")
    assert record.nonce == "9999999999999999999"  # exact, past 2**53
    assert record.sig == message["sig"] and record.ts == message["ts"]
    assert record.generation == 2
    assert verify_transcript_record(record.transcript).ok


def test_unsigned_record_is_kept_but_not_verified():
    record = parse_record(ROOM, unsigned("alice", 1, "gm"), None)
    assert not record.verified
    assert record.unverified_reason == "record is unsigned"
    assert not record.signed


def test_record_without_sig_from_older_venue_is_not_re_verifiable_not_invalid():
    message = signed(PAYER, ROOM, 1, "old record")
    del message["sig"]
    record = parse_record(ROOM, message, None)
    assert not record.verified and record.nonce == "1001"


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda m: m.update(text="tampered"), "record signature does not verify"),
        (lambda m: m.update(sig=m["sig"][:-1] + "x"), "signature is not canonical base64url"),
        (lambda m: m.update(**{"from": PAYEE.did}), "record signature does not verify"),
        (lambda m: m.update(text="line\nbreak"), "sweep"),
        (lambda m: m.update(text="x" * 4097), "longer than 4096"),
        (lambda m: m.update(text=""), "empty"),
        (lambda m: m.update(ts=1735000000), "no timestamp"),
        (lambda m: m.update(seq=-1), "seq"),
        (lambda m: m.update(seq=True), "seq"),
        (lambda m: m.update(nonce=10**19), "nonce"),
        (lambda m: m.update(nonce=[1]), "nonce"),
        (lambda m: m.update(sig=5), "signature must be text"),
        (lambda m: m.update(**{"from": "Not A Nick"}), "neither a nickname nor a did:key"),
        (lambda m: m.pop("text"), "no text"),
    ],
)
def test_hostile_records_are_refused_with_a_reason(mutate, reason):
    message = signed(PAYER, ROOM, 1, "an honest line")
    mutate(message)
    with pytest.raises(RecordError, match=reason):
        parse_record(ROOM, message, None)


def test_record_signed_for_another_room_does_not_verify_here():
    message = signed(PAYER, ROOM, 1, "copied across rooms", sign_room="lobby")
    with pytest.raises(RecordError, match="does not verify"):
        parse_record(ROOM, message, None)


def test_view_keeps_good_records_and_reports_bad_ones():
    messages = [
        signed(PAYER, ROOM, 1, "first"),
        "not an object",
        signed(PAYEE, ROOM, 3, "third", sign_room="elsewhere"),
        unsigned("bob", 4, "plain chat, not tclk"),
        signed(STRANGER, ROOM, 5, "fifth"),
    ]
    parsed = parse_room_view(ROOM, body(view(ROOM, messages)), since=0)
    assert [r.seq for r in parsed.records] == [1, 4, 5]
    assert [(m.seq, m.reason) for m in parsed.malformed] == [
        (None, "record is not a JSON object"),
        (3, "record signature does not verify"),
    ]
    assert parsed.first_seq == 1 and parsed.last_seq == 5 and parsed.generation == 1


def test_view_records_must_move_forward_past_the_cursor():
    messages = [signed(PAYER, ROOM, s, f"line {s}") for s in (4, 6, 5, 6, 7)]
    parsed = parse_room_view(ROOM, body(view(ROOM, messages, last_seq=7)), since=4)
    assert [r.seq for r in parsed.records] == [6, 7]
    reasons = [m.reason for m in parsed.malformed]
    assert reasons == [
        "record seq 4 is not after the cursor 4",
        "record seq 5 does not follow seq 6",
        "record seq 6 does not follow seq 6",
    ]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"<html>oops</html>", "not JSON"),
        (b'{"room": "tclk-offers", "last_seq": NaN, "messages": []}', "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON"),
        (b"[]", "not a JSON object"),
        (body(view("lobby", [])), "another room"),
        (body({"room": ROOM, "last_seq": 0}), "no messages list"),
        (body({"room": ROOM, "messages": []}), "no last_seq"),
        (body({"room": ROOM, "messages": [], "last_seq": "5"}), "last_seq"),
        (body({"room": ROOM, "messages": [], "last_seq": 1, "generation": -1}), "generation"),
        (body({"room": ROOM, "messages": [], "last_seq": 1, "wait_held": "no"}), "wait_held"),
        (body(view(ROOM, [signed(PAYER, ROOM, 9, "x")], last_seq=3)), "past its own last_seq"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_unusable_views_raise_malformed_response(payload, reason):
    with pytest.raises(MalformedResponse, match=reason):
        parse_room_view(ROOM, payload, since=None)


def test_posted_record_is_parsed_and_must_verify():
    posted = signed(PAYER, ROOM, 2, "mine")
    parsed = parse_room_view(ROOM, body(view(ROOM, [posted], posted=posted)), since=None)
    assert parsed.posted is not None and parsed.posted.verified
    forged = dict(posted, text="not what was signed")
    with pytest.raises(MalformedResponse, match="posted"):
        parse_room_view(ROOM, body(view(ROOM, [posted], posted=forged)), since=None)


def test_export_is_parsed_line_by_line_and_keeps_the_raw_bytes():
    good = [signed(PAYER, ROOM, 1, "héllo"), signed(PAYEE, ROOM, 2, "two")]
    raw = export_body(good[:1]) + b"{not json\n" + export_body(good[1:])
    export = parse_export(ROOM, raw, 4)
    assert export.raw == raw
    assert [r.seq for r in export.records] == [1, 2]
    assert [m.reason for m in export.malformed] == ["export line 2 is not JSON"]
    assert all(verify_transcript_record(t).ok for t in export.transcript)
    assert export.generation == 4


def test_a_whole_ring_verified_in_threads_keeps_order_and_refuses_each_bad_record():
    """A ring large enough to be verified on several threads: a forged record anywhere in it
    (first, middle, last) is refused with its reason and never moves the seq order on, so a
    later record reusing its seq still follows the record before it."""
    from tclk_tui.technocore.verify import PARALLEL_VERIFY_MIN

    count = PARALLEL_VERIFY_MIN * 2 + 5
    messages = [signed(PAYER if seq % 2 else PAYEE, ROOM, seq, f"line {seq}")
                for seq in range(1, count + 1)]
    forged = {0, count // 2, count - 1}
    for index in forged:
        messages[index] = dict(messages[index], text=f"forged {index}")
    messages.insert(count // 2 + 1, signed(PAYEE, ROOM, count // 2 + 1, "takes the seq back"))
    export = parse_export(ROOM, export_body(messages), 1)
    expected = [m["seq"] for m in messages if not m["text"].startswith("forged")]
    assert [r.seq for r in export.records] == expected
    assert [r.text for r in export.records][count // 2 - 1] == "takes the seq back"
    assert all(r.verified for r in export.records)
    assert [(m.seq, m.reason) for m in export.malformed] == [
        (seq, "record signature does not verify") for seq in (1, count // 2 + 1, count)]


def test_export_skips_only_the_signature_checks_the_caller_has_done_already():
    from tclk_tui.technocore.records import signature_key

    good = signed(PAYER, ROOM, 1, "verified at replay")
    forged = dict(signed(PAYEE, ROOM, 2, "signed"), text="not what was signed")
    fresh_forgery = dict(signed(PAYEE, ROOM, 3, "signed too"), text="nor this")
    first = parse_export(ROOM, export_body([good, forged, fresh_forgery]), 1)
    assert [r.seq for r in first.records] == [1]
    keys = {signature_key(r) for r in first.transcript}
    again = parse_export(ROOM, export_body([good, forged, fresh_forgery]), 1,
                         verified_before=keys)
    assert again.records == first.records
    assert [(m.seq, m.reason) for m in again.malformed] == [
        (2, "record signature does not verify"), (3, "record signature does not verify")]
    # The key is the whole signed content: the same seq and signature over another text is
    # checked afresh.
    retexted = dict(good, text="verified at replay?")
    assert parse_export(ROOM, export_body([retexted]), 1, verified_before=keys).records == ()


def test_export_torn_tail_is_reported_not_parsed():
    raw = export_body([signed(PAYER, ROOM, 1, "one")]) + b'{"seq":2,"ts"'
    export = parse_export(ROOM, raw, None)
    assert [r.seq for r in export.records] == [1]
    assert export.malformed[0].reason == "export ends in a torn line"


def test_empty_export():
    export = parse_export(ROOM, b"", 0)
    assert export.records == () and export.malformed == ()


def test_loads_strict_refuses_constants():
    for text in ("NaN", "Infinity", "-Infinity", '{"a": NaN}'):
        with pytest.raises(ValueError):
            loads_strict(text)


@settings(max_examples=200, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["seq", "ts", "from", "text", "nonce", "sig", "x"]),
                      children, max_size=6),
    max_leaves=12,
))
def test_arbitrary_json_never_crashes_the_record_parser(message):
    with contextlib.suppress(RecordError):
        parse_record(ROOM, message, None)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash_the_view_parser(payload):
    with contextlib.suppress(MalformedResponse):
        parse_room_view(ROOM, payload, since=0)


@pytest.mark.parametrize("extra", [0, 1, 255])
def test_verification_in_threads_gives_the_serial_verdicts_in_order(extra):
    from tclk_tui.protocol.transcript import TranscriptRecord
    from tclk_tui.technocore.verify import PARALLEL_VERIFY_MIN, verify_records

    count = PARALLEL_VERIFY_MIN + extra
    records = []
    for seq in range(1, count + 1):
        message = signed(PAYER, ROOM, seq, f"streamed {seq}")
        records.append(TranscriptRecord(
            room=ROOM, seq=seq, timestamp_ms=1, sender=PAYER.did, nonce=str(message["nonce"]),
            signature=message["sig"], line="tampered" if seq % 101 == 0 else message["text"]))
    verdicts = verify_records(records)
    assert [v.ok for v in verdicts] == [verify_transcript_record(r).ok for r in records]
    assert [seq for seq, v in enumerate(verdicts, start=1) if not v.ok] == list(
        range(101, count + 1, 101))
