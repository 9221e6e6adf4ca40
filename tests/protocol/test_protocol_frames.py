"""validate_frame: check order, reference messages, quirks kept and divergences chosen.

Also holds the hypothesis strategies for valid frames that the codec and schema tests reuse.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from tclk_tui.protocol import secp
from tclk_tui.protocol.codec import decode_frame, encode_frame
from tclk_tui.protocol.errors import FrameError
from tclk_tui.protocol.frames import FRAME_FIELDS, FRAME_TYPES, js_own_keys, validate_frame
from tclk_tui.protocol.ids import contract_id, offer_id
from tclk_tui.protocol.rails import RAIL_REGISTRY

VECTORS_PATH = Path(__file__).resolve().parents[1] / "vectors" / "tclk-v1.golden.json"
GOLDEN: dict[str, dict[str, Any]] = json.loads(VECTORS_PATH.read_text("utf-8"))["vectors"]

PAYER = "did:key:z6Mk" + "f" * 44
PAYEE = "did:key:z6Mk" + "g" * 44
CONTRACT = GOLDEN["accept"]["frame"]["contract"]
G_HEX = "0x" + secp.G.hex()  # the generator: a valid compressed point
OFF_CURVE = "0x02" + "ff" * 32  # x >= p, so no point


def golden(kind: str) -> dict[str, Any]:
    return copy.deepcopy(GOLDEN[kind]["frame"])


def with_id(offer: dict[str, Any]) -> dict[str, Any]:
    """Re-derive an offer's id after a test changed it, so only the change under test fails."""
    offer["id"] = offer_id(offer)
    return offer


def reason(frame: Any) -> str:
    with pytest.raises(FrameError) as caught:
        validate_frame(frame)
    return str(caught.value)


# --- strategies (imported by the codec and schema tests) -----------------------------------

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
HEX = "0123456789abcdef"
_PAIRED_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]")

dids = st.text(alphabet=B58, min_size=44, max_size=44).map(lambda s: "did:key:z6Mk" + s)
hex32s = st.text(alphabet=HEX, min_size=64, max_size=64).map(lambda s: "0x" + s)
points = st.integers(1, secp.N - 1).map(lambda k: "0x" + secp.scalar_base_mult(k).hex())
nonces = st.text(alphabet=HEX, min_size=8, max_size=64)
free_text = st.text(
    alphabet=st.characters(exclude_categories=(), exclude_characters="\x7f"),
    min_size=1,
    max_size=12,
).filter(lambda s: _PAIRED_SURROGATES.search(s) is None)
"""Any non-empty text the encoder can emit: controls, non-ASCII, astral, lone surrogates; no
DEL (refused on emission) and no high+low surrogate spelled as two code points (JavaScript
would read those as one character, so they cannot round-trip as two)."""
unix_ms = st.integers(1, 2**53 - 1)
canonical_rail_lists = st.lists(st.sampled_from(RAIL_REGISTRY), min_size=1, unique=True)
jobs = st.fixed_dictionaries(
    {
        "proto": st.from_regex(r"[a-z0-9][a-z0-9._-]{0,31}", fullmatch=True),
        "id": free_text,
    },
    optional={"context": free_text},
)
presigs = st.fixed_dictionaries(
    {"nonce": points, "s": st.binary(min_size=1, max_size=32).map(lambda b: "0x" + b.hex())}
)


@st.composite
def offers(draw: st.DrawFn) -> dict[str, Any]:
    claim_by, refund_after = sorted(draw(st.lists(unix_ms, min_size=2, max_size=2, unique=True)))
    lock = draw(st.sampled_from(["hash", "point"]))
    frame: dict[str, Any] = {
        "type": "offer",
        "from": draw(dids),
        "role": draw(st.sampled_from(["payer", "payee"])),
        "amount": str(draw(st.integers(1, 10**40))),
        "asset": draw(st.from_regex(r"[A-Za-z0-9_-]{1,32}", fullmatch=True)),
        "lock": lock,
        "rails": draw(canonical_rail_lists),
        "claimByMs": claim_by,
        "refundAfterMs": refund_after,
        "expiresMs": draw(unix_ms),
        "nonce": draw(nonces),
    }
    if lock == "point" or draw(st.booleans()):
        frame["paymentKey"] = draw(points)
    if draw(st.booleans()):
        frame["job"] = draw(jobs)
    return with_id(frame)


