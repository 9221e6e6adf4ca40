"""The `tclk1-statement` and `tclk1-vote` lines: encode then parse is the identity, parse refuses
every text the encoders cannot write, the golden vectors hold, and the JSON Schema agrees."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol import side_lines as sl
from tclk_tui.protocol.arbitration import verdict_problem, verify_vote_commitment, vote_commitment
from tclk_tui.protocol.canonical import utf16_len
from tclk_tui.protocol.errors import LineError
from tclk_tui.protocol.side_lines import (
    StatementLine,
    VoteCommitLine,
    VoteRevealLine,
    encode_statement,
    encode_vote_commit,
    encode_vote_reveal,
    parse_statement,
    parse_vote,
    try_parse_statement,
    try_parse_vote,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN: dict[str, Any] = json.loads(
    (ROOT / "tests" / "vectors" / "tclk-side-lines.golden.json").read_text("utf-8"))
SCHEMA: dict[str, Any] = json.loads(
    (ROOT / "schema" / "tclk1-side-lines.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
CONTRACT = "0x2768bf32b455317879796093ff2e5882371cbec238611ca71f555a7fcbe58e1c"

hex32 = st.binary(min_size=32, max_size=32).map(lambda b: "0x" + b.hex())
hex33 = st.binary(min_size=33, max_size=33).map(lambda b: "0x" + b.hex())
statements = st.one_of(hex32, hex33)
verdicts = st.text(min_size=1, max_size=40)


def encode(value: StatementLine | VoteCommitLine | VoteRevealLine) -> str:
    if isinstance(value, StatementLine):
        return encode_statement(value.offer_id, value.statement)
    if isinstance(value, VoteCommitLine):
        return encode_vote_commit(value.commitment)
    return encode_vote_reveal(value.salt, value.verdict)


def parse_any(line: str) -> StatementLine | VoteCommitLine | VoteRevealLine:
    return parse_statement(line) if line.startswith(sl.STATEMENT_PREFIX) else parse_vote(line)


def parser_only(line: str) -> bool:
    """A refusal JSON Schema cannot express (see the schema's description)."""
    late = any(0x13439 <= ord(ch) <= 0x1343F for ch in line)
    cf = any(unicodedata.category(ch) == "Cf" for ch in line)
    return late or cf or (len(line) <= sl.MAX_LINE_CHARS < utf16_len(line))


# -- encode then parse ----------------------------------------------------------------------


@given(hex32, statements)
def test_a_statement_line_parses_back_to_its_fields(offer_id: str, statement: str) -> None:
    line = encode_statement(offer_id, statement)
    assert parse_statement(line) == StatementLine(offer_id=offer_id, statement=statement)
    assert VALIDATOR.is_valid(line)


@given(hex32)
def test_a_commit_line_parses_back_to_its_commitment(commitment: str) -> None:
    line = encode_vote_commit(commitment)
    assert parse_vote(line) == VoteCommitLine(commitment=commitment)
    assert VALIDATOR.is_valid(line)


@given(hex32, verdicts)
def test_a_reveal_line_parses_back_or_its_verdict_is_refused(salt: str, verdict: str) -> None:
    try:
        line = encode_vote_reveal(salt, verdict)
    except LineError:
        # Refused only for a verdict no commitment takes, or one the venue would trim.
        assert verdict_problem(verdict) is not None or verdict != verdict.strip()
        return
    assert parse_vote(line) == VoteRevealLine(salt=salt, verdict=verdict)
    assert VALIDATOR.is_valid(line)
    # Whatever the line carries opens the commitment made of it.
    assert verify_vote_commitment(vote_commitment(CONTRACT, verdict, salt), CONTRACT, verdict, salt)


# -- parse refuses what encode cannot write -------------------------------------------------

_VALID = [v["line"] for v in GOLDEN["vectors"]]


def _mutations() -> st.SearchStrategy[str]:
    """Lines near valid ones: a character inserted, dropped or replaced, or a tail added."""
    base = st.sampled_from(_VALID)
    chars = st.one_of(st.sampled_from(list(" \t\n|0aAfFxX\u200b\u2028\x85\u00a0")),
                      st.characters())

    def mutate(args: tuple[str, int, str, int]) -> str:
        line, at, ch, how = args
        at %= len(line) + 1
        if how == 0:
            return line[:at] + ch + line[at:]
        if how == 1:
            return line[:at] + line[at + 1:]
        if how == 2:
            return line[:at] + ch + line[at + 1:]
        return line + ch
    return st.tuples(base, st.integers(0, 200), chars, st.integers(0, 3)).map(mutate)


def _respaced() -> st.SearchStrategy[str]:
    """Valid lines with their spacing changed: the leniency a reader is most tempted by."""
    gaps = st.sampled_from([" ", "  ", "\t", "\u00a0", " \n", ""])

    def respace(args: tuple[str, list[str], str, str]) -> str:
        line, seps, lead, tail = args
        words = line.split(" ")
        out = words[0]
        for index, word in enumerate(words[1:]):
            out += seps[index % len(seps)] + word
        return lead + out + tail
    return st.tuples(st.sampled_from(_VALID), st.lists(gaps, min_size=1, max_size=4),
                     st.sampled_from(["", " ", "\n"]), st.sampled_from(["", " ", "\n", "\t"])
                     ).map(respace)


_lines = st.one_of(
    _mutations(),
    _respaced(),
    st.text(max_size=80).map(lambda t: sl.STATEMENT_PREFIX + t),
    st.text(max_size=80).map(lambda t: sl.VOTE_PREFIX + t),
    st.text(max_size=40).map(lambda t: sl.VOTE_PREFIX + "reveal " + "0x" + "11" * 32 + " " + t),
    st.text(max_size=40),
)


@settings(max_examples=400)
@given(_lines)
def test_a_line_the_parser_accepts_is_exactly_what_the_encoder_writes(line: str) -> None:
    try:
        value = parse_any(line)
    except LineError:
        assert not VALIDATOR.is_valid(line) or parser_only(line), line
        return
    assert encode(value) == line
    assert VALIDATOR.is_valid(line)


@pytest.mark.parametrize("line", [
    None, 7, b"tclk1-vote commit", "", "tclk1 {}", "tclk1-statement", "tclk1-vote ",
    "tclk1-statement " + "x" * 5000, "tclk1-vote reveal 0x" + "11" * 32 + " " + "v" * 4100,
])
def test_hostile_or_foreign_input_is_a_line_error(line: object) -> None:
    with pytest.raises(LineError):
        parse_statement(line)
    with pytest.raises(LineError):
        parse_vote(line)
    assert try_parse_statement(line) is None and try_parse_vote(line) is None


def test_a_refusal_never_echoes_the_line() -> None:
    secretish = "0x" + "ab" * 32
    for line in (f"tclk1-vote reveal {secretish} release|x", f"tclk1-statement {secretish} zz"):
        with pytest.raises(LineError) as info:
            parse_any(line)
        assert "ab" * 8 not in str(info.value)


def test_encoders_refuse_what_they_cannot_write() -> None:
    good = "0x" + "11" * 32
    for call in (lambda: encode_statement(good.upper(), good),
                 lambda: encode_statement(good, good + "1"),
                 lambda: encode_statement(good, None),  # type: ignore[arg-type]
                 lambda: encode_vote_commit("0x11"),
                 lambda: encode_vote_reveal(good, " release"),
                 lambda: encode_vote_reveal(good, "release\n"),
                 lambda: encode_vote_reveal(good, "v" * 4100),
                 lambda: encode_vote_reveal("0x11", "release")):
        with pytest.raises(LineError):
            call()


def test_the_repr_of_an_opening_keeps_its_salt_out_of_logs() -> None:
    salt = "0x" + "5a" * 32
    assert "5a5a" not in repr(VoteRevealLine(salt=salt, verdict="release"))
    assert "release" not in repr(VoteRevealLine(salt=salt, verdict="release"))


# -- golden vectors -------------------------------------------------------------------------


def test_the_vectors_say_they_are_this_projects_own() -> None:
    assert "not the reference's" in GOLDEN["origin"]


@pytest.mark.parametrize("vector", GOLDEN["vectors"], ids=lambda v: v["name"])
def test_golden_line(vector: dict[str, Any]) -> None:
    kind, fields, line = vector["kind"], vector["fields"], vector["line"]
    value: StatementLine | VoteCommitLine | VoteRevealLine
    if kind == "statement":
        value = StatementLine(**fields)
    elif kind == "vote-commit":
        value = VoteCommitLine(**fields)
        made_of = vector["commitment_of"]
        assert vote_commitment(made_of["contract"], made_of["verdict"],
                               made_of["salt"]) == fields["commitment"]
    else:
        value = VoteRevealLine(**fields)
    assert encode(value) == line
    assert parse_any(line) == value
    assert VALIDATOR.is_valid(line)


@pytest.mark.parametrize("vector", GOLDEN["refused"], ids=lambda v: v["name"])
def test_golden_refusal(vector: dict[str, Any]) -> None:
    parse = parse_statement if vector["kind"] == "statement" else parse_vote
    with pytest.raises(LineError) as info:
        parse(vector["line"])
    assert str(info.value) == vector["error"]
    assert not VALIDATOR.is_valid(vector["line"]) or parser_only(vector["line"])


def test_every_vector_kind_and_every_refusal_message_is_covered() -> None:
    assert {v["kind"] for v in GOLDEN["vectors"]} == {"statement", "vote-commit", "vote-reveal"}
    messages = {v["error"] for v in GOLDEN["refused"]}
    assert {sl.NOT_A_STATEMENT_LINE, sl.STATEMENT_SHAPE, sl.BAD_OFFER_ID, sl.BAD_STATEMENT,
            sl.NOT_A_VOTE_LINE, sl.VOTE_SHAPE, sl.BAD_COMMITMENT, sl.BAD_SALT,
            sl.EDGE_SPACE} <= messages


# -- the schema -----------------------------------------------------------------------------


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for phrase in ("UTF-16 code units", "Cf", "not tclk/1's"):
        assert phrase in SCHEMA["description"]


def test_the_schema_refuses_a_frame_and_a_trailing_newline() -> None:
    line = GOLDEN["vectors"][0]["line"]
    assert not VALIDATOR.is_valid(line + "\n")
    assert not VALIDATOR.is_valid("tclk1 {}")
