"""The signed plain lines posted beside tclk/1 frames: `tclk1-statement` and `tclk1-vote`.

tclk/1 has no frame for either, so this wallet writes them as plain room lines, signed like any
record; their prefixes are not `tclk1 `, so a reference reader (and `fold_transcript`) skips
them. They are this project's own grammar, not the reference's:

    tclk1-statement <offer id> <statement>     the board: a payee's or a panel's lock statement
    tclk1-vote commit <commitment>             a deal room: a juror's sealed vote (SPEC §8.3)
    tclk1-vote reveal <salt> <verdict>         a deal room: the vote opened

An offer id, a commitment and a salt are 32 bytes of `0x` + lowercase hex; a statement is 32
or 33 (whether it fits the offer's lock kind is the board's question, not the line's); the
verdict is the rest of the line, one `vote_commitment` accepts, with no space at either end (the
venue trims a line's ends, so such a reveal would be stored and signed as another text and
never open its commitment). Tokens are one space apart, nothing else is allowed around them,
and a line stays within the room-message cap (4096 UTF-16 code units).

Parsing accepts exactly what encoding writes: a parsed line re-encodes to the same text, so a
reader never has to keep a second spelling apart. Every refusal is a `LineError` whose message
names the rule, never the value (a stranger's line is not echoed into a tally of reasons).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, TypeAlias

from tclk_tui.protocol.arbitration import verdict_problem
from tclk_tui.protocol.canonical import utf16_len
from tclk_tui.protocol.codec import MAX_FRAME_CHARS
from tclk_tui.protocol.errors import LineError
from tclk_tui.protocol.hexutil import HEX32_RE

STATEMENT_PREFIX: Final = "tclk1-statement "
VOTE_PREFIX: Final = "tclk1-vote "
MAX_LINE_CHARS: Final = MAX_FRAME_CHARS
"""The room-message cap in UTF-16 code units, as for a frame's line."""

_COMMIT: Final = "commit "
_REVEAL: Final = "reveal "
_HEX32_CHARS: Final = 66
_STATEMENT_RE: Final = re.compile(r"0x(?:[0-9a-f]{64}|[0-9a-f]{66})")

NOT_A_STATEMENT_LINE: Final = "tclk: not a tclk1-statement line"
STATEMENT_SHAPE: Final = "tclk: a statement line is `tclk1-statement <offer id> <statement>`"
BAD_OFFER_ID: Final = "tclk: a statement line's offer id must be 32 bytes of lowercase 0x-hex"
BAD_STATEMENT: Final = ("tclk: a statement line's statement must be 32 or 33 bytes of "
                        "lowercase 0x-hex")
NOT_A_VOTE_LINE: Final = "tclk: not a tclk1-vote line"
VOTE_SHAPE: Final = "tclk: a vote line is `commit <commitment>` or `reveal <salt> <verdict>`"
BAD_COMMITMENT: Final = "tclk: a vote commitment must be 32 bytes of lowercase 0x-hex"
BAD_SALT: Final = "tclk: a vote salt must be 32 bytes of lowercase 0x-hex"
EDGE_SPACE: Final = ("tclk: a verdict must not start or end with a space (the venue trims a "
                     "line's ends)")
TOO_LONG: Final = f"tclk: line exceeds the {MAX_LINE_CHARS}-char room-message cap"


@dataclass(frozen=True, slots=True)
class StatementLine:
    """`tclk1-statement <offer_id> <statement>`: who signed it is the record's business."""

    offer_id: str
    statement: str


@dataclass(frozen=True, slots=True)
class VoteCommitLine:
    """`tclk1-vote commit <commitment>`."""

    commitment: str


@dataclass(frozen=True, slots=True)
class VoteRevealLine:
    """`tclk1-vote reveal <salt> <verdict>`. Until it is posted the salt seals a vote, so the
    repr keeps both out of logs."""

    salt: str
    verdict: str

    def __repr__(self) -> str:
        return "VoteRevealLine(salt=<redacted>, verdict=<redacted>)"


VoteLine: TypeAlias = VoteCommitLine | VoteRevealLine


def _hex32(value: object, message: str) -> str:
    if not isinstance(value, str) or HEX32_RE.fullmatch(value) is None:
        raise LineError(message)
    return value


def _verdict(value: object) -> str:
    problem = verdict_problem(value)
    if problem is not None:
        raise LineError(problem)
    assert isinstance(value, str)
    if value != value.strip():
        raise LineError(EDGE_SPACE)
    return value


