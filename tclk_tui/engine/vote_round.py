"""One commit-reveal round of a deal's panel, read from the deal room's signed records (§8.3).

The round is a pure reading of records, so the console and an offline audit of `/export` files
give the same answer. Rules, in venue order:

- only the panel's jurors count; a vote line from anyone else is shown and ignored;
- a commitment at or after the round's deadline is late and ignored, as is a second one;
- an opening counts only when it opens that juror's own commitment; a mismatch is flagged;
- an opening posted while some juror had not committed and the deadline had not passed is
  flagged as early (it let later jurors see it before committing), though it still counts.

The commit phase is closed once every juror has committed or the deadline has passed; until
then this wallet refuses to post its own opening.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from tclk_tui.protocol.arbitration import verify_vote_commitment
from tclk_tui.protocol.side_lines import (
    VoteCommitLine,
    VoteRevealLine,
    is_vote_line,
    try_parse_vote,
)
from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record


@dataclass(frozen=True, slots=True)
class JurorVote:
    did: str
    index: int
    committed: bool = False
    commit_seq: int | None = None
    opened: bool = False
    verdict: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundView:
    contract: str
    deadline_ms: int
    jurors: tuple[JurorVote, ...]
    counts: dict[str, int]
    problems: tuple[str, ...]
    all_committed: bool
    commit_closed: bool

    @property
    def committed(self) -> tuple[str, ...]:
        return tuple(j.did for j in self.jurors if j.committed)

    @property
    def opened(self) -> tuple[str, ...]:
        return tuple(j.did for j in self.jurors if j.opened)

    def to_dict(self) -> dict:
        return {"contract": self.contract, "deadline_ms": self.deadline_ms,
                "all_committed": self.all_committed, "commit_closed": self.commit_closed,
                "counts": dict(self.counts), "problems": list(self.problems),
                "jurors": [{"did": j.did, "index": j.index, "committed": j.committed,
                            "opened": j.opened, "verdict": j.verdict, "flags": list(j.flags)}
                           for j in self.jurors]}


def read_round(contract: str, records: Iterable[TranscriptRecord], jurors: tuple[str, ...],
               deadline_ms: int, now_ms: int | None = None) -> RoundView:
    """The round as the signed records establish it (now_ms: a live reader's clock)."""
    commits: dict[str, tuple[int, str]] = {}
    verdicts: dict[str, str] = {}
    flags: dict[str, list[str]] = {d: [] for d in jurors}
    problems: list[str] = []
    for record in records:
        if not is_vote_line(record.line):
            continue
        where = f"seq {record.seq}"
        if not verify_transcript_record(record).ok:
            problems.append(f"{where}: vote line with a bad signature ignored")
            continue
        juror = record.sender
        if juror not in flags:
            problems.append(f"{where}: vote line from {juror[:20]}…, who is not on the panel, "
                            "ignored")
            continue
        vote = try_parse_vote(record.line)
        if isinstance(vote, VoteCommitLine):
            if record.timestamp_ms >= deadline_ms:
                problems.append(f"{where}: commitment after the round closed ignored")
                flags[juror].append("late commitment")
            elif juror in commits:
                problems.append(f"{where}: second commitment from one juror ignored")
            else:
                commits[juror] = (record.seq, vote.commitment)
        elif isinstance(vote, VoteRevealLine):
            salt, verdict = vote.salt, vote.verdict
            if juror not in commits:
                problems.append(f"{where}: opening without a commitment ignored")
            elif juror in verdicts:
                problems.append(f"{where}: second opening from one juror ignored")
            elif not verify_vote_commitment(commits[juror][1], contract, verdict, salt):
                problems.append(f"{where}: opening does not match its commitment")
                flags[juror].append("mismatched opening")
            else:
                verdicts[juror] = verdict
                if len(commits) < len(jurors) and record.timestamp_ms < deadline_ms:
                    flags[juror].append("opened before every juror committed")
        else:
            problems.append(f"{where}: unreadable vote line")
    views = tuple(
        JurorVote(did=d, index=i, committed=d in commits,
                  commit_seq=commits[d][0] if d in commits else None,
                  opened=d in verdicts, verdict=verdicts.get(d), flags=tuple(flags[d]))
        for i, d in enumerate(jurors))
    all_committed = len(commits) == len(jurors)
    closed = all_committed or (now_ms is not None and now_ms >= deadline_ms)
    counts = Counter(verdicts.values())
    return RoundView(contract=contract, deadline_ms=deadline_ms, jurors=views,
                     counts=dict(counts.most_common()), problems=tuple(problems),
                     all_committed=all_committed, commit_closed=closed)


__all__ = ["JurorVote", "RoundView", "read_round"]
