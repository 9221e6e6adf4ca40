"""The arbiter's and juror's desk: secret shares and commit-reveal votes (SPEC §8).

Vote rounds ride the deal room as signed plain lines (`protocol.side_lines`; not tclk/1 frames,
so a fold skips them):
`tclk1-vote commit <commitment>` first, then `tclk1-vote reveal <salt> <verdict>`. A reveal
counts only when it opens that juror's own earlier commitment, and a commitment posted after
any reveal of the round is late: that is what stops a juror from copying or adapting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Iterable
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
from tclk_tui.protocol.side_lines import (
    VoteCommitLine,
    VoteRevealLine,
    encode_vote_commit,
    encode_vote_reveal,
    is_vote_line,
    try_parse_vote,
)
from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record

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


def tally(contract: str, records: Iterable[TranscriptRecord],
          jurors: Collection[str] | None = None) -> Tally:
    """Count a commit-reveal round from signed deal-room records, in venue order.

    Only the panel's `jurors` vote: a did:key costs nothing to mint, so a line from anyone else
    is ignored (and said so), however many there are. With no panel named nothing is counted.
    """
    panel = None if jurors is None else {j.strip() for j in jurors if j.strip()}
    commits: dict[str, str] = {}
    reveals: dict[str, str] = {}
    problems: list[str] = []
    outsiders: set[str] = set()
    revealing = False
    for record in records:
        if not is_vote_line(record.line):
            continue
        if not verify_transcript_record(record).ok:
            problems.append(f"seq {record.seq}: vote line with a bad signature ignored")
            continue
        juror = record.sender
        if panel is not None and juror not in panel:
            if juror not in outsiders:
                outsiders.add(juror)
                problems.append(f"seq {record.seq}: vote from {juror}, who is not on the "
                                "panel, ignored")
            continue
        vote = try_parse_vote(record.line)
        if isinstance(vote, VoteCommitLine):
            if revealing:
                problems.append(f"seq {record.seq}: commitment after reveals began ignored")
            elif juror in commits:
                problems.append(f"seq {record.seq}: second commitment from one juror ignored")
            else:
                commits[juror] = vote.commitment
        elif isinstance(vote, VoteRevealLine):
            revealing = True
            salt, verdict = vote.salt, vote.verdict
            if juror not in commits:
                problems.append(f"seq {record.seq}: reveal without a commitment ignored")
            elif juror in reveals:
                problems.append(f"seq {record.seq}: second reveal from one juror ignored")
            elif verify_vote_commitment(commits[juror], contract, verdict, salt):
                reveals[juror] = verdict
            else:
                problems.append(f"seq {record.seq}: reveal does not open its commitment")
        else:
            problems.append(f"seq {record.seq}: unreadable vote line")
    counts = Counter(reveals.values())
    if not panel:
        if reveals:
            problems.append("no panel named: opened votes are shown but none is counted "
                            "(name the jurors)")
        counts = Counter()
    return Tally(contract=contract, commits=commits, reveals=reveals,
                 counts=dict(counts.most_common()), problems=tuple(problems))


class ArbitrationDesk:
    """The wallet's arbiter/juror desk: pure share and vote maths, plus reading and posting a
    round in a contract's deal room through the wallet's venue client and outbox."""

    def __init__(self, read_room: Callable[[str], Awaitable[list[TranscriptRecord]]],
                 post_line: Callable[[str, str], Awaitable[None]]) -> None:
        self._read_room = read_room
        self._post_line = post_line

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
        return tally(contract, await self._read_room(contract), jurors)

    async def post_commit(self, vote: VoteCommit) -> None:
        await self._post_line(vote.contract, vote.commit_line)

    async def post_reveal(self, vote: VoteCommit) -> None:
        await self._post_line(vote.contract, vote.reveal_line)