def _optional(draw: st.DrawFn, frame: dict[str, Any], key: str, strategy: Any) -> None:
    if draw(st.booleans()):
        frame[key] = draw(strategy)


@st.composite
def deal_frames(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(FRAME_TYPES[1:]))
    frame: dict[str, Any] = {"type": kind, "from": draw(dids), "contract": draw(hex32s)}
    if kind == "accept":
        frame["ref"] = draw(hex32s)
        frame["statement"] = draw(st.one_of(hex32s, points))
        frame["nonce"] = draw(nonces)
        _optional(draw, frame, "paymentKey", points)
    elif kind == "lock":
        frame["rail"] = draw(st.sampled_from(RAIL_REGISTRY))
        frame["ref"] = draw(free_text)
        _optional(draw, frame, "presig", presigs)
    elif kind == "reveal":
        frame["secret"] = draw(hex32s)
        _optional(draw, frame, "ref", free_text)
    elif kind == "refund":
        _optional(draw, frame, "ref", free_text)
        _optional(draw, frame, "reason", free_text)
    elif kind == "cancel":
        _optional(draw, frame, "reason", free_text)
    elif kind == "receipt":
        frame["outcome"] = draw(st.sampled_from(["claimed", "refunded", "cancelled"]))
        _optional(draw, frame, "rail", st.sampled_from(RAIL_REGISTRY))
        _optional(draw, frame, "ref", free_text)
    else:
        frame["nonce"] = draw(nonces)
        _optional(draw, frame, "note", free_text)
    return frame


valid_frames = st.one_of(offers(), deal_frames())
"""Frames `encode_frame` accepts (canonical unique rails, no DEL)."""


# --- the field table -----------------------------------------------------------------------


def test_field_table_is_the_spec_table() -> None:
    table = {
        "offer": (
            "type from role amount asset lock rails claimByMs refundAfterMs expiresMs nonce id",
            "paymentKey job",
        ),
        "accept": ("type from ref statement contract nonce", "paymentKey"),
        "lock": ("type from contract rail ref", "presig"),
        "reveal": ("type from contract secret", "ref"),
        "refund": ("type from contract", "ref reason"),
        "cancel": ("type from contract", "reason"),
        "receipt": ("type from contract outcome", "rail ref"),
        "heartbeat": ("type from contract nonce", "note"),
    }
    assert set(FRAME_FIELDS) == set(table) == set(FRAME_TYPES)
    for kind, (required, optional) in table.items():
        assert FRAME_FIELDS[kind].required == tuple(required.split())
        assert FRAME_FIELDS[kind].optional == tuple(optional.split())


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_golden_frames_validate_and_come_back_unchanged(kind: str) -> None:
    frame = golden(kind)
    assert validate_frame(frame) is frame
    assert frame == GOLDEN[kind]["frame"]


# --- steps 1-3: object, type, keys ----------------------------------------------------------


@pytest.mark.parametrize("value", [None, [], [1], "offer", 1, 0, True, False, ""])
def test_non_objects_are_refused(value: object) -> None:
    assert reason(value) == "tclk: frame must be an object"


