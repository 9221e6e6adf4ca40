"""The canonical-line grammar `decode_frame` reads common frames with: it must yield exactly what
the full decode path yields, for every line it admits, and admit nothing that path refuses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.protocol import canonical_lines, frames
from tclk_tui.protocol.canonical import MAX_SAFE_INTEGER, canonical_json
from tclk_tui.protocol.canonical_lines import GRAMMARS, read_canonical, read_canonical_offer
from tclk_tui.protocol.codec import (
    MAX_FRAME_CHARS,
    TCLK_PREFIX,
    decode_frame,
    decode_frame_reference,
    encode_frame,
)
from tclk_tui.protocol.errors import FrameError
from tclk_tui.protocol.ids import TCLK_DOMAIN

from .test_protocol_frames import GOLDEN, deal_frames, offers, valid_frames, with_id

ALL_GRAMMARS = [grammar for variants in GRAMMARS.values() for grammar in variants]


def outcome(decode: Any, text: object) -> tuple[str, Any]:
    """What a decoder does with `text`: the frame's items in order, or the refusal's words."""
    try:
        return "frame", list(decode(text).items())
    except FrameError as exc:
        return "refused", str(exc)


def test_field_patterns_are_those_validate_frame_applies() -> None:
    assert frames.DID_RE.pattern == canonical_lines.DID
    assert frames.HEX32_RE.pattern == canonical_lines.HEX32
    assert frames.STATEMENT_RE.pattern == canonical_lines.STATEMENT
    assert frames.NONCE_RE.pattern == canonical_lines.NONCE
    assert frames.RAIL_RE.pattern == canonical_lines.RAIL
    assert canonical_lines.OUTCOME.split("|") == list(frames.OUTCOMES)
    assert canonical_lines._MAX_CHARS == MAX_FRAME_CHARS
    assert canonical_lines._PREFIX == TCLK_PREFIX
    assert frames.AMOUNT_RE.pattern == canonical_lines.AMOUNT
    assert frames.ASSET_RE.pattern == canonical_lines.ASSET
    assert frames.HEX33_RE.pattern == canonical_lines.HEX33
    assert canonical_lines._DOMAIN == TCLK_DOMAIN
    assert canonical_lines._MAX_SAFE == MAX_SAFE_INTEGER
    assert frames.ROLES == ("payer", "payee") and frames.LOCK_KINDS == ("hash", "point")


def test_free_text_is_printable_ascii_that_json_reads_verbatim() -> None:
    import re

    text = re.compile(canonical_lines.TEXT)
    admitted = {chr(code) for code in range(0x110000) if text.fullmatch(chr(code))}
    assert admitted == {chr(code) for code in range(0x20, 0x7F)} - {'"', "\\"}


@pytest.mark.parametrize("grammar", ALL_GRAMMARS, ids=lambda g: f"{g.kind}:{','.join(g.keys)}")
def test_each_grammar_names_the_keys_its_type_allows_in_canonical_order(grammar: Any) -> None:
    fields = frames.FRAME_FIELDS[grammar.kind]
    assert grammar.keys[-1] == "type"
    assert list(grammar.keys) == sorted(grammar.keys)  # the encoder's order
    assert fields.required_set <= set(grammar.keys) <= fields.allowed
    assert grammar.pattern.groups == len(grammar.keys)


def _offer_line(**changes: Any) -> str:
    """The golden offer without its job, changed, with the id its changed text hashes to."""
    frame = {key: value for key, value in GOLDEN["offer"]["frame"].items()
             if key not in ("id", "job")}
    frame.update(changes)
    return TCLK_PREFIX + canonical_json(with_id(frame))


def test_every_golden_frame_takes_the_grammar_but_an_offer_with_a_job() -> None:
    for vector in GOLDEN.values():
        fast = read_canonical(vector["line"])
        if "job" in vector["frame"]:
            assert fast is None  # its nested object: the full path reads it
            continue
        assert fast == vector["frame"]
        assert list(fast.items()) == list(decode_frame_reference(vector["line"]).items())
    plain = _offer_line()
    assert list(read_canonical(plain).items()) == list(decode_frame_reference(plain).items())


@given(offers())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_an_offer_without_a_job_takes_its_grammar_and_decodes_alike(frame: dict[str, Any]) -> None:
    line = encode_frame(frame)
    fast = read_canonical_offer(line)
    if "job" in frame:
        assert fast is None
        return
    assert fast is not None
    assert list(fast.items()) == list(decode_frame_reference(line).items())


@pytest.mark.parametrize(
    "line",
    [
        # each looks canonical and spells a valid id, yet the frame is not an offer
        _offer_line(claimByMs=2**53, refundAfterMs=2**53 + 1),  # past a safe integer
        _offer_line(claimByMs=5, refundAfterMs=5),  # claim not before refund
        _offer_line(lock="point"),  # a point lock without its payment key
        _offer_line(lock="point", paymentKey="0x02" + "00" * 32),  # not on the curve
        _offer_line(role="payor"),
        # a wrong id, and the id's member spelled in another place
        _offer_line().replace(read_canonical_offer(_offer_line())["id"], "0x" + "0" * 64),
        _offer_line().replace('"asset":', '"asset" :'),
    ],
)
def test_an_offer_the_grammar_cannot_vouch_for_is_judged_by_the_full_path(line: str) -> None:
    assert read_canonical_offer(line) is None
    assert outcome(decode_frame, line) == outcome(decode_frame_reference, line)


@pytest.mark.parametrize("grammar", ALL_GRAMMARS, ids=lambda g: f"{g.kind}:{','.join(g.keys)}")
@given(data=st.data())
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
def test_every_line_the_grammar_admits_decodes_to_the_same_frame(grammar: Any, data: Any) -> None:
    line = data.draw(st.from_regex(grammar.pattern, fullmatch=True))
    fast = read_canonical(line)
    if len(line) > MAX_FRAME_CHARS:
        assert fast is None
        return
    assert fast is not None
    assert ("frame", list(fast.items())) == outcome(decode_frame_reference, line)


@given(valid_frames)
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_encoded_frames_decode_alike_on_both_paths(frame: dict[str, Any]) -> None:
    line = encode_frame(frame)
    fast = read_canonical(line)
    assert fast is None or list(fast.items()) == list(decode_frame_reference(line).items())
    assert outcome(decode_frame, line) == outcome(decode_frame_reference, line)


def _plain(value: object) -> bool:
    return isinstance(value, str) and value.isascii() and value.isprintable() and not (
        set(value) & {'"', "\\"}
    )


@given(deal_frames())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_plain_deal_frames_take_the_grammar(frame: dict[str, Any]) -> None:
    """Every deal frame with plain values and no nested or point-checked field is read by the
    grammar (the speed the fold relies on)."""
    if "presig" in frame or "paymentKey" in frame or not all(map(_plain, frame.values())):
        return
    assert read_canonical(encode_frame(frame)) == frame


mutations = st.sampled_from(["replace", "insert", "delete"])


@given(valid_frames, st.data())
@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
def test_mutated_lines_are_judged_alike_on_both_paths(frame: dict[str, Any], data: Any) -> None:
    line = encode_frame(frame)
    position = data.draw(st.integers(0, len(line) - 1))
    char = data.draw(st.one_of(st.characters(min_codepoint=0x20, max_codepoint=0x7E),
                               st.sampled_from('"\\,:{}\x7f\x00é')))
    how = data.draw(mutations)
    if how == "replace":
        mutated = line[:position] + char + line[position + 1:]
    elif how == "insert":
        mutated = line[:position] + char + line[position:]
    else:
        mutated = line[:position] + line[position + 1:]
    fast = read_canonical(mutated)
    reference = outcome(decode_frame_reference, mutated)
    if fast is not None:
        assert ("frame", list(fast.items())) == reference
    assert outcome(decode_frame, mutated) == reference


@pytest.mark.parametrize(
    "line",
    [
        # keys out of canonical order, whitespace, an escape, a duplicate key, trailing data
        GOLDEN["heartbeat"]["line"].replace('"contract"', ' "contract"'),
        GOLDEN["heartbeat"]["line"].replace('"note":"', '"note":"\\u0041'),
        GOLDEN["heartbeat"]["line"] + " ",
        GOLDEN["heartbeat"]["line"][:-1] + ',"type":"heartbeat"}',
        GOLDEN["cancel"]["line"].replace('"cancel"', '"heartbeat"'),
        GOLDEN["heartbeat"]["line"].replace("tclk1 ", "tclk1  "),
        GOLDEN["receipt"]["line"].replace('"claimed"', '"Claimed"'),
    ],
)
def test_other_spellings_take_the_full_path(line: str) -> None:
    assert read_canonical(line) is None
    assert outcome(decode_frame, line) == outcome(decode_frame_reference, line)


def test_a_line_over_the_cap_is_refused_with_the_cap_message() -> None:
    vector = GOLDEN["heartbeat"]
    line = vector["line"].replace(vector["frame"]["note"], "n" * MAX_FRAME_CHARS)
    assert read_canonical(line) is None
    assert outcome(decode_frame, line) == outcome(decode_frame_reference, line)
    assert outcome(decode_frame, line)[1].startswith("tclk: frame exceeds the 4096-char")
