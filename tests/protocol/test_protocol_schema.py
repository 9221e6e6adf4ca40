"""schema/tclk1-frames.schema.json says what the decoder enforces, as far as JSON Schema can.

Agreement is checked in both directions: every frame the decoder accepts satisfies the schema,
and every frame the decoder rejects for a reason JSON Schema can express violates it. The checks
JSON Schema cannot express are listed in DECODER_ONLY (and in the schema's description):
offer id recomputation, the secp256k1 curve check of paymentKey, claimByMs < refundAfterMs, and
the line-level rules (prefix, 4096-char cap, printable ASCII, no NaN/Infinity literals).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.protocol import frames
from tclk_tui.protocol.codec import TCLK_PREFIX, decode_frame, encode_frame
from tclk_tui.protocol.errors import FrameError
from tclk_tui.protocol.frames import FRAME_FIELDS, FRAME_TYPES, NESTED_FIELDS, validate_frame
from tclk_tui.protocol.ids import offer_id

from .test_protocol_frames import G_HEX, GOLDEN, OFF_CURVE, golden, valid_frames, with_id

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "tclk1-frames.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

DECODER_ONLY = (
    "tclk: offer id mismatch",
    "tclk: paymentKey is not a valid secp256k1 point",
    "tclk: claimByMs must be strictly before refundAfterMs",
)
"""Frame-level rejections JSON Schema cannot express (the line-level ones never reach here)."""


def decoder_verdict(frame: Any) -> str | None:
    try:
        validate_frame(frame)
    except FrameError as error:
        return str(error)
    return None


def assert_agree(frame: Any) -> None:
    verdict = decoder_verdict(frame)
    schema_ok = VALIDATOR.is_valid(frame)
    if verdict is None:
        assert schema_ok, f"schema rejects a frame the decoder accepts: {frame!r}"
    elif not verdict.startswith(DECODER_ONLY):
        assert not schema_ok, f"schema accepts a frame the decoder rejects ({verdict}): {frame!r}"


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_schema_description_lists_the_decoder_only_checks() -> None:
    description = SCHEMA["description"]
    for phrase in (
        "offer.id must equal the recomputed offer id",
        "paymentKey (offer and accept) must be a point on secp256k1",
        "claimByMs must be strictly before offer.refundAfterMs",
        "4096-char cap",
        "printable-ASCII",
        "NaN/Infinity",
        "canonical registered ids",
    ):
        assert phrase in description


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_schema_fields_match_the_decoder_table(kind: str) -> None:
    definition = SCHEMA["$defs"][kind]
    fields = FRAME_FIELDS[kind]
    assert definition["additionalProperties"] is False
    assert definition["properties"]["type"] == {"const": kind}
    assert definition["required"] == list(fields.required)
    assert set(definition["properties"]) == fields.allowed
    assert {"$ref": f"#/$defs/{kind}"} in SCHEMA["oneOf"]


@pytest.mark.parametrize("name", ["job", "presig"])
def test_schema_nested_objects_match_the_decoder(name: str) -> None:
    definition = SCHEMA["$defs"][name]
    assert definition["additionalProperties"] is False
    assert set(definition["properties"]) == NESTED_FIELDS[name].allowed  # incl. `type`
    assert definition["required"] == [k for k in NESTED_FIELDS[name].required if k != "type"]


def test_schema_shapes_the_brief_pins() -> None:
    offer = SCHEMA["$defs"]["offer"]
    assert offer["properties"]["rails"]["minItems"] == 1
    assert "uniqueItems" not in offer["properties"]["rails"]
    assert SCHEMA["$defs"]["unixMs"] == {
        **SCHEMA["$defs"]["unixMs"],
        "type": "integer",
        "minimum": 1,
        "maximum": 9007199254740991,
    }
    assert "ref" not in SCHEMA["$defs"]["reveal"]["required"]
    assert "ref" not in SCHEMA["$defs"]["refund"]["required"]


@pytest.mark.parametrize(
    ("path", "regex"),
    [
        (("did",), frames.DID_RE),
        (("hex32",), frames.HEX32_RE),
        (("hex33",), frames.HEX33_RE),
        (("statement",), frames.STATEMENT_RE),
        (("nonce",), frames.NONCE_RE),
        (("amount",), frames.AMOUNT_RE),
        (("asset",), frames.ASSET_RE),
        (("rail",), frames.RAIL_RE),
        (("job", "properties", "proto"), frames.JOB_PROTO_RE),
        (("presig", "properties", "s"), frames.PRESIG_S_RE),
    ],
)
def test_schema_patterns_are_the_decoder_regexes(path: tuple[str, ...], regex: Any) -> None:
    node = SCHEMA["$defs"]
    for key in path:
        node = node[key]
    assert node["pattern"] == "^" + regex.pattern + "(?!\\n)$"


@pytest.mark.parametrize("kind", sorted(GOLDEN))
def test_golden_vectors_satisfy_the_schema(kind: str) -> None:
    assert VALIDATOR.is_valid(GOLDEN[kind]["frame"])
    body = json.loads(GOLDEN[kind]["line"][len(TCLK_PREFIX) :])
    assert VALIDATOR.is_valid(body)
    assert decode_frame(GOLDEN[kind]["line"]) == body


def test_decoder_only_checks_pass_the_schema_and_fail_the_decoder() -> None:
    cases = [
        ({**golden("offer"), "id": "0x" + "0" * 64}, "tclk: offer id mismatch"),
        (with_id({**golden("offer"), "paymentKey": OFF_CURVE}), "tclk: paymentKey is not"),
        ({**golden("accept"), "paymentKey": OFF_CURVE}, "tclk: paymentKey is not"),
        (with_id({**golden("offer"), "claimByMs": 1756707200000}), "tclk: claimByMs must be"),
    ]
    for frame, message in cases:
        assert VALIDATOR.is_valid(frame)
        assert (decoder_verdict(frame) or "").startswith(message)


def test_line_level_rules_are_outside_the_schema() -> None:
    frame = with_id({**golden("offer"), "job": {"proto": "a2a", "id": "a\x7fb"}})
    assert VALIDATOR.is_valid(frame)
    with pytest.raises(FrameError, match="non-printable"):
        encode_frame(frame)


def test_patterns_refuse_a_trailing_newline_under_python_re() -> None:
    cases = [
        {**golden("heartbeat"), "nonce": "aabbccdd\n"},
        {**golden("cancel"), "from": golden("cancel")["from"] + "\n"},
        {**golden("cancel"), "contract": golden("cancel")["contract"] + "\n"},
        {**golden("lock"), "rail": "x402\n"},
        {**golden("lock"), "presig": {"nonce": G_HEX, "s": "0x11\n"}},
        with_id({**golden("offer"), "amount": "1\n"}),
        with_id({**golden("offer"), "asset": "FLOP\n"}),
        with_id({**golden("offer"), "job": {"proto": "a2a\n", "id": "x"}}),
    ]
    for frame in cases:
        assert not VALIDATOR.is_valid(frame)
        assert decoder_verdict(frame) is not None


def test_the_kept_nested_type_quirk_is_in_the_schema() -> None:
    frame = with_id({**golden("offer"), "job": {"proto": "a2a", "id": "x", "type": [1, None]}})
    assert decoder_verdict(frame) is None
    assert VALIDATOR.is_valid(frame)
    lock = {**golden("lock"), "presig": {"nonce": G_HEX, "s": "0x11", "type": "zzz"}}
    assert decoder_verdict(lock) is None
    assert VALIDATOR.is_valid(lock)


def test_integral_float_ms_values_agree() -> None:
    frame = with_id({**golden("offer"), "expiresMs": 1756700600000.0})
    assert decoder_verdict(frame) is None
    assert VALIDATOR.is_valid(frame)
    for bad in (1756700600000.5, True, "1756700600000", 0, 2**53):
        assert_agree(with_id({**golden("offer"), "expiresMs": bad}))
        assert not VALIDATOR.is_valid(with_id({**golden("offer"), "expiresMs": bad}))


# --- generated corpus -----------------------------------------------------------------------

BAD_VALUES: list[Any] = [
    "",
    "x",
    "X",
    None,
    0,
    -1,
    1,
    1.5,
    2**53,
    True,
    False,
    [],
    ["x402"],
    {},
    {"proto": "a2a"},
    "0x",
    "0x" + "a" * 64,
    "0x" + "A" * 64,
    G_HEX,
    OFF_CURVE,
    "aabbccdd",
    "aabbccdd\n",
    "did:key:z6Mk" + "f" * 44,
    "payer",
    "point",
    "claimed",
    "PaperRail",
    "custom.rail",
    "Bad_Rail",
    "offer",
    "lock",
]


@st.composite
def mutated_frames(draw: st.DrawFn) -> dict[str, Any]:
    frame = copy.deepcopy(draw(valid_frames))
    nested = [k for k in ("job", "presig") if isinstance(frame.get(k), dict)]
    target: dict[str, Any] = frame
    if nested and draw(st.booleans()):
        target = frame[draw(st.sampled_from(nested))]
    action = draw(st.sampled_from(["drop", "add", "replace", "replace", "append-newline"]))
    keys = sorted(target)
    if action == "drop" and keys:
        del target[draw(st.sampled_from(keys))]
    elif action == "add":
        name = draw(
            st.one_of(
                st.sampled_from(["x", "0", "10", "paymentKey", "ref", "type"]), st.text(max_size=5)
            )
        )
        target[name] = draw(st.sampled_from(BAD_VALUES))
    elif action == "replace" and keys:
        target[draw(st.sampled_from(keys))] = draw(st.sampled_from(BAD_VALUES))
    else:
        strings = [k for k in keys if isinstance(target[k], str)]
        if strings:
            key = draw(st.sampled_from(strings))
            target[key] += "\n"
    if frame.get("type") == "offer" and "id" in frame and draw(st.booleans()):
        # Usually re-derive the id, so the decoder reaches the mutation instead of stopping at
        # the id (which is checked last anyway).
        frame["id"] = offer_id(frame)
    return frame


@given(valid_frames)
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_schema_accepts_every_generated_valid_frame(frame: dict[str, Any]) -> None:
    assert decoder_verdict(frame) is None
    assert VALIDATOR.is_valid(frame)
    body = json.loads(encode_frame(frame)[len(TCLK_PREFIX) :])
    assert VALIDATOR.is_valid(body)


@given(mutated_frames())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_schema_and_decoder_agree_on_mutated_frames(frame: dict[str, Any]) -> None:
    assert_agree(frame)