@pytest.mark.parametrize(
    ("type_value", "message"),
    [
        ("nope", "tclk: unknown frame type: nope"),
        ("Offer", "tclk: unknown frame type: Offer"),
        ("", 'tclk: unknown frame type: ""'),
        (1, "tclk: unknown frame type: 1"),
        (None, "tclk: unknown frame type: null"),
        (True, "tclk: unknown frame type: true"),
        (1.5, "tclk: unknown frame type: 1.5"),
        ({}, "tclk: unknown frame type: [object Object]"),
        ([1, 2], "tclk: unknown frame type: 1,2"),
        # JavaScript object builtins the reference's table lookup would find.
        ("constructor", "tclk: unknown frame type: constructor"),
        ("toString", "tclk: unknown frame type: toString"),
        ("__proto__", "tclk: unknown frame type: __proto__"),
    ],
)
def test_unknown_frame_types(type_value: object, message: str) -> None:
    assert reason({"type": type_value, "from": PAYER}) == message


def test_missing_type_reads_undefined() -> None:
    assert reason({"from": PAYER}) == "tclk: unknown frame type: undefined"


def test_non_string_type_is_refused_even_when_it_stringifies_to_a_type() -> None:
    """Divergence: the reference stringifies ["lock"] to "lock", skips every lock check and
    decodes this frame, and its fold then crashes. Refused here as an unknown frame type."""
    frame = {"contract": 0, "from": PAYER, "rail": 0, "ref": 0, "type": ["lock"]}
    message = "tclk: unknown frame type: lock (type must be a string)"
    assert reason(frame) == message
    line = 'tclk1 {"contract":0,"from":"' + PAYER + '","rail":0,"ref":0,"type":["lock"]}'
    with pytest.raises(FrameError, match=re.escape(message)):
        decode_frame(line)


def test_unknown_keys_are_reported_in_javascript_own_key_order() -> None:
    frame = golden("lock")
    frame["zeta"] = 1
    frame["10"] = 1
    frame["2"] = 1
    assert reason(frame) == "tclk: unknown field on lock: 2"
    del frame["2"], frame["10"]
    assert reason(frame) == "tclk: unknown field on lock: zeta"


def test_js_own_keys_orders_array_indices_first() -> None:
    keys = {"b": 0, "10": 0, "a": 0, "2": 0, "01": 0, "4294967294": 0, "4294967295": 0, "-1": 0}
    assert js_own_keys(keys) == ["2", "10", "4294967294", "b", "a", "01", "4294967295", "-1"]


def test_unknown_keys_come_before_missing_keys() -> None:
    frame = golden("lock")
    del frame["ref"]
    assert reason(frame) == "tclk: missing field on lock: ref"
    frame["extra"] = "x"
    assert reason(frame) == "tclk: unknown field on lock: extra"


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_missing_fields_are_reported_in_table_order(kind: str) -> None:
    required = [key for key in FRAME_FIELDS[kind].required if key != "type"]
    frame = {"type": kind}
    assert reason(frame) == f"tclk: missing field on {kind}: {required[0]}"
    full = golden(kind)
    for index, key in enumerate(required[:-1]):
        frame[key] = full[key]
        assert reason(frame) == f"tclk: missing field on {kind}: {required[index + 1]}"


def test_null_counts_as_present_and_then_fails_its_type_check() -> None:
    frame = golden("offer")
    frame["amount"] = None
    assert reason(frame) == "tclk: amount must be a non-empty string"
    frame = golden("accept")
    frame["paymentKey"] = None
    assert reason(frame) == "tclk: paymentKey must be a non-empty string"


# --- step 4: from ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "tclk: from must be a non-empty string"),
        (None, "tclk: from must be a non-empty string"),
        (7, "tclk: from must be a non-empty string"),
        ("did:key:z6Mk" + "f" * 43, "tclk: from is malformed: did:key:z6Mk" + "f" * 43),
        ("did:key:z6Mk" + "0" * 44, "tclk: from is malformed: did:key:z6Mk" + "0" * 44),
        ("did:key:z6Mk" + "f" * 44 + "\n", f'tclk: from is malformed: "{PAYER}\\n"'),
        ("did:key:z6MK" + "f" * 44, "tclk: from is malformed: did:key:z6MK" + "f" * 44),
        # Unicode digits are not base58 even though Python's \d would take them.
        ("did:key:z6Mk" + "\u0661" * 44,
         'tclk: from is malformed: "did:key:z6Mk' + "\\u0661" * 44 + '"'),
    ],
)
def test_from(value: object, message: str) -> None:
    frame = golden("cancel")
    frame["from"] = value
    assert reason(frame) == message


