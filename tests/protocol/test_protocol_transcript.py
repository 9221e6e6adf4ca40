"""Signed records: verification order, venue JSON normalising, exports, the fold, handshakes."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.errors import FrameError, TclkError
from tclk_tui.protocol.ids import contract_id, offer_id
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.transcript import (
    Fold,
    FoldStep,
    Handshake,
    NonceViolation,
    TranscriptRecord,
    VerifyResult,
    check_nonce_order,
    find_contract_handshake,
    fold_transcript,
    parse_timestamp_ms,
    parse_transcript_export,
    signed_message,
    transcript_record,
    verify_transcript_record,
)

SEED_PAYER = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"  # RFC 8032 test 1
SEED_PAYEE = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"  # RFC 8032 test 2
SEED_STRANGER = "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7"  # test 3
PAYER = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
PAYEE = "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT"
STRANGER = "did:key:z6MkwSD8dBdqcXQzKJZQFPy2hh2izzxskndKCjdmC2dBpfME"
KEYS = {
    PAYER: SigningKey(bytes.fromhex(SEED_PAYER)),
    PAYEE: SigningKey(bytes.fromhex(SEED_PAYEE)),
    STRANGER: SigningKey(bytes.fromhex(SEED_STRANGER)),
}

NOW = 1_735_000_000_000
HASH = "0x02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc"  # sha256(0x11 * 32)
PREIMAGE = "0x" + "11" * 32
CONTRACT = "0x2abe803280992f400ed1ca4bfd8a77071ee72e48493fb4ca39e12bf87fd79166"
DEAL = "mb-p-tclk-2abe803280992f40"
OFFER_ID = "0xb3648ecd7c6b9b69c7af65124423aaffb960c4e4842694e4c9791f62b330c811"
REFUND_AFTER = 1_735_007_200_000
EXPIRES = 1_735_000_060_000

OFFER: dict[str, Any] = {
    "type": "offer",
    "from": PAYER,
    "role": "payer",
    "amount": "1000",
    "asset": "USDC",
    "lock": "hash",
    "rails": ["flop-htlc"],
    "claimByMs": 1_735_003_600_000,
    "refundAfterMs": REFUND_AFTER,
    "expiresMs": EXPIRES,
    "nonce": "0011223344556677",
}
OFFER["id"] = offer_id(OFFER)
ACCEPT_CORE = {"from": PAYEE, "ref": OFFER["id"], "statement": HASH, "nonce": "8899aabbccddeeff"}
ACCEPT = {"type": "accept", **ACCEPT_CORE, "contract": contract_id(OFFER, ACCEPT_CORE)}
LOCK = {
    "type": "lock",
    "from": PAYER,
    "contract": CONTRACT,
    "rail": "flop-htlc",
    "ref": "escrow-42",
}
REVEAL = {
    "type": "reveal",
    "from": PAYEE,
    "contract": CONTRACT,
    "ref": "escrow-42",
    "secret": PREIMAGE,
}

VECTOR_OFFER_LINE = (
    'tclk1 {"amount":"1000","asset":"USDC","claimByMs":1735003600000,"expiresMs":1735000060000,'
    '"from":"did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw","id":"0xb3648ecd7c6b9b69c7af'
    '65124423aaffb960c4e4842694e4c9791f62b330c811","lock":"hash","nonce":"0011223344556677",'
    '"rails":["flop-htlc"],"refundAfterMs":1735007200000,"role":"payer","type":"offer"}'
)
VECTOR_ACCEPT_LINE = (
    'tclk1 {"contract":"0x2abe803280992f400ed1ca4bfd8a77071ee72e48493fb4ca39e12bf87fd79166",'
    '"from":"did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT","nonce":"8899aabbccddeeff",'
    '"ref":"0xb3648ecd7c6b9b69c7af65124423aaffb960c4e4842694e4c9791f62b330c811","statement":'
    '"0x02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc","type":"accept"}'
)
VECTOR_SIGS = (
    "fDvMsJBqERZJA44iWYqSfgTQvU12rZTW6TQ8RLK5amrdnx-4C4Id1uS-MNzrQPGUyMQxzmQcKB0sQCCyEPV_AQ",
    "TGrD5taYv87-0N40TjtW25Nu3p7Lnth1Snm5dMy-XF4azpg0UBlvl1fp7JFViN0h5VAbdbRJcO7WHfqlGuMvCw",
    "85dXIzokBtqUsEcYw70m-CUkWW-R0KcH2aGpajXrBraLfBm6LDr9mxDXwbgf_3s-NXE09we5_4y0u_gRkg-JBg",
    "UTga-OYb092gitC5bA8JmNK-s-3PvBTegt8oZRSu2m7Ld9kVJhVO7G4AhwuCiir740iZjUmjvNHlSdAsv2k7Dw",
)


def sign(did: str, room: str, nonce: str, line: str) -> str:
    raw = KEYS[did].sign(signed_message(room, nonce, line)).signature
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


_nonces: dict[tuple[str, str], int] = {}


def rec(
    room: str,
    ts: int,
    signer: str,
    frame_or_line: dict[str, Any] | str,
    *,
    seq: int = 1,
    sender: str | None = None,
    nonce: str | None = None,
) -> TranscriptRecord:
    """A record signed by `signer` (sender defaults to the signer)."""
    line = frame_or_line if isinstance(frame_or_line, str) else encode_frame(frame_or_line)
    if nonce is None:
        nonce = str(_nonces.setdefault((room, signer), 10_000) + 1)
        _nonces[(room, signer)] = int(nonce)
    return TranscriptRecord(
        room, seq, ts, sender or signer, nonce, sign(signer, room, nonce, line), line
    )


def vector_records() -> list[TranscriptRecord]:
    lines = [encode_frame(f) for f in (OFFER, ACCEPT, LOCK, REVEAL)]
    rooms = [OFFER_ROOM, OFFER_ROOM, DEAL, DEAL]
    seqs = [1, 2, 1, 2]
    stamps = [NOW - 1, NOW, NOW + 1, NOW + 2]
    senders = [PAYER, PAYEE, PAYER, PAYEE]
    return [
        TranscriptRecord(rooms[i], seqs[i], stamps[i], senders[i], str(10_000 + seqs[i]),
                         VECTOR_SIGS[i], lines[i])
        for i in range(4)
    ]


def board() -> list[TranscriptRecord]:
    return [rec(OFFER_ROOM, NOW - 1, PAYER, OFFER), rec(OFFER_ROOM, NOW, PAYEE, ACCEPT)]


def statuses(fold: Fold) -> list[tuple[bool, str | None]]:
    return [(step.ok, step.reason) for step in fold.steps]


# ---------------------------------------------------------------------------- fixtures agree


def test_fixture_dids_are_the_rfc_8032_keys() -> None:
    from tclk_tui.protocol.didkey import did_key_from_public_key

    for did, key in KEYS.items():
        assert did_key_from_public_key(bytes(key.verify_key)) == did


def test_worked_signature_example() -> None:
    sig = sign(PAYER, "tclk-offers", "1", "hello")
    assert sig == (
        "3i1ecaJ3TnVgSblppswbkWg0NY8C9dsJNUacz4bK2iRwznMIECyjqo-Fej5FsgO7bQb38rdIkb3rnzAksL8_Cw"
    )
    record = TranscriptRecord("tclk-offers", 1, 0, PAYER, "1", sig, "hello")
    assert verify_transcript_record(record) == VerifyResult(True, None)


# -------------------------------------------------------------------------------- verify


def good_record() -> TranscriptRecord:
    return vector_records()[0]


def replace(record: TranscriptRecord, **fields: Any) -> dict[str, Any]:
    data = record.to_dict(camel=True)
    data.update(fields)
    return data


@pytest.mark.parametrize("value", [None, 5, "record", ["a"], b"bytes"])
def test_verify_not_an_object(value: Any) -> None:
    assert verify_transcript_record(value) == VerifyResult(False, "record is not an object")


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"room": "Tclk-offers"}, "record has an invalid room name"),
        ({"room": "-offers"}, "record has an invalid room name"),
        ({"room": "a" * 49}, "record has an invalid room name"),
        ({"room": ""}, "record has an invalid room name"),
        ({"room": "tclk-offers\n"}, "record has an invalid room name"),
        ({"room": None}, "record has an invalid room name"),
        ({"seq": -1}, "record seq must be a non-negative safe integer"),
        ({"seq": 2**53}, "record seq must be a non-negative safe integer"),
        ({"seq": 1.5}, "record seq must be a non-negative safe integer"),
        ({"seq": True}, "record seq must be a non-negative safe integer"),
        ({"seq": "1"}, "record seq must be a non-negative safe integer"),
        ({"timestampMs": -1}, "record timestampMs must be a non-negative safe integer"),
        ({"timestampMs": float("nan")}, "record timestampMs must be a non-negative safe integer"),
        ({"timestampMs": 2**53}, "record timestampMs must be a non-negative safe integer"),
        ({"timestampMs": False}, "record timestampMs must be a non-negative safe integer"),
        ({"line": None}, "record line must be a string"),
        ({"line": b"tclk1 {}"}, "record line must be a string"),
        ({"sender": None}, "record sender must be a string"),
        ({"nonce": None}, "record is unsigned"),
        ({"signature": None}, "record is unsigned"),
        ({"nonce": "01"}, "record nonce is not canonical decimal"),
        ({"nonce": ""}, "record nonce is not canonical decimal"),
        ({"nonce": "-5"}, "record nonce is not canonical decimal"),
        ({"nonce": "1e3"}, "record nonce is not canonical decimal"),
        ({"nonce": "10001\n"}, "record nonce is not canonical decimal"),
        ({"nonce": "\u0661"}, "record nonce is not canonical decimal"),  # Arabic-Indic one
        ({"nonce": True}, "record nonce is not canonical decimal"),
        ({"signature": "A" * 85}, "record signature is not canonical base64url"),
        ({"signature": "A" * 87}, "record signature is not canonical base64url"),
        ({"signature": "A" * 85 + "B"}, "record signature is not canonical base64url"),
        ({"signature": "+" * 85 + "A"}, "record signature is not canonical base64url"),
        ({"signature": "A" * 84 + "=="}, "record signature is not canonical base64url"),
        ({"signature": 5}, "record signature is not canonical base64url"),
        ({"sender": "did:key:z6Mk"}, "record sender is not an Ed25519 did:key"),
        ({"sender": "nick"}, "record sender is not an Ed25519 did:key"),
        (
            {"sender": "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"},
            "record sender is not an Ed25519 did:key",
        ),
        ({"sender": PAYEE}, "record signature does not verify"),
        ({"line": VECTOR_OFFER_LINE + " "}, "record signature does not verify"),
        ({"room": "tclk-offerz"}, "record signature does not verify"),
        ({"nonce": "10002"}, "record signature does not verify"),
        ({"signature": "A" * 86}, "record signature does not verify"),
    ],
)
def test_verify_reasons(fields: dict[str, Any], reason: str) -> None:
    assert verify_transcript_record(replace(good_record(), **fields)) == VerifyResult(False, reason)


def test_verify_reason_order() -> None:
    every_fault = {
        "room": "X",
        "seq": -1,
        "timestampMs": -1,
        "line": 1,
        "sender": 1,
        "nonce": "01",
        "signature": "bad",
    }
    order = [
        ("room", "record has an invalid room name"),
        ("seq", "record seq must be a non-negative safe integer"),
        ("timestampMs", "record timestampMs must be a non-negative safe integer"),
        ("line", "record line must be a string"),
        ("sender", "record sender must be a string"),
        ("nonce", "record nonce is not canonical decimal"),
        ("signature", "record signature is not canonical base64url"),
    ]
    record = good_record().to_dict(camel=True)
    record.update(every_fault)
    for key, reason in order:
        assert verify_transcript_record(record).reason == reason
        record[key] = good_record()[key]
    # unsigned is checked before the nonce form, and the sender key after the signature form
    unsigned = replace(good_record(), nonce="01", signature=None)
    assert verify_transcript_record(unsigned).reason == "record is unsigned"
    bad_sig_form = replace(good_record(), sender="nick", signature="bad")
    reason = verify_transcript_record(bad_sig_form).reason
    assert reason == "record signature is not canonical base64url"


def test_verify_accepts_records_as_mappings_and_integral_values() -> None:
    record = good_record()
    assert verify_transcript_record(record.to_dict(camel=True)).ok
    assert verify_transcript_record(record.to_dict()).ok  # snake_case keys too
    assert verify_transcript_record(replace(record, seq=1.0, timestampMs=float(NOW - 1))).ok
    assert verify_transcript_record(replace(record, nonce=10_001)).ok  # rendered as its digits
    assert verify_transcript_record(replace(record, room="a" * 48)).reason == (
        "record signature does not verify"
    )


def test_verify_result_shapes() -> None:
    result = verify_transcript_record(None)
    ok, reason = result
    assert (ok, reason) == (False, "record is not an object")
    assert not result
    assert result["reason"] == reason
    assert verify_transcript_record(good_record())


def test_verify_never_raises_on_lone_surrogates() -> None:
    record = replace(good_record(), line="tclk1 \ud800")
    assert verify_transcript_record(record).reason == "record signature does not verify"
    assert signed_message("r", "1", "\ud800") == "r|1|\ufffd".encode()


def test_small_order_key_is_refused() -> None:
    # the identity point as a "public key": RFC-strict verification refuses it
    from tclk_tui.protocol.didkey import did_key_from_public_key

    identity = did_key_from_public_key(b"\x01" + b"\x00" * 31)
    record = replace(good_record(), sender=identity, signature="A" * 86)
    assert verify_transcript_record(record).reason == "record signature does not verify"


# ------------------------------------------------------------------------- transcript_record


def message(**fields: Any) -> dict[str, Any]:
    base = {
        "seq": 7,
        "ts": "2026-01-02T03:04:05.664463Z",
        "from": PAYER,
        "text": "hello",
        "nonce": 1_767_323_045_664_000_001,
        "sig": "A" * 86,
    }
    base.update(fields)
    return {k: v for k, v in base.items() if v is not _DROP}


_DROP = object()
SEQ_ERROR = "tclk: transcript message seq must be a non-negative safe integer"


def test_transcript_record_normalises_a_venue_message() -> None:
    record = transcript_record("tclk-offers", message(extra="ignored"))
    assert record == TranscriptRecord(
        room="tclk-offers",
        seq=7,
        timestamp_ms=1_767_323_045_664,
        sender=PAYER,
        nonce="1767323045664000001",
        signature="A" * 86,
        line="hello",
    )
    assert record["timestampMs"] == 1_767_323_045_664


def test_transcript_record_keeps_big_integer_nonces_exact() -> None:
    # Divergence from the TS reference, which rejects numeric nonces above 2**53 - 1 (its JSON
    # parser has already rounded them). Python keeps them exact, so real exports stay readable.
    assert transcript_record("r", message(nonce=2**53 + 1)).nonce == "9007199254740993"
    assert transcript_record("r", message(nonce=10**30)).nonce == "1" + "0" * 30
    assert transcript_record("r", message(nonce=-5)).nonce == "-5"  # refused later by verify
    assert transcript_record("r", message(nonce=5.0)).nonce == "5"
    assert transcript_record("r", message(nonce="0017")).nonce == "0017"  # verbatim
    assert transcript_record("r", message(nonce=None)).nonce is None
    assert transcript_record("r", message(nonce=_DROP, sig=_DROP)).signature is None


@pytest.mark.parametrize(
    ("room", "msg", "error"),
    [
        ("Bad Room", message(), 'tclk: invalid transcript room "Bad Room"'),
        ("", message(), 'tclk: invalid transcript room ""'),
        (None, message(), "tclk: invalid transcript room null"),
        ("r", None, "tclk: transcript message is not a JSON object"),
        ("r", [message()], "tclk: transcript message is not a JSON object"),
        ("r", message(seq=-1), SEQ_ERROR),
        ("r", message(seq=1.5), SEQ_ERROR),
        ("r", message(seq=2**53), SEQ_ERROR),
        ("r", message(seq=True), SEQ_ERROR),
        ("r", message(seq=_DROP), SEQ_ERROR),
        ("r", message(ts=_DROP), "tclk: transcript message has no timestamp"),
        ("r", message(ts=1767323045664), "tclk: transcript message has no timestamp"),
        ("r", message(**{"from": _DROP}), "tclk: transcript message has no sender"),
        ("r", message(text=None), "tclk: transcript message has no text"),
        ("r", message(nonce=True), "tclk: transcript message nonce must be decimal text"),
        ("r", message(nonce=1.5), "tclk: transcript message nonce must be decimal text"),
        ("r", message(nonce=1e20), "tclk: transcript message nonce must be decimal text"),
        ("r", message(nonce=[1]), "tclk: transcript message nonce must be decimal text"),
        ("r", message(sig=5), "tclk: transcript message signature must be text"),
    ],
)
def test_transcript_record_errors(room: Any, msg: Any, error: str) -> None:
    with pytest.raises(TclkError) as raised:
        transcript_record(room, msg)
    assert str(raised.value) == error


def test_transcript_record_seq_integral_float_is_an_integer() -> None:
    record = transcript_record("r", message(seq=1.0))
    assert record.seq == 1 and isinstance(record.seq, int)


@pytest.mark.parametrize(
    ("ts", "ms"),
    [
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T00:00:00.000Z", 0),
        ("2026-01-02T03:04:05Z", 1_767_323_045_000),
        ("2026-01-02T03:04:05.5Z", 1_767_323_045_500),
        ("2026-01-02T03:04:05.664463Z", 1_767_323_045_664),
        ("2026-01-02T03:04:05.9999999Z", 1_767_323_045_999),
        ("2026-01-02T04:04:05+01:00", 1_767_323_045_000),
        ("2026-01-01T21:34:05-05:30", 1_767_323_045_000),
        ("2026-01-02T03:04:05+00:00", 1_767_323_045_000),
        ("1969-12-31T23:30:00-01:00", 1_800_000),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000),
        ("2026-12-31T23:59:59.999Z", 1_798_761_599_999),
    ],
)
def test_timestamps(ts: str, ms: int) -> None:
    assert parse_timestamp_ms(ts) == ms
    assert transcript_record("r", message(ts=ts)).timestamp_ms == ms


@pytest.mark.parametrize(
    "ts",
    [
        "2026-01-02T03:04:05",  # zone-less
        "2026-01-02T03:04:05.664463",
        "2026-01-02 03:04:05Z",
        "2026-01-02t03:04:05Z",
        "2026-01-02T03:04:05z",
        "2026-01-02T03:04:05+0100",
        "2026-01-02T03:04:60Z",  # no leap second
        "2026-01-02T24:00:00Z",
        "2026-13-02T03:04:05Z",
        "2026-01-32T03:04:05Z",
        "2026-01-02T03:04:05.Z",
        "+02026-01-02T03:04:05Z",
        "26-01-02T03:04:05Z",
        "on the second of January",
        "2026-01-02T03:04:05Z ",
        "\u0662026-01-02T03:04:05Z",
    ],
)
def test_timestamps_that_are_not_timezone_qualified_rfc_3339(ts: str) -> None:
    expected = r"^tclk: transcript message timestamp must be timezone-qualified RFC 3339$"
    with pytest.raises(TclkError, match=expected):
        transcript_record("r", message(ts=ts))


@pytest.mark.parametrize(
    "ts",
    [
        # the reference's Date.parse rolls these over; a strict calendar refuses them instead
        "2026-02-30T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        # before 1970
        "1969-12-31T23:59:59.999Z",
        "1970-01-01T00:30:00+01:00",
        "0000-01-01T00:00:00Z",
    ],
)
def test_timestamps_that_are_invalid(ts: str) -> None:
    with pytest.raises(TclkError, match=r"^tclk: transcript message timestamp is invalid$"):
        transcript_record("r", message(ts=ts))


# ------------------------------------------------------------------------------------ export


def export_row(
    seq: int, ts: str, sender: str, text: str, nonce: int | None, sig: str | None
) -> str:
    row: dict[str, Any] = {"seq": seq, "ts": ts, "from": sender, "text": text}
    if nonce is not None:
        row["nonce"] = nonce
        row["sig"] = sig
    return json.dumps(row, separators=(",", ":"), ensure_ascii=False)


def test_export_with_19_digit_nonces_parses_exactly_and_verifies() -> None:
    nonce = 1_735_000_000_000_000_123
    line = encode_frame(OFFER)
    sig = sign(PAYER, OFFER_ROOM, str(nonce), line)
    jsonl = (
        export_row(1, "2024-12-24T00:26:40.000000Z", "guest-1", "hi \u00e9", None, None)
        + "\n"
        + export_row(2, "2024-12-24T00:26:40.123456Z", PAYER, line, nonce, sig)
        + "\n"
    )
    records = parse_transcript_export(OFFER_ROOM, jsonl)
    assert [r.seq for r in records] == [1, 2]
    assert records[0].nonce is None and records[0].line == "hi \u00e9"
    assert records[1].nonce == str(nonce)
    assert records[1].timestamp_ms == 1_735_000_000_123
    assert verify_transcript_record(records[1]).ok
    assert verify_transcript_record(records[0]).reason == "record is unsigned"


def test_export_blank_lines_are_skipped_but_counted() -> None:
    good = export_row(1, "2024-12-24T00:26:40Z", PAYER, "x", None, None)
    jsonl = "\n  \n\ufeff\n" + good + "\r\n" + "{not json}\n"
    with pytest.raises(TclkError) as raised:
        parse_transcript_export("r", jsonl)
    assert str(raised.value) == "tclk: transcript export line 5 is not JSON"
    assert len(parse_transcript_export("r", "\n\n" + good + "\r\n\n")) == 1


def test_export_normalisation_errors_name_the_line() -> None:
    zoneless = export_row(1, "2024-12-24T00:26:40.123456", PAYER, "x", None, None)
    with pytest.raises(TclkError) as raised:
        parse_transcript_export("r", "\n" + zoneless)
    assert str(raised.value) == (
        "tclk: transcript export line 2: transcript message timestamp must be timezone-qualified"
        " RFC 3339"
    )
    prose = export_row(1, "Tuesday, noon", PAYER, "x", None, None)
    with pytest.raises(TclkError, match="timezone-qualified"):
        parse_transcript_export("r", prose)
    with pytest.raises(TclkError) as raised:
        parse_transcript_export("Bad", zoneless)
    assert str(raised.value) == 'tclk: transcript export line 1: invalid transcript room Bad'


def test_export_refuses_non_json_constants_and_non_objects() -> None:
    nan_seq = '{"seq":NaN,"ts":"2024-12-24T00:26:40Z","from":"a","text":"x"}'
    with pytest.raises(TclkError, match=r"^tclk: transcript export line 1 is not JSON$"):
        parse_transcript_export("r", nan_seq)
    with pytest.raises(TclkError, match=r"^tclk: transcript export line 1: transcript message is"):
        parse_transcript_export("r", "[1,2]")


def test_empty_export_is_empty_without_checking_the_room() -> None:
    assert parse_transcript_export("Not A Room", "") == []
    assert parse_transcript_export("Not A Room", "\n \n") == []


# -------------------------------------------------------------------------------------- fold


def test_fold_vector_rebuilds_the_lines_and_verifies_the_signatures() -> None:
    records = vector_records()
    assert records[0].line == VECTOR_OFFER_LINE
    assert records[1].line == VECTOR_ACCEPT_LINE
    assert OFFER["id"] == OFFER_ID and ACCEPT["contract"] == CONTRACT
    assert deal_room(CONTRACT) == DEAL
    for record in records:
        assert verify_transcript_record(record).ok
    fold = fold_transcript(records)
    assert fold.state is not None and fold.state.status == "claimed"
    assert fold.steps == (
        FoldStep(0, OFFER_ROOM, 1, "offer", True, None),
        FoldStep(1, OFFER_ROOM, 2, "accept", True, None),
        FoldStep(2, DEAL, 1, "lock", True, None),
        FoldStep(3, DEAL, 2, "reveal", True, None),
    )
    assert fold.state.secret == PREIMAGE
    assert fold["steps"][2]["type"] == "lock"
    rebuilt = FoldStep(3, DEAL, 2, "reveal", True, None)
    assert (repr(fold.steps[3]), hash(fold.steps[3])) == (repr(rebuilt), hash(rebuilt))
    with pytest.raises(AttributeError):
        fold.steps[3].ok = False  # type: ignore[misc]


def test_fold_of_nothing_opens_nothing() -> None:
    assert fold_transcript([]) == Fold(None, ())


def test_fold_unknown_room_binding() -> None:
    with pytest.raises(TclkError) as raised:
        fold_transcript([], room_binding="loose")
    assert str(raised.value) == "tclk: unknown roomBinding loose"


def test_fold_step_reasons_before_the_machine() -> None:
    unsigned = TranscriptRecord(OFFER_ROOM, 3, NOW, PAYER, None, None, encode_frame(OFFER))
    tampered = vector_records()[0]
    tampered = TranscriptRecord(**{**tampered.to_dict(), "line": tampered.line + " "})
    chat = rec(OFFER_ROOM, NOW, PAYER, "good morning, traders")
    # a forged sender: the payee signs a lock frame that claims to come from the payer
    forged = rec(DEAL, NOW + 1, PAYEE, LOCK)
    fold = fold_transcript([unsigned, tampered, chat, "junk", None, forged, *vector_records()])
    assert statuses(fold)[:6] == [
        (False, "record is unsigned"),
        (False, "record signature does not verify"),
        (False, "tclk: not a tclk/1 line"),
        (False, "record is not an object"),
        (False, "record is not an object"),
        (False, "lock.from does not match the record sender"),
    ]
    assert [s.type for s in fold.steps[:6]] == [None, None, None, None, None, "lock"]
    assert (fold.steps[3].room, fold.steps[3].seq) == ("", -1)
    assert fold.state is not None and fold.state.status == "claimed"


def test_fold_decode_failures_use_the_decoder_message() -> None:
    bad = rec(OFFER_ROOM, NOW, PAYER, "tclk1 {not json")
    fold = fold_transcript([bad])
    assert statuses(fold) == [(False, "tclk: frame is not valid JSON")]


def test_fold_the_reference_crash_line_is_a_failed_step() -> None:
    line = f'tclk1 {{"contract":0,"from":"{PAYER}","rail":0,"ref":0,"type":["lock"]}}'
    crash = rec(DEAL, NOW + 1, PAYER, line)
    records = vector_records()
    fold = fold_transcript([*records[:2], crash, *records[2:]])
    assert fold.steps[2].ok is False
    assert fold.steps[2].reason is not None and fold.steps[2].reason.startswith("tclk: ")
    assert fold.state is not None and fold.state.status == "claimed"
    for binding in ("strict", "offer-room"):
        assert fold_transcript([crash], room_binding=binding).steps[0].ok is False


def test_fold_no_contract_yet_and_offers_outside_the_board() -> None:
    fold = fold_transcript([
        rec(DEAL, NOW, PAYER, LOCK),
        rec(OFFER_ROOM, NOW, PAYEE, ACCEPT),
        rec(DEAL, NOW, PAYER, OFFER),
        rec(OFFER_ROOM, NOW, PAYER, OFFER),
    ])
    assert statuses(fold) == [
        (False, "no contract open yet"),
        (False, "no contract open yet"),
        (False, "offer must be posted in tclk-offers"),
        (True, None),
    ]
    assert fold.state is not None and fold.state.status == "proposed"


def test_fold_room_binding_strict() -> None:
    fold = fold_transcript([
        rec(OFFER_ROOM, NOW - 1, PAYER, OFFER),
        rec(DEAL, NOW - 1, PAYER, LOCK),  # before any accept everything belongs on the board
        rec(DEAL, NOW, PAYEE, ACCEPT),
        rec(OFFER_ROOM, NOW, PAYEE, ACCEPT),
        rec(OFFER_ROOM, NOW + 1, PAYER, LOCK),
        rec("mb-p-tclk-0000000000000000", NOW + 1, PAYER, LOCK),
        rec(DEAL, NOW + 1, PAYER, OFFER),
        rec(OFFER_ROOM, NOW + 1, PAYER, OFFER),
        rec(DEAL, NOW + 1, PAYER, LOCK),
    ])
    assert statuses(fold) == [
        (True, None),
        (False, "lock must be posted in tclk-offers"),
        (False, "accept must be posted in tclk-offers"),
        (True, None),
        (False, f"lock must be posted in the derived deal room {DEAL}"),
        (False, f"lock must be posted in the derived deal room {DEAL}"),
        (False, "offer must be posted in tclk-offers"),
        (False, "contract is already open"),
        (True, None),
    ]
    assert fold.state is not None and fold.state.status == "locked"


def test_fold_room_binding_offer_room() -> None:
    fold = fold_transcript(
        [
            rec(OFFER_ROOM, NOW - 1, PAYER, OFFER),
            rec(OFFER_ROOM, NOW, PAYEE, ACCEPT),
            rec(DEAL, NOW + 1, PAYER, LOCK),
            rec(OFFER_ROOM, NOW + 1, PAYER, LOCK),
            rec(OFFER_ROOM, NOW + 2, PAYEE, REVEAL),
        ],
        room_binding="offer-room",
    )
    assert statuses(fold) == [
        (True, None),
        (True, None),
        (False, "lock must be posted in tclk-offers"),
        (True, None),
        (True, None),
    ]
    assert fold.state is not None and fold.state.status == "claimed"


def test_fold_frames_for_other_deals_on_a_shared_board() -> None:
    other_offer = {**OFFER, "nonce": "ffffffffffffffff"}
    del other_offer["id"]
    other_offer["id"] = offer_id(other_offer)
    other_core = {**ACCEPT_CORE, "ref": other_offer["id"]}
    other_contract = contract_id(other_offer, other_core)
    other_accept = {"type": "accept", **other_core, "contract": other_contract}
    other_lock = {**LOCK, "contract": other_accept["contract"]}
    fold = fold_transcript(
        [
            *board(),
            rec(OFFER_ROOM, NOW, PAYER, other_offer),
            rec(OFFER_ROOM, NOW, PAYEE, other_accept),
            rec(OFFER_ROOM, NOW + 1, PAYER, other_lock),
        ],
        room_binding="offer-room",
    )
    assert statuses(fold)[2:] == [
        (False, "contract is already open"),
        (False, "accept in status accepted"),
        (False, "lock names a different contract"),
    ]
    before_accept = fold_transcript(
        [rec(OFFER_ROOM, NOW, PAYER, OFFER), rec(OFFER_ROOM, NOW, PAYEE, other_accept)]
    )
    assert statuses(before_accept)[1] == (False, "accept.ref names a different offer")


@pytest.mark.parametrize("cancel_first", [True, False])
def test_same_ms_board_cancel_versus_deal_room_lock(cancel_first: bool) -> None:
    cancel_frame = {"type": "cancel", "from": PAYEE, "contract": CONTRACT}
    cancel = rec(OFFER_ROOM, NOW + 1, PAYEE, cancel_frame)
    lock = rec(DEAL, NOW + 1, PAYER, LOCK)
    tail = [cancel, lock] if cancel_first else [lock, cancel]
    strict = fold_transcript([*board(), *tail])
    offer_room = fold_transcript([*board(), *tail], room_binding="offer-room")
    assert strict.state is not None and strict.state.status == "locked"
    assert offer_room.state is not None and offer_room.state.status == "cancelled"
    by_type = {s.type: s for s in strict.steps[2:]}
    assert by_type["cancel"].reason == f"cancel must be posted in the derived deal room {DEAL}"
    by_type = {s.type: s for s in offer_room.steps[2:]}
    assert by_type["lock"].reason == "lock must be posted in tclk-offers"


def test_refund_stamped_exactly_at_refund_after_folds_to_refunded() -> None:
    refund = {"type": "refund", "from": PAYER, "contract": CONTRACT, "ref": "escrow-42"}
    lock = rec(DEAL, NOW + 1, PAYER, LOCK)
    early = fold_transcript([*board(), lock, rec(DEAL, REFUND_AFTER - 1, PAYER, refund)])
    assert statuses(early)[-1] == (False, "refund window not open yet")
    exact = fold_transcript([*board(), lock, rec(DEAL, REFUND_AFTER, PAYER, refund)])
    assert exact.state is not None and exact.state.status == "refunded"
    late_reveal = fold_transcript([*board(), lock, rec(DEAL, REFUND_AFTER, PAYEE, REVEAL)])
    assert statuses(late_reveal)[-1] == (False, "refund window is open")


def test_fold_deadlines_use_the_record_time() -> None:
    late_accept = fold_transcript([board()[0], rec(OFFER_ROOM, EXPIRES, PAYEE, ACCEPT)])
    assert statuses(late_accept)[-1] == (False, "offer has expired")
    in_time = fold_transcript([board()[0], rec(OFFER_ROOM, EXPIRES - 1, PAYEE, ACCEPT)])
    assert statuses(in_time)[-1] == (True, None)


def test_fold_takes_any_iterable_and_mapping_records() -> None:
    records = [r.to_dict(camel=True) for r in vector_records()]
    fold = fold_transcript(iter(records))
    assert fold.state is not None and fold.state.status == "claimed"


def test_fold_steps_and_fold_read_like_mappings() -> None:
    fold = fold_transcript(vector_records())
    step = fold.steps[0]
    assert step["index"] == 0 and step["room"] == OFFER_ROOM and step.get("reason") is None
    assert step.to_dict() == {
        "index": 0, "room": OFFER_ROOM, "seq": 1, "type": "offer", "ok": True, "reason": None,
    }
    assert "secret" not in repr(fold).replace("secret=<redacted>", "")
    plain = fold.to_dict(camel=True)
    assert plain["steps"][3] == {
        "index": 3, "room": DEAL, "seq": 2, "type": "reveal", "ok": True, "reason": None,
    }
    assert plain["state"]["payeeDid"] == PAYEE and plain["state"]["railRef"] == "escrow-42"
    json.dumps(plain)  # plain data all the way down
    assert PREIMAGE[2:] not in repr(fold)


# --------------------------------------------------------------------------------- handshake


def test_handshake_pairs_the_authenticated_offer_and_accept() -> None:
    records = vector_records()
    found = find_contract_handshake(records, CONTRACT)
    assert found == Handshake(records[0], records[1])
    assert found is not None and found["accept"] is records[1]
    assert find_contract_handshake(records, "0x" + "ab" * 32) is None


def test_handshake_refuses_a_malformed_contract() -> None:
    with pytest.raises(FrameError, match="malformed contract id"):
        find_contract_handshake(vector_records(), "0xABC")


def test_handshake_accept_before_its_offer_raises() -> None:
    offer_rec, accept_rec = board()
    with pytest.raises(TclkError) as raised:
        find_contract_handshake([accept_rec, offer_rec], CONTRACT)
    assert str(raised.value) == f"tclk: accept for {CONTRACT} has no preceding authenticated offer"
    # a later accept after the offer still pairs
    again = rec(OFFER_ROOM, NOW + 5, PAYEE, ACCEPT)
    assert find_contract_handshake([accept_rec, offer_rec, again], CONTRACT) == Handshake(
        offer_rec, again
    )


def test_handshake_skips_a_strangers_copied_contract_accept() -> None:
    # Stricter than the reference: it returns the first accept whose contract *field* matches.
    offer_rec, real = board()
    copied = {
        "type": "accept",
        "from": STRANGER,
        "ref": OFFER["id"],
        "statement": "0x" + "99" * 32,
        "nonce": "deadbeefdeadbeef",
        "contract": CONTRACT,
    }
    stranger = rec(OFFER_ROOM, NOW - 1, STRANGER, copied)
    found = find_contract_handshake([offer_rec, stranger, real], CONTRACT)
    assert found == Handshake(offer_rec, real)
    assert find_contract_handshake([offer_rec, stranger], CONTRACT) is None
    fold = fold_transcript([found.offer, found.accept, rec(DEAL, NOW + 1, PAYER, LOCK)])
    assert fold.state is not None and fold.state.status == "locked"


def test_handshake_ignores_unauthenticated_and_misplaced_records() -> None:
    offer_rec, accept_rec = board()
    unsigned = TranscriptRecord(OFFER_ROOM, 1, NOW, PAYER, None, None, encode_frame(OFFER))
    forged = rec(OFFER_ROOM, NOW, STRANGER, ACCEPT)  # stranger signs the payee's accept
    elsewhere = rec(DEAL, NOW, PAYEE, ACCEPT)
    with pytest.raises(TclkError):
        find_contract_handshake([unsigned, accept_rec], CONTRACT)
    assert find_contract_handshake([offer_rec, forged, elsewhere], CONTRACT) is None
    assert find_contract_handshake([offer_rec, "junk", None, accept_rec], CONTRACT) == Handshake(
        offer_rec, accept_rec
    )


def test_handshake_over_mapping_records_returns_records() -> None:
    offer_rec, accept_rec = board()
    found = find_contract_handshake(
        [offer_rec.to_dict(camel=True), accept_rec.to_dict(camel=True)], CONTRACT
    )
    assert found == Handshake(offer_rec, accept_rec)


def test_handshake_first_offer_occurrence_wins() -> None:
    first = rec(OFFER_ROOM, NOW - 2, PAYER, OFFER, seq=1)
    second = rec(OFFER_ROOM, NOW - 1, PAYER, OFFER, seq=2)
    accept_rec = rec(OFFER_ROOM, NOW, PAYEE, ACCEPT, seq=3)
    found = find_contract_handshake([first, second, accept_rec], CONTRACT)
    assert found is not None and found.offer is first


# ------------------------------------------------------------------------------- nonce order


def test_nonce_order_strictly_increasing_per_room_and_sender() -> None:
    room = DEAL
    line = encode_frame(LOCK)
    a = rec(room, NOW, PAYER, line, nonce="9")
    b = rec(room, NOW, PAYER, line, nonce="10")
    c = rec(room, NOW, PAYER, line, nonce="10")
    d = rec(room, NOW, PAYER, line, nonce="3")
    other_signer = rec(room, NOW, PAYEE, encode_frame(REVEAL), nonce="1")
    other_room = rec(OFFER_ROOM, NOW, PAYER, line, nonce="1")
    unsigned = TranscriptRecord(room, 1, NOW, PAYER, None, None, line)
    violations = check_nonce_order([a, other_signer, b, other_room, unsigned, c, d])
    assert violations == [
        NonceViolation(room, PAYER, 5, 2, "10", "10"),  # equal counts
        NonceViolation(room, PAYER, 6, 5, "3", "10"),
    ]
    assert violations[0]["previousIndex"] == 2
    assert check_nonce_order([a, b]) == []
    assert check_nonce_order([]) == []


def test_nonce_order_compares_big_nonces_as_integers() -> None:
    line = encode_frame(LOCK)
    small = rec(DEAL, NOW, PAYER, line, nonce="999999999999999999999")
    big = rec(DEAL, NOW, PAYER, line, nonce="1000000000000000000000")
    assert check_nonce_order([small, big]) == []
    assert [v.index for v in check_nonce_order([big, small])] == [1]


def test_nonce_order_ignores_unverified_records() -> None:
    line = encode_frame(LOCK)
    good = rec(DEAL, NOW, PAYER, line, nonce="50")
    bad = TranscriptRecord(DEAL, 2, NOW, PAYER, "40", "A" * 86, line)
    assert check_nonce_order([good, bad]) == []


# ----------------------------------------------------------------------------------- fuzzing

texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from([encode_frame(f) for f in (OFFER, ACCEPT, LOCK, REVEAL)]),
    st.builds(lambda s: "tclk1 " + s, st.text(max_size=40)),
)
frames = st.sampled_from(
    [
        OFFER,
        ACCEPT,
        LOCK,
        REVEAL,
        {"type": "refund", "from": PAYER, "contract": CONTRACT},
        {"type": "cancel", "from": PAYEE, "contract": CONTRACT},
        {"type": "receipt", "from": PAYER, "contract": CONTRACT, "outcome": "claimed"},
        {"type": "heartbeat", "from": PAYEE, "contract": CONTRACT, "nonce": "0123456789abcdef"},
        f'tclk1 {{"contract":0,"from":"{PAYER}","rail":0,"ref":0,"type":["lock"]}}',
        "tclk1 {}",
        "hello",
    ]
)
signed_records = st.builds(
    lambda room, ts, signer, f, claimed: rec(
        room, ts, signer, f, sender=claimed if claimed else None
    ),
    st.sampled_from([OFFER_ROOM, DEAL, "mb-p-tclk-0000000000000000"]),
    st.sampled_from([0, NOW - 1, NOW, EXPIRES, REFUND_AFTER - 1, REFUND_AFTER, 2**53 - 1]),
    st.sampled_from(list(KEYS)),
    frames,
    st.sampled_from([None, None, None, PAYER, PAYEE]),
)
raw_records = st.builds(
    TranscriptRecord,
    st.text(max_size=12),
    st.integers(min_value=-2, max_value=2**54),
    st.integers(min_value=-2, max_value=2**54),
    st.sampled_from([PAYER, PAYEE, "nick", ""]),
    st.one_of(st.none(), st.text(max_size=5)),
    st.one_of(st.none(), st.text(max_size=90)),
    texts,
)
junk = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=10),
    st.dictionaries(st.text(max_size=12), st.one_of(st.none(), st.integers(), st.text(max_size=10)),
                    max_size=8),
)
any_record = st.one_of(signed_records, signed_records, raw_records, junk)


@settings(max_examples=150, deadline=None)
@given(st.lists(any_record, max_size=12), st.sampled_from(["strict", "offer-room"]))
def test_fold_never_raises(records: list[Any], binding: str) -> None:
    fold = fold_transcript(records, room_binding=binding)
    assert len(fold.steps) == len(records)
    for index, step in enumerate(fold.steps):
        assert step.index == index
        assert isinstance(step.ok, bool)
        assert step.ok or (isinstance(step.reason, str) and step.reason)
    if fold.state is not None:
        assert fold.state.offer["id"] == OFFER["id"]
    check_nonce_order(records)
    try:
        find_contract_handshake(records, CONTRACT)
    except TclkError as exc:
        assert "has no preceding authenticated offer" in str(exc)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=60), st.sampled_from(["", "\n", "{}", "[]", "null"]))))
def test_parse_export_only_raises_tclk_errors(lines: list[str]) -> None:
    try:
        records = parse_transcript_export("r", "\n".join(lines))
    except TclkError:
        return
    fold_transcript(records)


_B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_ONE_OFF_B64 = st.builds(  # a canonical shape with one letter swapped for a near miss
    lambda body, last, at, junk: (body + last)[:at] + junk + (body + last)[at + 1:],
    st.text(alphabet=_B64URL, min_size=85, max_size=85), st.sampled_from("AQgw"),
    st.integers(0, 85), st.sampled_from("+/= \n!\u00e9\u0663\ud800-_B"),
)
_NEAR_B64 = st.one_of(
    _ONE_OFF_B64,
    st.text(alphabet=_B64URL + "+/= \n!\u00e9\u0663\ud800", min_size=84, max_size=88),
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_NEAR_B64, st.text(alphabet=_B64URL, min_size=86, max_size=86),
                 st.text(max_size=90)))
def test_signature_text_is_refused_exactly_when_it_is_not_canonical_base64url(text: str) -> None:
    from tclk_tui.protocol.transcript import SIGNATURE_RE

    record = {"room": OFFER_ROOM, "seq": 1, "timestampMs": 1, "line": "tclk1 {}",
              "sender": PAYER, "nonce": "1", "signature": text}
    shape_refused = verify_transcript_record(record).reason == (
        "record signature is not canonical base64url"
    )
    assert shape_refused == (SIGNATURE_RE.fullmatch(text) is None)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet="0123456789", max_size=25),
                 st.text(alphabet="0123456789 -+.\u0663\u00b2x\n", max_size=8),
                 st.text(max_size=8)))
def test_nonce_text_is_refused_exactly_when_it_is_not_canonical_decimal(text: str) -> None:
    from tclk_tui.protocol.transcript import RECORD_NONCE_RE

    record = {"room": OFFER_ROOM, "seq": 1, "timestampMs": 1, "line": "tclk1 {}",
              "sender": PAYER, "nonce": text, "signature": "A" * 86}
    refused = verify_transcript_record(record).reason == "record nonce is not canonical decimal"
    assert refused == (RECORD_NONCE_RE.fullmatch(text) is None)
