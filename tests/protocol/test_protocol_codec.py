"""The wire codec: canonical JSON, escaping, encode/decode steps and their boundaries."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.builders import make_offer
from tclk_tui.protocol.canonical import (
    canonical_json,
    canonical_json_reference,
    js_number_to_string,
    js_string,
    json_string,
    to_ascii,
    utf16_len,
)
from tclk_tui.protocol.codec import (
    MAX_FRAME_CHARS,
    TCLK_PREFIX,
    TCLK_VERSION,
    decode_frame,
    encode_frame,
    is_tclk_line,
    try_decode_frame,
)
from tclk_tui.protocol.errors import FrameError, TclkError
from tclk_tui.protocol.frames import validate_frame
from tclk_tui.protocol.ids import TCLK_DOMAIN, offer_id

from .test_protocol_frames import GOLDEN, PAYER, golden, valid_frames, with_id

NON_PRINTABLE = "tclk: frame line contains non-printable-ASCII characters"


def cap_message(length: int) -> str:
    return f"tclk: frame exceeds the 4096-char room-message cap ({length})"


def decode_reason(text: object) -> str:
    with pytest.raises(FrameError) as caught:
        decode_frame(text)
    return str(caught.value)


def test_constants() -> None:
    assert TCLK_VERSION == "tclk/1"
    assert TCLK_PREFIX == "tclk1 "
    assert TCLK_DOMAIN == "FLOP::tclk::v1"
    assert MAX_FRAME_CHARS == 4096
    assert issubclass(FrameError, TclkError)
    assert issubclass(TclkError, ValueError)


# --- golden vectors ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(GOLDEN))
def test_golden_vector_encodes_to_its_exact_line(kind: str) -> None:
    assert encode_frame(golden(kind)) == GOLDEN[kind]["line"]


@pytest.mark.parametrize("kind", sorted(GOLDEN))
def test_golden_line_decodes_to_its_frame(kind: str) -> None:
    assert decode_frame(GOLDEN[kind]["line"]) == GOLDEN[kind]["frame"]


@pytest.mark.parametrize("kind", sorted(GOLDEN))
def test_golden_line_is_prefix_plus_canonical_json(kind: str) -> None:
    assert GOLDEN[kind]["line"] == TCLK_PREFIX + canonical_json(golden(kind))


# --- canonical JSON -----------------------------------------------------------------------------


def test_canonical_json_sorts_keys_keeps_null_and_has_no_whitespace() -> None:
    value = {"b": [1, None, True, False, "x"], "a": {"z": None, "y": {}}, "c": []}
    assert canonical_json(value) == '{"a":{"y":{},"z":null},"b":[1,null,true,false,"x"],"c":[]}'


def test_canonical_json_sorts_keys_by_utf16_code_units() -> None:
    # Code-point order would put U+FFFF first; UTF-16 puts the astral key's 0xD83D first.
    value = {"\uffff": 1, "\U0001f600": 2, "b": 3, "B": 4, "é": 5}
    assert canonical_json(value) == '{"B":4,"b":3,"é":5,"\U0001f600":2,"\uffff":1}'


@pytest.mark.parametrize(
    "value", [b"x", {1, 2}, object(), {1: "a"}, {("a",): 1}, [b"x"], {"a": {"b": bytearray()}}]
)
def test_canonical_json_refuses_unsupported_values(value: object) -> None:
    with pytest.raises(FrameError, match=r"^tclk: frame contains an unsupported value$"):
        canonical_json(value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (-0.0, "0"),
        (1, "1"),
        (-5, "-5"),
        (1.0, "1"),
        (1756703600000.0, "1756703600000"),
        (2**53 - 1, "9007199254740991"),
        (2**53 + 1, "9007199254740992"),  # the double JavaScript would hold
        (2**60, "1152921504606847000"),  # JS: 2**60 prints rounded
        (12345678901234567890, "12345678901234567000"),
        (10**21, "1e+21"),
        (10**400, "null"),  # JSON.parse would give Infinity
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.23e22, "1.23e+22"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (123.456, "123.456"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-1e-7, "-1e-7"),
        (float("nan"), "null"),
        (float("inf"), "null"),
        (float("-inf"), "null"),
    ],
)
def test_canonical_json_renders_numbers_as_javascript(value: float, text: str) -> None:
    assert canonical_json(value) == text
    assert canonical_json([value]) == f"[{text}]"


def test_js_number_to_string_non_finite_and_js_string() -> None:
    assert js_number_to_string(float("nan")) == "NaN"
    assert js_number_to_string(float("-inf")) == "-Infinity"
    assert js_string(None) == "null"
    assert js_string([1, None, [2, "a"]]) == "1,,2,a"
    assert js_string({"a": 1}) == "[object Object]"
    assert js_string(True) == "true"


@given(st.floats(allow_nan=False, allow_infinity=False))
@settings(max_examples=200)
def test_js_number_rendering_round_trips(value: float) -> None:
    text = js_number_to_string(value)
    assert float(text) == value
    assert re.fullmatch(r"-?(?:\d+(?:\.\d+)?(?:e[+-]\d+)?)", text)
    assert not re.search(r"\.\d*0(?:e|$)", text)  # never a trailing fractional zero


any_text = st.text(alphabet=st.characters(exclude_categories=()), max_size=8)
any_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(-(2**60), 2**60),
        st.floats(),
        any_text,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(any_text, inner, max_size=4),
    ),
    max_leaves=16,
)


@given(any_json)
@settings(max_examples=300)
def test_fast_path_writes_exactly_what_the_definition_writes(value: Any) -> None:
    assert canonical_json(value) == canonical_json_reference(value)


# --- escaping -------------------------------------------------------------------------------------

ESCAPE_TABLE = [
    ('"', 'a\\"b'),
    ("\\", "a\\\\b"),
    ("/", "a/b"),
    ("\b", "a\\bb"),
    ("\t", "a\\tb"),
    ("\n", "a\\nb"),
    ("\f", "a\\fb"),
    ("\r", "a\\rb"),
    ("\x00", "a\\u0000b"),
    ("\x01", "a\\u0001b"),
    ("\x1b", "a\\u001bb"),
    ("\x1f", "a\\u001fb"),
    ("\u00a0", "a\\u00a0b"),
    ("é", "a\\u00e9b"),
    ("\u200b", "a\\u200bb"),
    ("\u2028", "a\\u2028b"),
    ("\u2029", "a\\u2029b"),
    ("中", "a\\u4e2db"),
    ("\uffff", "a\\uffffb"),
    ("\U0001f600", "a\\ud83d\\ude00b"),
    ("\ud800", "a\\ud800b"),
    ("\udfff", "a\\udfffb"),
]


def offer_with_job_id(job_id: str) -> dict[str, Any]:
    return make_offer(
        from_=PAYER,
        role="payer",
        amount="1",
        asset="FLOP",
        lock="hash",
        rails=["flop-htlc"],
        claim_by_ms=1760003600000,
        refund_after_ms=1760007200000,
        expires_ms=1760000600000,
        job={"proto": "a2a", "id": job_id},
        nonce="9f2c81d04c9e1f7a",
    )


@pytest.mark.parametrize(("char", "wire"), ESCAPE_TABLE)
def test_pinned_escape_table(char: str, wire: str) -> None:
    frame = offer_with_job_id("a" + char + "b")
    line = encode_frame(frame)
    assert '"job":{"id":"' + wire + '","proto":"a2a"}' in line
    assert decode_frame(line) == frame


def test_all_hex_is_lowercase_and_only_short_escapes_are_used() -> None:
    text = "".join(chr(c) for c in range(0x20)) + "\u00ff\uabcd\U0010ffff"
    wire = to_ascii(json_string(text))
    assert wire == (
        '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r'
        "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018"
        '\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\u00ff\\uabcd\\udbff\\udfff"'
    )


def test_canonical_json_leaves_non_ascii_raw_and_to_ascii_escapes_it() -> None:
    assert canonical_json({"k": "é\U0001f600"}) == '{"k":"é\U0001f600"}'
    assert to_ascii(canonical_json({"k": "é\U0001f600"})) == '{"k":"\\u00e9\\ud83d\\ude00"}'


def test_lone_surrogates_are_escaped_already_by_canonical_json() -> None:
    assert json_string("\ud800x\udfff") == '"\\ud800x\\udfff"'
    # A high+low pair spelled as two code points is one character to JavaScript: left raw.
    assert json_string("\ud83d\ude00") == '"\ud83d\ude00"'
    assert to_ascii(json_string("\ud83d\ude00")) == '"\\ud83d\\ude00"'
    assert json_string("\ude00\ud83d") == '"\\ude00\\ud83d"'


def test_del_is_left_raw_and_then_refused() -> None:
    frame = offer_with_job_id("a")
    frame["job"]["id"] = "a\x7fb"
    frame = with_id(frame)
    assert '"a\x7fb"' in canonical_json(frame)
    assert to_ascii("a\x7fb") == "a\x7fb"
    with pytest.raises(FrameError, match=f"^{NON_PRINTABLE}$"):
        encode_frame(frame)


def test_escaped_del_decodes_and_its_id_is_computed_over_raw_del() -> None:
    frame = offer_with_job_id("a")
    frame["job"]["id"] = "a\x7fb"
    frame = with_id(frame)
    line = TCLK_PREFIX + to_ascii(canonical_json(frame)).replace("\x7f", "\\u007f")
    assert "\x7f" not in line
    decoded = decode_frame(line)
    assert decoded == frame
    # An id computed over the escaped spelling is a different id, and is refused.
    wrong = {**frame, "id": offer_id({**frame, "job": {**frame["job"], "id": "a\\u007fb"}})}
    assert wrong["id"] != frame["id"]
    line = TCLK_PREFIX + to_ascii(canonical_json(wrong)).replace("\x7f", "\\u007f")
    assert decode_reason(line).startswith("tclk: offer id mismatch")
    with pytest.raises(FrameError, match=NON_PRINTABLE):
        encode_frame(decoded)


# --- encode steps ---------------------------------------------------------------------------


def lock_with_line_length(length: int) -> dict[str, Any]:
    frame = golden("lock")
    frame["ref"] = "r"
    base = len(encode_frame(frame))
    frame["ref"] = "r" * (1 + length - base)
    return frame


def test_encode_allows_exactly_4096_and_refuses_4097() -> None:
    assert len(encode_frame(lock_with_line_length(4096))) == 4096
    with pytest.raises(FrameError, match=re.escape(cap_message(4097))):
        encode_frame(lock_with_line_length(4097))


def test_encode_cap_counts_escaped_characters() -> None:
    frame = lock_with_line_length(4096)
    frame["ref"] = frame["ref"][:-6] + "é"  # one char becomes six on the wire
    assert len(encode_frame(frame)) == 4096
    frame["ref"] = frame["ref"][:-1] + "\U0001f600"  # twelve on the wire
    with pytest.raises(FrameError, match=re.escape(cap_message(4102))):
        encode_frame(frame)


def test_encode_validates_first_then_rails_then_cap() -> None:
    frame = lock_with_line_length(5000)
    frame["rail"] = "PaperRail"
    assert frame["rail"]
    with pytest.raises(FrameError, match=r"non-canonical rail id: PaperRail; use paper"):
        encode_frame(frame)
    frame["contract"] = "x"
    with pytest.raises(FrameError, match="contract is malformed"):
        encode_frame(frame)


def test_encode_does_not_sort_rails() -> None:
    frame = with_id({**golden("offer"), "rails": ["x402", "paper"]})
    assert '"rails":["x402","paper"]' in encode_frame(frame)


# --- decode steps ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "tclk1", " tclk1 {}", "TCLK1 {}", "tclk2 {}", "tclk1{}", None, 5, b"tclk1 {}"]
)
def test_not_a_tclk_line(text: object) -> None:
    assert not is_tclk_line(text)
    assert decode_reason(text) == "tclk: not a tclk/1 line"
    assert try_decode_frame(text) is None


def test_is_tclk_line() -> None:
    assert is_tclk_line("tclk1 ")
    assert is_tclk_line("tclk1 anything")


def test_decode_cap_boundary() -> None:
    line = encode_frame(lock_with_line_length(4096))
    assert decode_frame(line)["type"] == "lock"
    longer = line[:-1] + " }"  # trailing whitespace is fine, but now 4097 chars
    assert decode_reason(longer) == cap_message(4097)


def test_decode_cap_is_checked_before_the_ascii_guard() -> None:
    assert decode_reason("tclk1 " + "é" * 4091) == cap_message(4097)
    assert decode_reason("tclk1 " + "é" * 4090) == NON_PRINTABLE
    # Astral characters count two UTF-16 code units each.
    assert decode_reason("tclk1 " + "\U0001f600" * 2046) == cap_message(4098)
    assert decode_reason("tclk1 " + "\U0001f600" * 2045) == NON_PRINTABLE


@pytest.mark.parametrize("bad", ["\t", "\n", "\r", "\x7f", "\x00", "é", "\u2028", "\ud800"])
def test_decode_ascii_guard(bad: str) -> None:
    line = GOLDEN["cancel"]["line"]
    assert decode_reason(line[:-1] + bad + "}") == NON_PRINTABLE
    assert decode_reason(line.replace("unresponsive", "unresp" + bad)) == NON_PRINTABLE


@pytest.mark.parametrize("code", range(0x80))
def test_decode_ascii_guard_admits_exactly_space_to_tilde(code: int) -> None:
    char = chr(code)
    line = GOLDEN["cancel"]["line"].replace("unresponsive", "unresp" + char)
    if not 0x20 <= code <= 0x7E:
        assert decode_reason(line) == NON_PRINTABLE
    elif char in '"\\':  # printable, but it breaks the JSON string it was put in
        assert decode_reason(line) == "tclk: frame is not valid JSON"
    else:
        assert decode_frame(line)["reason"] == "counterparty unresp" + char


@given(st.characters(min_codepoint=0x80))
def test_decode_ascii_guard_refuses_every_non_ascii_character(char: str) -> None:
    line = GOLDEN["cancel"]["line"].replace("unresponsive", "unresp" + char)
    assert decode_reason(line) == NON_PRINTABLE


def test_decode_admits_spaces_around_the_json_body_only() -> None:
    body = GOLDEN["cancel"]["line"][len(TCLK_PREFIX) :]
    assert decode_frame("tclk1    " + body + "   ") == decode_frame(GOLDEN["cancel"]["line"])
    assert decode_reason("tclk1 " + body + " x") == "tclk: frame is not valid JSON"
    assert decode_reason("tclk1 " + body + body) == "tclk: frame is not valid JSON"
    assert decode_reason("tclk1    ") == "tclk: frame is not valid JSON"


def test_decode_guards_apply_to_the_prefix_part_too() -> None:
    assert decode_reason("tclk1 \x7f" + GOLDEN["cancel"]["line"][6:]) == NON_PRINTABLE


@pytest.mark.parametrize(
    "body",
    [
        "",
        "{",
        "{}}",
        "NaN",
        "Infinity",
        "-Infinity",
        '{"claimByMs":NaN}',
        '{"a":Infinity}',
        "{'a':1}",
        '{"a":01}',
        '{"a":1.}',
        '{"a":.5}',
        '{"a":+1}',
        "undefined",
        '{"a":"\\x41"}',
    ],
)
def test_decode_invalid_json(body: str) -> None:
    assert decode_reason("tclk1 " + body) == "tclk: frame is not valid JSON"


@pytest.mark.parametrize("body", ["[]", "null", "1", '"offer"', "true", " [1] "])
def test_decode_non_object_json(body: str) -> None:
    assert decode_reason("tclk1 " + body) == "tclk: frame must be an object"


def test_decode_validation_errors_are_the_validator_messages() -> None:
    assert decode_reason('tclk1 {"type":1}') == "tclk: unknown frame type: 1"
    assert decode_reason("tclk1 {}") == "tclk: unknown frame type: undefined"
    line = GOLDEN["cancel"]["line"].replace('"type"', '"zz":1,"type"')
    assert decode_reason(line) == "tclk: unknown field on cancel: zz"


def test_decode_refuses_absurd_nesting_with_a_frame_error() -> None:
    for body in ("[" * 4000, '{"a":' * 800, "[" * 2000 + "]" * 2000):
        assert decode_reason("tclk1 " + body).startswith("tclk: frame ")


# --- non-canonical input decode accepts -----------------------------------------------------------


def test_decode_accepts_any_key_order_and_spaces() -> None:
    frame = GOLDEN["offer"]["frame"]
    body = json.dumps(dict(reversed(list(frame.items()))), separators=(" , ", " : "))
    assert decode_frame("tclk1    " + body + "   ") == frame


def test_decode_accepts_escape_variants() -> None:
    line = GOLDEN["cancel"]["line"].replace('"cancel"', '"\\u0063ancel"')
    assert decode_frame(line)["type"] == "cancel"
    frame = offer_with_job_id("a/é")
    line = encode_frame(frame).replace("a/\\u00e9", "a\\/\\u00E9")
    assert decode_frame(line) == frame


@pytest.mark.parametrize(
    ("spelling", "value"),
    [
        ("1760003600000.0", 1760003600000),
        ("1.7600036e12", 1760003600000),
        ("17600036E5", 1760003600000),
        ("9007199254740990.9", 9007199254740991),
    ],
)
def test_decode_turns_integral_floats_into_ints(spelling: str, value: int) -> None:
    frame = with_id({**golden("offer"), "refundAfterMs": value, "claimByMs": 5})
    line = encode_frame(frame).replace(f'"refundAfterMs":{value}', f'"refundAfterMs":{spelling}')
    assert spelling in line
    decoded = decode_frame(line)
    assert decoded == frame
    assert type(decoded["refundAfterMs"]) is int


def test_decode_accepts_100e_minus_1_as_ten() -> None:
    frame = with_id({**golden("offer"), "claimByMs": 10})
    line = encode_frame(frame).replace('"claimByMs":10', '"claimByMs":100e-1')
    assert decode_frame(line)["claimByMs"] == 10


@pytest.mark.parametrize(
    "spelling", ["10.5", "-0", "-0.0", "9007199254740992", '"10"', "true", "0"]
)
def test_decode_refuses_non_integral_or_unsafe_ms(spelling: str) -> None:
    frame = with_id({**golden("offer"), "claimByMs": 10})
    line = encode_frame(frame).replace('"claimByMs":10', f'"claimByMs":{spelling}')
    assert decode_reason(line) == "tclk: claimByMs must be a positive unix-ms integer"


def test_decode_duplicate_keys_last_one_wins() -> None:
    line = GOLDEN["cancel"]["line"]
    doubled = line.replace('"reason":', '"reason":"first","reason":')
    assert decode_frame(doubled)["reason"] == "counterparty unresponsive"
    first_bad = line.replace('"reason":', '"reason":"","reason":')
    assert decode_frame(first_bad)["reason"] == "counterparty unresponsive"
    last_bad = line[:-1] + ',"reason":""}'
    assert decode_reason(last_bad) == "tclk: reason must be a non-empty string"


def test_decode_keeps_legacy_and_duplicate_rails_that_encode_refuses() -> None:
    frame = with_id({**golden("offer"), "rails": ["x402", "PaperRail", "x402"]})
    body = to_ascii(canonical_json(frame))
    assert decode_frame(TCLK_PREFIX + body) == frame
    with pytest.raises(FrameError, match="non-canonical rail id: PaperRail; use paper"):
        encode_frame(frame)


def test_decode_never_returns_encode_bytes_assumption() -> None:
    line = GOLDEN["cancel"]["line"].replace('{"contract"', '{ "contract"')
    assert encode_frame(decode_frame(line)) == GOLDEN["cancel"]["line"] != line


def test_utf16_len() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("é\U0001f600\ud800") == 4


# --- properties ---------------------------------------------------------------------------


@given(valid_frames)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_encode_decode_identity(frame: dict[str, Any]) -> None:
    line = encode_frame(frame)
    assert line.startswith(TCLK_PREFIX)
    assert re.fullmatch(r"[\x20-\x7e]*", line)
    decoded = decode_frame(line)
    assert decoded == frame
    assert encode_frame(decoded) == line


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(max_size=8),
        st.sampled_from(["offer", "lock", "receipt", "type", PAYER, "0x" + "a" * 64]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(
                st.one_of(st.sampled_from(["type", "from", "job", "presig", "rails"]), st.text()),
                inner,
                max_size=5,
            ),
        ),
        max_leaves=20,
    )


@given(st.one_of(st.text(), st.text().map(lambda s: TCLK_PREFIX + s)))
@settings(max_examples=300)
def test_decode_of_arbitrary_text_only_raises_frame_error(text: str) -> None:
    with contextlib.suppress(FrameError):
        decode_frame(text)


@given(json_values())
@settings(max_examples=300)
def test_decode_of_arbitrary_json_only_raises_frame_error(value: Any) -> None:
    line = TCLK_PREFIX + json.dumps(value)
    with contextlib.suppress(FrameError):
        decode_frame(line)
    assert try_decode_frame(line) is None or isinstance(try_decode_frame(line), dict)


@given(valid_frames, st.data())
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_decode_of_mutated_lines_only_raises_frame_error(frame: dict[str, Any], data: Any) -> None:
    line = encode_frame(frame)
    position = data.draw(st.integers(len(TCLK_PREFIX), len(line) - 1))
    char = data.draw(st.characters(min_codepoint=0x20, max_codepoint=0x7E))
    mutated = line[:position] + char + line[position + 1 :]
    try:
        decoded = decode_frame(mutated)
    except FrameError:
        return
    assert validate_frame(decoded) is decoded  # a mutant that decodes is a valid frame