def test_from_is_checked_before_type_specific_fields() -> None:
    frame = golden("cancel")
    frame["from"] = "x"
    frame["contract"] = "y"
    assert reason(frame) == "tclk: from is malformed: x"


def test_a_grammatical_did_that_is_no_real_key_decodes() -> None:
    assert decode_frame(GOLDEN["cancel"]["line"])["from"] == PAYER


# --- offer ----------------------------------------------------------------------------------


def offer_reason(**changes: Any) -> str:
    frame = golden("offer")
    for key, value in changes.items():
        if value is KeyError:
            del frame[key]
        else:
            frame[key] = value
    return reason(with_id(frame))


@pytest.mark.parametrize("value", ["PAYER", "", None, ["payer"], "arbiter"])
def test_offer_role(value: object) -> None:
    assert offer_reason(role=value) == "tclk: role must be payer|payee"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "tclk: amount must be a non-empty string"),
        (1000, "tclk: amount must be a non-empty string"),
        ("0", "tclk: amount is malformed: 0"),
        ("01", "tclk: amount is malformed: 01"),
        ("1.5", "tclk: amount is malformed: 1.5"),
        ("-1", "tclk: amount is malformed: -1"),
        ("1\n", 'tclk: amount is malformed: "1\\n"'),
        ("\u0661", 'tclk: amount is malformed: "\\u0661"'),
    ],
)
def test_offer_amount(value: object, message: str) -> None:
    assert offer_reason(amount=value) == message


def test_offer_amount_has_no_length_cap() -> None:
    assert validate_frame(with_id({**golden("offer"), "amount": "9" * 500}))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "tclk: asset must be a non-empty string"),
        ("A" * 33, "tclk: asset is malformed: " + "A" * 33),
        ("FL OP", 'tclk: asset is malformed: "FL OP"'),
        ("FLOP.", "tclk: asset is malformed: FLOP."),
    ],
)
def test_offer_asset(value: object, message: str) -> None:
    assert offer_reason(asset=value) == message


def test_offer_asset_accepts_its_whole_alphabet() -> None:
    assert validate_frame(with_id({**golden("offer"), "asset": "aZ09_-" + "x" * 26}))


@pytest.mark.parametrize("value", ["HASH", "sha256", "", None])
def test_offer_lock(value: object) -> None:
    assert offer_reason(lock=value) == "tclk: lock must be hash|point"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "tclk: rails must be a non-empty array"),
        ("flop-htlc", "tclk: rails must be a non-empty array"),
        ({"0": "x402"}, "tclk: rails must be a non-empty array"),
        ([1], "tclk: rail must be a non-empty string"),
        ([""], "tclk: rail must be a non-empty string"),
        (["x402", "Flop"], "tclk: rail is malformed: Flop"),
        (["-a"], "tclk: rail is malformed: -a"),
        (["a" * 65], "tclk: rail is malformed: " + "a" * 65),
        (["x402\n"], 'tclk: rail is malformed: "x402\\n"'),
    ],
)
def test_offer_rails(value: object, message: str) -> None:
    assert offer_reason(rails=value) == message


def test_offer_rails_decode_keeps_legacy_spellings_order_and_duplicates() -> None:
    rails = ["x402", "custom.rail", "PaperRail", "x402", "a" * 64]
    frame = with_id({**golden("offer"), "rails": rails})
    assert validate_frame(frame)["rails"] == rails


@pytest.mark.parametrize("field", ["claimByMs", "refundAfterMs", "expiresMs"])
@pytest.mark.parametrize(
    "value", [0, -1, 1.5, 2**53, 2**53 + 1, True, None, "1756703600000", float("nan"), float("inf")]
)
def test_offer_ms_fields(field: str, value: object) -> None:
    assert offer_reason(**{field: value}) == f"tclk: {field} must be a positive unix-ms integer"


