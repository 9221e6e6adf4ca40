"""Derived names (rooms, note paths) and the state-note and paper-record codecs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.errors import FrameError, TclkError
from tclk_tui.protocol.naming import (
    OFFER_ROOM,
    ROOM_RE,
    deal_room,
    decode_paper_record,
    did_fingerprint,
    did_note,
    encode_paper_record,
    encode_state_note,
    legacy_did_note,
    paper_note,
    parse_state_note,
    state_note,
)
from tclk_tui.protocol.quoting import quote

from .test_protocol_frames import CONTRACT, G_HEX, OFF_CURVE, hex32s, points

HASH = "0x" + "9f" * 32
SECRET = "0x" + "22" * 32


def test_offer_room() -> None:
    assert OFFER_ROOM == "tclk-offers"
    assert ROOM_RE.fullmatch(OFFER_ROOM)
    assert not OFFER_ROOM.startswith(("p-", "mb-", "d-", "e-"))


def test_golden_contract_names() -> None:
    assert deal_room(CONTRACT) == "mb-p-tclk-2768bf32b4553178"
    assert state_note(CONTRACT) == ("tclk-27", "68bf32b4553178")
    assert paper_note(CONTRACT) == ("tclk-paper-27", "68bf32b4553178")


@given(hex32s)
@settings(max_examples=100)
def test_deal_room_shape(contract: str) -> None:
    room = deal_room(contract)
    assert re.fullmatch(r"mb-p-tclk-[0-9a-f]{16}", room)
    assert len(room) == 26 <= 48
    assert ROOM_RE.fullmatch(room)
    ns, key = state_note(contract)
    assert ns + key == "tclk-" + contract[2:18]


@pytest.mark.parametrize(
    "contract", ["", "0x" + "A" * 64, "0x" + "a" * 63, "0x" + "a" * 65, "a" * 66, None, 5]
)
def test_malformed_contract_ids(contract: Any) -> None:
    for derive in (deal_room, state_note, paper_note):
        message = f"tclk: malformed contract id: {quote(contract)}"
        with pytest.raises(FrameError, match=re.escape(message)):
            derive(contract)


# --- state note -----------------------------------------------------------------------------


def test_encode_state_note() -> None:
    assert encode_state_note("locked") == "locked"
    assert encode_state_note("locked", "escrow-9001") == "locked escrow-9001"
    assert encode_state_note("whatever") == "whatever"  # status is not validated
    assert encode_state_note("locked", "x" * 256) == "locked " + "x" * 256
    message = "tclk: rail ref must be printable ASCII without spaces (max 256 chars)"
    for bad in ("", "a b", "x" * 257, "é", "a\n", "\x7f"):
        with pytest.raises(TclkError, match=re.escape(message)):
            encode_state_note("locked", bad)


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("locked", {"status": "locked", "rail_ref": None}),
        ("proposed", {"status": "proposed", "rail_ref": None}),
        ("locked escrow-9001", {"status": "locked", "rail_ref": "escrow-9001"}),
        ("claimed " + "~" * 256, {"status": "claimed", "rail_ref": "~" * 256}),
        ("", None),
        ("LOCKED", None),
        ("locked ", None),
        ("locked  x", None),
        ("locked x y", None),
        (" locked", None),
        ("locked \n", None),
        ("locked \u2603", None),
        ("locked " + "x" * 257, None),
        ("done", None),
        (None, None),
        (3, None),
    ],
)
def test_parse_state_note(value: object, parsed: dict[str, Any] | None) -> None:
    assert parse_state_note(value) == parsed


@given(
    st.sampled_from(["proposed", "accepted", "locked", "claimed", "refunded", "cancelled"]),
    st.none()
    | st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=256),
)
@settings(max_examples=100)
def test_state_note_round_trip(status: str, rail_ref: str | None) -> None:
    assert parse_state_note(encode_state_note(status, rail_ref)) == {
        "status": status,
        "rail_ref": rail_ref,
    }


# --- DID notes ------------------------------------------------------------------------------


def test_did_note_worked_example() -> None:
    did = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
    assert did_fingerprint(did) == "0658808e85cc8317"
    assert did_note(did) == ("did-06", "58808e85cc8317")
    assert legacy_did_note(did) == ("did", "0658808e85cc8317")


def test_did_fingerprint_hashes_utf8_like_javascript() -> None:
    # A lone surrogate is U+FFFD in JavaScript's TextEncoder.
    assert did_fingerprint("a\ud800") == did_fingerprint("a\ufffd")
    with pytest.raises(TclkError):
        did_fingerprint(None)  # type: ignore[arg-type]


# --- paper records --------------------------------------------------------------------------


def test_paper_record_round_trips() -> None:
    locked = {"status": "locked", "lock": "hash", "statement": HASH, "refund_after_ms": 10}
    line = encode_paper_record(locked)
    assert line == f"tclkpaper1 locked hash {HASH} 10"
    assert decode_paper_record(line) == locked
    claimed = {**locked, "status": "claimed", "secret": SECRET}
    line = encode_paper_record(claimed)
    assert line == f"tclkpaper1 claimed hash {HASH} 10 {SECRET}"
    assert decode_paper_record(line) == claimed
    refunded = {
        "status": "refunded",
        "lock": "point",
        "statement": G_HEX,
        "refund_after_ms": 2**53 - 1,
    }
    assert decode_paper_record(encode_paper_record(refunded)) == refunded



def test_paper_record_takes_the_references_names_and_the_decoders_keys() -> None:
    reference = {"status": "claimed", "lock": "hash", "statement": HASH, "refundAfterMs": 10,
                 "secret": SECRET}
    line = encode_paper_record(reference)
    assert line == f"tclkpaper1 claimed hash {HASH} 10 {SECRET}"
    assert encode_paper_record(decode_paper_record(line)) == line
    assert encode_paper_record({**reference, "refund_after_ms": 10}) == line
    with pytest.raises(TclkError, match="refund_after_ms twice") as raised:
        encode_paper_record({**reference, "refund_after_ms": 11})
    assert SECRET not in str(raised.value)


@pytest.mark.parametrize(
    "line",
    [
        "locked",
        "tclkpaper1 locked hash",
        f"tclkpaper1 exploded hash {HASH} 10",
        f"tclkpaper2 locked hash {HASH} 10",
        f"tclkpaper1 locked sha256 {HASH} 10",
        "tclkpaper1 locked hash 0xnothex 10",
        f"tclkpaper1 locked hash {HASH} 0",
        f"tclkpaper1 claimed hash {HASH} 10",
        f"tclkpaper1 locked hash {HASH} 10 {SECRET}",
        f"tclkpaper1 locked hash {G_HEX} 10",  # 33-byte hash statement
        f"tclkpaper1 locked hash 0x{'a' * 65} 10",
        f"tclkpaper1 locked point {HASH} 10",  # 32-byte point statement
        f"tclkpaper1 locked point 0x04{G_HEX[4:]} 10",
        f"tclkpaper1 locked point {OFF_CURVE} 10",
        f"tclkpaper1 locked hash {HASH.upper().replace('0X', '0x')} 10",
        f"tclkpaper1 claimed hash {HASH} 10 0x{'AB' * 32}",
        f"tclkpaper1 claimed hash {HASH} 10 0x11",
        f"tclkpaper1  locked hash {HASH} 10",
        f"tclkpaper1 locked hash {HASH} 10 ",
        f"tclkpaper1 claimed hash {HASH} 10 {SECRET} extra",
        f"tclkpaper1 locked hash {HASH} 9007199254740992",
        "",
    ],
)
def test_paper_record_junk_reads_as_none(line: str) -> None:
    assert decode_paper_record(line) is None


@pytest.mark.parametrize("spelling", ["1e3", "0x10", "+5", "1.0", "00012", " 5", "-5", "1_000"])
def test_paper_record_refund_after_is_strict_decimal(spelling: str) -> None:
    """Deliberately stricter than the reference, whose Number() reads 1e3, 0x10, +5, 1.0 and
    00012 as 1000, 16, 5, 1 and 12. Its own encoder only ever writes plain decimal."""
    assert decode_paper_record(f"tclkpaper1 locked hash {HASH} {spelling}") is None


def test_decode_paper_record_non_strings() -> None:
    assert decode_paper_record(None) is None
    assert decode_paper_record(b"tclkpaper1") is None


@pytest.mark.parametrize(
    "record",
    [
        {"status": "locked", "lock": "hash", "statement": HASH, "refund_after_ms": 0},
        {"status": "locked", "lock": "hash", "statement": HASH, "refund_after_ms": "10"},
        {"status": "locked", "lock": "hash", "statement": HASH, "refund_after_ms": 10.0},
        {"status": "locked", "lock": "hash", "statement": HASH, "refund_after_ms": True},
        {
            "status": "locked",
            "lock": "hash",
            "statement": HASH,
            "refund_after_ms": 10,
            "secret": SECRET,
        },
        {"status": "claimed", "lock": "hash", "statement": HASH, "refund_after_ms": 10},
        {"status": "open", "lock": "hash", "statement": HASH, "refund_after_ms": 10},
        {"status": "locked", "lock": "point", "statement": OFF_CURVE, "refund_after_ms": 10},
        {"status": "locked", "lock": "hash", "statement": HASH, "refund_after_ms": 10, "x": 1},
    ],
)
def test_encode_paper_record_refuses_what_decode_would_not_read(record: dict[str, Any]) -> None:
    with pytest.raises(TclkError) as caught:
        encode_paper_record(record)
    assert SECRET not in str(caught.value)


@given(
    st.sampled_from(["locked", "claimed", "refunded"]),
    st.one_of(hex32s.map(lambda s: ("hash", s)), points.map(lambda s: ("point", s))),
    st.integers(1, 2**53 - 1),
    hex32s,
)
@settings(max_examples=100)
def test_paper_record_property(
    status: str, lock: tuple[str, str], refund_after: int, secret: str
) -> None:
    record: dict[str, Any] = {
        "status": status,
        "lock": lock[0],
        "statement": lock[1],
        "refund_after_ms": refund_after,
    }
    if status == "claimed":
        record["secret"] = secret
    assert decode_paper_record(encode_paper_record(record)) == record
