"""The arbiter's and juror's desk: secret shares and commit-reveal votes (SPEC §8).

Vote rounds ride the deal room as signed plain lines (`protocol.side_lines`; not tclk/1 frames,
so a fold skips them): `tclk1-vote commit <commitment>` first, then
`tclk1-vote reveal <salt> <verdict>`. How a round is counted is engine.arbitration.vote_round's one
reading, under the round's deadline.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from tclk_tui.protocol.arbitration import (
    combine_secret,
    combine_witness,
    generate_salt,
    split_secret,
    split_witness,
    verify_vote_commitment,
    vote_commitment,
)
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.side_lines import encode_vote_commit, encode_vote_reveal
from tclk_tui.protocol.transcript import TranscriptRecord

ShareKind = Literal["preimage", "witness"]
_T = TypeVar("_T")


class ArbitrationError(Exception):
    """An operator input the protocol refuses; the message is the protocol's reason."""


@dataclass(frozen=True, slots=True)
class CombineResult:
    value: str
    # None when no statement was given; otherwise whether the value opens it.
    opens: bool | None

    def __repr__(self) -> str:
        return f"CombineResult(value=<redacted>, opens={self.opens})"


@dataclass(frozen=True, slots=True)
class VoteCommit:
    contract: str
    verdict: str
    salt: str
    commitment: str

    def __repr__(self) -> str:
        # The salt seals the vote until the reveal round: keep it out of logs and reprs.
        return (f"VoteCommit(contract={self.contract!r}, commitment={self.commitment!r}, "
                "verdict=<redacted>, salt=<redacted>)")

    @property
    def commit_line(self) -> str:
        return encode_vote_commit(self.commitment)

    @property
    def reveal_line(self) -> str:
        return encode_vote_reveal(self.salt, self.verdict)


@dataclass(frozen=True, slots=True)
class Tally:
    contract: str
    commits: dict[str, str] = field(default_factory=dict)  # juror DID -> commitment
    reveals: dict[str, str] = field(default_factory=dict)  # juror DID -> verdict (opened)
    counts: dict[str, int] = field(default_factory=dict)  # verdict -> votes
    problems: tuple[str, ...] = ()


def _guard(call: Callable[..., _T], *args: Any) -> _T:
    try:
        return call(*args)
    except TclkError as exc:
        raise ArbitrationError(str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise ArbitrationError(f"tclk: {exc}") from None


def split(kind: ShareKind, secret: str, parts: int) -> list[str]:
    splitter = split_secret if kind == "preimage" else split_witness
    return _guard(splitter, secret.strip().lower(), parts)


def combine(kind: ShareKind, shares: list[str], statement: str | None = None) -> CombineResult:
    combiner = combine_secret if kind == "preimage" else combine_witness
    value = _guard(combiner, [s.strip().lower() for s in shares if s.strip()])
    if not statement:
        return CombineResult(value=value, opens=None)
    lock = "hash" if kind == "preimage" else "point"
    return CombineResult(value=value, opens=verify_secret(lock, statement.strip(), value))


def commit_vote(contract: str, verdict: str) -> VoteCommit:
    # The protocol allows edge spaces, but the venue trims a line's ends, so a reveal line
    # ending in the verdict's trailing space would be stored (and signed) differently.
    if isinstance(verdict, str) and verdict != verdict.strip():
        raise ArbitrationError("a verdict with leading or trailing spaces cannot be revealed "
                               "on the venue (it trims them)")
    salt = generate_salt()
    commitment = _guard(vote_commitment, contract, verdict, salt)
    _guard(encode_vote_reveal, salt, verdict)  # the opening must fit a room line too
    return VoteCommit(contract=contract, verdict=verdict, salt=salt, commitment=commitment)


def verify_vote(commitment: str, contract: str, verdict: str, salt: str) -> bool:
    return verify_vote_commitment(commitment.strip(), contract.strip(), verdict, salt.strip())


class ArbitrationDesk:
    """The wallet's arbiter/juror desk: pure share and vote maths, plus reading and posting a
    round in a contract's deal room through the wallet's venue client and outbox."""

    def __init__(self, read_room: Callable[[str], Awaitable[list[TranscriptRecord]]],
                 post_line: Callable[[str, str], Awaitable[None]],
                 offer_of: Callable[[str], Mapping[str, Any] | None] = lambda contract: None
                 ) -> None:
        self._read_room = read_room
        self._post_line = post_line
        self._offer_of = offer_of  # the offer a contract was accepted from, when known

    def split(self, kind: ShareKind, secret: str, parts: int) -> list[str]:
        if not isinstance(parts, int) or not 2 <= parts <= 64:
            raise ArbitrationError("split between 2 and 64 parts")
        return split(kind, secret, parts)

    def combine(self, kind: ShareKind, shares: list[str],
                statement: str | None = None) -> CombineResult:
        return combine(kind, shares, statement)

    def commit_vote(self, contract: str, verdict: str) -> VoteCommit:
        return commit_vote(contract.strip(), verdict)

    def verify_vote(self, commitment: str, contract: str, verdict: str, salt: str) -> bool:
        return verify_vote(commitment, contract, verdict, salt)

    async def tally(self, contract: str, jurors: Collection[str] | None = None) -> Tally:
        """The round as every other reader counts it (engine.arbitration.vote_round.count_votes)."""
        from tclk_tui.engine.arbitration.vote_round import count_votes  # it builds on this module

        return count_votes(contract, await self._read_room(contract),
                           self._offer_of(contract.strip()), jurors)

    async def post_commit(self, vote: VoteCommit) -> None:
        await self._post_line(vote.contract, vote.commit_line)

    async def post_reveal(self, vote: VoteCommit) -> None:
        await self._post_line(vote.contract, vote.reveal_line)