def test_offer_ms_fields_accept_the_extremes_and_integral_floats() -> None:
    frame = with_id({**golden("offer"), "claimByMs": 1, "refundAfterMs": 2**53 - 1})
    assert validate_frame(frame)
    frame = with_id({**golden("offer"), "expiresMs": 1756700600000.0})
    assert validate_frame(frame)


def test_offer_ms_fields_are_checked_in_order() -> None:
    assert offer_reason(claimByMs=0, refundAfterMs=0) == (
        "tclk: claimByMs must be a positive unix-ms integer"
    )
    assert offer_reason(refundAfterMs=0, expiresMs=0) == (
        "tclk: refundAfterMs must be a positive unix-ms integer"
    )


@pytest.mark.parametrize(("claim_by", "refund_after"), [(5, 5), (6, 5)])
def test_offer_claim_by_must_precede_refund_after(claim_by: int, refund_after: int) -> None:
    assert offer_reason(claimByMs=claim_by, refundAfterMs=refund_after) == (
        "tclk: claimByMs must be strictly before refundAfterMs"
    )


def test_offer_expiry_is_not_tied_to_the_deadlines() -> None:
    frame = with_id({**golden("offer"), "expiresMs": 1756707200001})
    assert validate_frame(frame)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "tclk: paymentKey must be a non-empty string"),
        (G_HEX.upper().replace("0X", "0x"), "tclk: paymentKey is malformed: "),
        (G_HEX[:-2], "tclk: paymentKey is malformed: "),
        ("0x04" + G_HEX[4:], None),
        (OFF_CURVE, "tclk: paymentKey is not a valid secp256k1 point"),
    ],
)
def test_offer_payment_key(value: str, message: str | None) -> None:
    got = offer_reason(paymentKey=value)
    if message is None:  # right shape, wrong prefix: not a compressed point
        assert got == "tclk: paymentKey is not a valid secp256k1 point"
    elif message.endswith(": "):
        assert got == message + value
    else:
        assert got == message


def test_point_offers_need_a_payment_key() -> None:
    assert offer_reason(lock="point") == "tclk: point locks require paymentKey"
    assert validate_frame(with_id({**golden("offer"), "lock": "point", "paymentKey": G_HEX}))


def test_payment_key_is_checked_before_the_point_rule_and_after_the_deadlines() -> None:
    assert offer_reason(lock="point", paymentKey=OFF_CURVE) == (
        "tclk: paymentKey is not a valid secp256k1 point"
    )
    assert offer_reason(claimByMs=9, refundAfterMs=1, paymentKey="bad") == (
        "tclk: claimByMs must be strictly before refundAfterMs"
    )


@pytest.mark.parametrize(
    ("job", "message"),
    [
        ("task", "tclk: job must be an object"),
        (["a2a"], "tclk: job must be an object"),
        (None, "tclk: job must be an object"),
        ({"proto": "a2a", "id": "x", "unexpected": 1}, "tclk: unknown field on job: unexpected"),
        ({"id": "x"}, "tclk: missing field on job: proto"),
        ({"proto": "a2a"}, "tclk: missing field on job: id"),
        ({"proto": "A2A", "id": "x"}, "tclk: job.proto is malformed: A2A"),
        ({"proto": "", "id": "x"}, "tclk: job.proto must be a non-empty string"),
        ({"proto": "a" * 33, "id": "x"}, "tclk: job.proto is malformed: " + "a" * 33),
        ({"proto": "a2a", "id": ""}, "tclk: job.id must be a non-empty string"),
        ({"proto": "a2a", "id": 5}, "tclk: job.id must be a non-empty string"),
        (
            {"proto": "a2a", "id": "x", "context": ""},
            "tclk: job.context must be a non-empty string",
        ),
    ],
)
def test_offer_job(job: object, message: str) -> None:
    assert offer_reason(job=job) == message