def _capped(line: str) -> str:
    if (len(line) if line.isascii() else utf16_len(line)) > MAX_LINE_CHARS:
        raise LineError(TOO_LONG)
    return line


def _body(line: object, prefix: str, not_ours: str) -> str:
    """The text after `prefix`, once the line is known to be a capped line with that prefix."""
    if not isinstance(line, str) or not line.startswith(prefix):
        raise LineError(not_ours)
    return _capped(line)[len(prefix):]


# -- tclk1-statement ------------------------------------------------------------------------


def is_statement_line(line: object) -> bool:
    """Does the line claim to be a statement line (well-formed or not)?"""
    return isinstance(line, str) and line.startswith(STATEMENT_PREFIX)


def encode_statement(offer_id: str, statement: str) -> str:
    """The signed side-line a payee-role offerer (or an offer's panel) posts on the board so
    the payer can build its accept: tclk/1 has no field for a payee-minted statement in a
    payee-role offer (the reference's issue #12)."""
    _hex32(offer_id, BAD_OFFER_ID)
    if not isinstance(statement, str) or _STATEMENT_RE.fullmatch(statement) is None:
        raise LineError(BAD_STATEMENT)
    return f"{STATEMENT_PREFIX}{offer_id} {statement}"


def parse_statement(line: object) -> StatementLine:
    """The fields of a statement line; LineError for any text `encode_statement` cannot write."""
    parts = _body(line, STATEMENT_PREFIX, NOT_A_STATEMENT_LINE).split(" ")
    if len(parts) != 2:
        raise LineError(STATEMENT_SHAPE)
    offer_id, statement = parts
    encode_statement(offer_id, statement)  # the same checks, in the same order
    return StatementLine(offer_id=offer_id, statement=statement)


def try_parse_statement(line: object) -> StatementLine | None:
    """`parse_statement`, or None for any line that is not a well-formed statement line."""
    try:
        return parse_statement(line)
    except LineError:
        return None


# -- tclk1-vote -----------------------------------------------------------------------------


def is_vote_line(line: object) -> bool:
    """Does the line claim to be a vote line (well-formed or not)?"""
    return isinstance(line, str) and line.startswith(VOTE_PREFIX)


def encode_vote_commit(commitment: str) -> str:
    """A juror's sealed vote, `vote_commitment`'s output, as its deal-room line."""
    return f"{VOTE_PREFIX}{_COMMIT}{_hex32(commitment, BAD_COMMITMENT)}"


def encode_vote_reveal(salt: str, verdict: str) -> str:
    """The opening of a sealed vote. Refused for a verdict the venue would store otherwise."""
    _hex32(salt, BAD_SALT)
    return _capped(f"{VOTE_PREFIX}{_REVEAL}{salt} {_verdict(verdict)}")


def parse_vote(line: object) -> VoteLine:
    """The fields of a vote line; LineError for any text the encoders cannot write."""
    body = _body(line, VOTE_PREFIX, NOT_A_VOTE_LINE)
    if body.startswith(_COMMIT):
        commitment = body[len(_COMMIT):]
        return VoteCommitLine(commitment=_hex32(commitment, BAD_COMMITMENT))
    if body.startswith(_REVEAL):
        rest = body[len(_REVEAL):]
        salt, space, verdict = rest[:_HEX32_CHARS], rest[_HEX32_CHARS:_HEX32_CHARS + 1], \
            rest[_HEX32_CHARS + 1:]
        _hex32(salt, BAD_SALT)
        if space != " ":
            raise LineError(VOTE_SHAPE)
        return VoteRevealLine(salt=salt, verdict=_verdict(verdict))
    raise LineError(VOTE_SHAPE)


def try_parse_vote(line: object) -> VoteLine | None:
    """`parse_vote`, or None for any line that is not a well-formed vote line."""
    try:
        return parse_vote(line)
    except LineError:
        return None


__all__ = [
    "MAX_LINE_CHARS",
    "STATEMENT_PREFIX",
    "VOTE_PREFIX",
    "StatementLine",
    "VoteCommitLine",
    "VoteLine",
    "VoteRevealLine",
    "encode_statement",
    "encode_vote_commit",
    "encode_vote_reveal",
    "is_statement_line",
    "is_vote_line",
    "parse_statement",
    "parse_vote",
    "try_parse_statement",
    "try_parse_vote",
]