def test_job_unknown_keys_follow_javascript_key_order() -> None:
    job = {"proto": "a2a", "id": "x", "z": 1, "7": 1}
    assert offer_reason(job=job) == "tclk: unknown field on job: 7"


def test_nested_type_key_in_job_is_allowed_and_hashed_like_the_reference() -> None:
    """Kept quirk: the reference checks `{...job, type: "job"}`, so a nested `type` passes
    with any value, is hashed into the offer id and is emitted."""
    plain = with_id(golden("offer"))
    for nested in ("zzz", 1, None, ["x"], {"a": 1}):
        frame = with_id({**golden("offer"), "job": {**golden("offer")["job"], "type": nested}})
        assert validate_frame(frame) is frame
        assert frame["id"] != plain["id"]
        line = encode_frame(frame)
        assert decode_frame(line) == frame
    frame = with_id({**golden("offer"), "job": {"id": "x", "proto": "a2a", "type": "zzz"}})
    assert '"job":{"id":"x","proto":"a2a","type":"zzz"}' in encode_frame(frame)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "tclk: nonce must be a non-empty string"),
        ("abc", "tclk: nonce is malformed: abc"),
        ("ABCDEF01", "tclk: nonce is malformed: ABCDEF01"),
        ("0x9f2c81d0", "tclk: nonce is malformed: 0x9f2c81d0"),
        ("a" * 65, "tclk: nonce is malformed: " + "a" * 65),
        ("aabbccdd\n", 'tclk: nonce is malformed: "aabbccdd\\n"'),
    ],
)
def test_offer_nonce(value: object, message: str) -> None:
    assert offer_reason(nonce=value) == message


def test_offer_nonce_trailing_newline_is_refused_from_the_wire() -> None:
    frame = with_id({**golden("offer"), "nonce": "aabbccdd\n"})
    body = json.dumps(frame, separators=(",", ":"))
    assert "\\n" in body
    with pytest.raises(FrameError, match="nonce is malformed"):
        decode_frame("tclk1 " + body)


def test_offer_id_mismatch_names_the_expected_id() -> None:
    frame = golden("offer")
    expected = frame["id"]
    for bad in ("0x" + "0" * 64, "not-an-id", 5, None, expected.upper()):
        frame["id"] = bad
        assert reason(frame) == f"tclk: offer id mismatch (expected {expected})"


def test_offer_id_is_checked_last() -> None:
    frame = golden("offer")
    frame["id"] = "x"
    frame["nonce"] = "x"
    assert reason(frame) == "tclk: nonce is malformed: x"


def test_offer_check_order_role_to_nonce() -> None:
    order = [
        ("role", "x", "tclk: role must be payer|payee"),
        ("amount", "x", "tclk: amount is malformed: x"),
        ("asset", "x y", 'tclk: asset is malformed: "x y"'),
        ("lock", "x", "tclk: lock must be hash|point"),
        ("rails", [], "tclk: rails must be a non-empty array"),
        ("claimByMs", 0, "tclk: claimByMs must be a positive unix-ms integer"),
        ("refundAfterMs", 0, "tclk: refundAfterMs must be a positive unix-ms integer"),
        ("expiresMs", 0, "tclk: expiresMs must be a positive unix-ms integer"),
        ("paymentKey", "x", "tclk: paymentKey is malformed: x"),
        ("job", "x", "tclk: job must be an object"),
        ("nonce", "x", "tclk: nonce is malformed: x"),
    ]
    frame = golden("offer")
    for key, value, _ in order:
        frame[key] = value
    for key, _, message in order:
        assert reason(frame) == message
        frame[key] = golden("offer").get(key, G_HEX)


# --- accept ---------------------------------------------------------------------------------


def accept_reason(**changes: Any) -> str:
    return reason({**golden("accept"), **changes})


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("ref", "", "tclk: ref must be a non-empty string"),
        ("ref", "0x" + "A" * 64, "tclk: ref is malformed: 0x" + "A" * 64),
        ("statement", "0x" + "a" * 65, "tclk: statement is malformed: 0x" + "a" * 65),
        ("statement", "0x" + "a" * 62, "tclk: statement is malformed: 0x" + "a" * 62),
        ("statement", 5, "tclk: statement must be a non-empty string"),
        ("contract", "0x12", "tclk: contract is malformed: 0x12"),
        ("paymentKey", "0x02", "tclk: paymentKey is malformed: 0x02"),
        ("paymentKey", OFF_CURVE, "tclk: paymentKey is not a valid secp256k1 point"),
        ("nonce", "0011", "tclk: nonce is malformed: 0011"),
    ],
)
def test_accept_fields(field: str, value: object, message: str) -> None:
    assert accept_reason(**{field: value}) == message


def test_accept_check_order() -> None:
    frame = {**golden("accept"), "ref": "r", "statement": "s", "contract": "c", "nonce": "n"}
    frame["paymentKey"] = "k"
    for field, expected in [
        ("ref", "tclk: ref is malformed: r"),
        ("statement", "tclk: statement is malformed: s"),
        ("contract", "tclk: contract is malformed: c"),
        ("paymentKey", "tclk: paymentKey is malformed: k"),
        ("nonce", "tclk: nonce is malformed: n"),
    ]:
        assert reason(frame) == expected
        frame[field] = golden("accept").get(field, G_HEX)
    assert validate_frame(frame)


def test_accept_statement_of_either_length_decodes_whatever_the_lock() -> None:
    assert validate_frame({**golden("accept"), "statement": "0x02" + "ab" * 32})
    assert validate_frame({**golden("accept"), "statement": OFF_CURVE})  # machine's job
    assert validate_frame({**golden("accept"), "paymentKey": G_HEX})


# --- lock -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"contract": "0x"}, "tclk: contract is malformed: 0x"),
        ({"rail": ""}, "tclk: rail must be a non-empty string"),
        ({"rail": "Flop-HTLC"}, "tclk: rail is malformed: Flop-HTLC"),
        ({"ref": ""}, "tclk: ref must be a non-empty string"),
        ({"ref": 9001}, "tclk: ref must be a non-empty string"),
        ({"presig": "x"}, "tclk: presig must be an object"),
        ({"presig": [G_HEX, "0x11"]}, "tclk: presig must be an object"),
        ({"presig": {"nonce": G_HEX, "s": "0x11", "x": 1}}, "tclk: unknown field on presig: x"),
        (
            {"presig": {"nonce": G_HEX, "s": "0x11", "unexpected": 1}},
            "tclk: unknown field on presig: unexpected",
        ),
        ({"presig": {"s": "0x11"}}, "tclk: missing field on presig: nonce"),
        ({"presig": {"nonce": G_HEX}}, "tclk: missing field on presig: s"),
        ({"presig": {"nonce": "0x02", "s": "0x11"}}, "tclk: presig.nonce is malformed: 0x02"),
        ({"presig": {"nonce": G_HEX, "s": ""}}, "tclk: presig.s must be a non-empty string"),
        ({"presig": {"nonce": G_HEX, "s": "0xabc"}}, "tclk: presig.s is malformed: 0xabc"),
        ({"presig": {"nonce": G_HEX, "s": "0x1"}}, "tclk: presig.s is malformed: 0x1"),
        ({"presig": {"nonce": G_HEX, "s": "0x111"}}, "tclk: presig.s is malformed: 0x111"),
        (
            {"presig": {"nonce": G_HEX, "s": "0x" + "1" * 63}},
            "tclk: presig.s is malformed: 0x" + "1" * 63,
        ),
        (
            {"presig": {"nonce": G_HEX, "s": "0x" + "1" * 66}},
            "tclk: presig.s is malformed: 0x" + "1" * 66,
        ),
        ({"presig": {"nonce": G_HEX, "s": "0xAB"}}, "tclk: presig.s is malformed: 0xAB"),
        ({"presig": {"nonce": G_HEX, "s": "0x"}}, "tclk: presig.s is malformed: 0x"),
    ],
)
def test_lock_fields(changes: dict[str, Any], message: str) -> None:
    assert reason({**golden("lock"), **changes}) == message


@pytest.mark.parametrize("s", ["0x11", "0x00", "0x" + "1" * 64])
def test_lock_presig_scalar_shapes_that_decode(s: str) -> None:
    frame = {**golden("lock"), "presig": {"nonce": G_HEX, "s": s}}
    assert validate_frame(frame)


def test_lock_presig_nonce_is_never_curve_checked_and_nested_type_is_allowed() -> None:
    assert validate_frame({**golden("lock"), "presig": {"nonce": OFF_CURVE, "s": "0x11"}})
    presig = {"nonce": G_HEX, "s": "0x11", "type": "anything"}
    assert validate_frame({**golden("lock"), "presig": presig})


def test_lock_legacy_rail_decodes() -> None:
    for rail in ("PaperRail", "custom.rail", "my_rail-1"):
        assert validate_frame({**golden("lock"), "rail": rail})


# --- reveal, refund, cancel, receipt, heartbeat -----------------------------------------------


@pytest.mark.parametrize(
    ("kind", "changes", "message"),
    [
        ("reveal", {"contract": "x"}, "tclk: contract is malformed: x"),
        ("reveal", {"ref": ""}, "tclk: ref must be a non-empty string"),
        ("reveal", {"secret": "0x11"}, "tclk: secret is malformed: 0x11"),
        ("reveal", {"secret": None}, "tclk: secret must be a non-empty string"),
        ("reveal", {"ref": "", "secret": "x"}, "tclk: ref must be a non-empty string"),
        ("refund", {"contract": "x"}, "tclk: contract is malformed: x"),
        ("refund", {"ref": ""}, "tclk: ref must be a non-empty string"),
        ("refund", {"reason": ""}, "tclk: reason must be a non-empty string"),
        ("refund", {"reason": 1}, "tclk: reason must be a non-empty string"),
        ("cancel", {"contract": "x"}, "tclk: contract is malformed: x"),
        ("cancel", {"reason": ""}, "tclk: reason must be a non-empty string"),
        ("receipt", {"contract": "x"}, "tclk: contract is malformed: x"),
        ("receipt", {"outcome": "CLAIMED"}, "tclk: outcome must be claimed|refunded|cancelled"),
        ("receipt", {"outcome": "locked"}, "tclk: outcome must be claimed|refunded|cancelled"),
        ("receipt", {"rail": "X402"}, "tclk: rail is malformed: X402"),
        ("receipt", {"ref": ""}, "tclk: ref must be a non-empty string"),
        ("heartbeat", {"contract": "x"}, "tclk: contract is malformed: x"),
        ("heartbeat", {"nonce": "x"}, "tclk: nonce is malformed: x"),
        ("heartbeat", {"note": ""}, "tclk: note must be a non-empty string"),
    ],
)
def test_deal_frame_fields(kind: str, changes: dict[str, Any], message: str) -> None:
    assert reason({**golden(kind), **changes}) == message


def test_optional_refs_may_be_absent() -> None:
    for kind in ("reveal", "refund"):
        frame = golden(kind)
        del frame["ref"]
        assert validate_frame(frame)


def test_free_text_fields_take_any_content() -> None:
    for text in ("\x00", "a\nb", "\u2028", "\ud800", "\U0001f600", " ", "\x7f"):
        assert validate_frame({**golden("lock"), "ref": text})
        assert validate_frame({**golden("heartbeat"), "note": text})


def test_non_string_outcome_is_refused() -> None:
    """Divergence: the reference coerces ["claimed"] to "claimed" and decodes the frame."""
    assert reason({**golden("receipt"), "outcome": ["claimed"]}) == (
        "tclk: outcome must be claimed|refunded|cancelled"
    )


def test_contract_id_of_the_golden_pair() -> None:
    assert contract_id(golden("offer"), golden("accept")) == CONTRACT
