"""The gates in front of the arbiter's and juror's own maths: splitting a secret into shares,
combining shares back into it, and making a vote's commitment and salt.

Each shows a secret (shares, the rebuilt secret, a vote's salt) to the operator who asked, so
each is two steps like every gated action: the request states what would be shown, and how it
stands (for a combine, whether the rebuilt value opens the statement), without showing it; the
confirmation shows it. The maths runs on what the operator typed; nothing here is held.
"""

from __future__ import annotations

from tclk_tui.engine.arbitration.desk import ArbitrationDesk, CombineResult, ShareKind, VoteCommit
from tclk_tui.engine.gates import GateFact, GateRequest
from tclk_tui.engine.words import plural

SCREEN_ONLY = GateFact("where", None, "on this screen only, until you close it")


def split_request(desk: ArbitrationDesk, kind: ShareKind, secret: str, parts: int,
                  now_ms: int) -> tuple[GateRequest, list[str]]:
    """The split's request, and the shares it would show (refused as the maths refuses)."""
    shares = desk.split(kind, secret, parts)
    facts = (GateFact("what", None, f"{plural(len(shares), 'share')} of a {kind}: all of "
                      "them together rebuild it, fewer say nothing of it"),
             SCREEN_ONLY)
    return GateRequest(action="arbiter-split", deal_id="", contract=None, facts=facts,
                       created_ms=now_ms), shares


def combine_request(desk: ArbitrationDesk, kind: ShareKind, shares: list[str],
                    statement: str | None, now_ms: int) -> tuple[GateRequest, CombineResult]:
    """The combine's request (whether the rebuilt value opens the statement, said before it
    is shown), and what it would show."""
    result = desk.combine(kind, shares, statement)
    opens = {None: (None, "not checked: no statement given"),
             True: (True, "the rebuilt value opens the statement"),
             False: (None, "the rebuilt value does NOT open the statement: a share is wrong, "
                           "missing or of another deal")}[result.opens]
    facts = (GateFact("what", None, f"the {kind} rebuilt from "
                      f"{plural(len([s for s in shares if s.strip()]), 'share')}"),
             GateFact("statement", *opens), SCREEN_ONLY)
    return GateRequest(action="arbiter-combine", deal_id="", contract=None, facts=facts,
                       created_ms=now_ms), result


def vote_request(desk: ArbitrationDesk, contract: str, verdict: str,
                 now_ms: int) -> tuple[GateRequest, VoteCommit]:
    """The commitment's request (the salt is shown once, and nothing is posted), and the
    commitment and salt it would show."""
    vote = desk.commit_vote(contract, verdict)
    facts = (GateFact("what", None, "the commitment to post now, and the salt that opens it "
                      "with the verdict at the reveal"),
             GateFact("salt", None, "keep it private until the reveal round: without it the "
                      "vote cannot be revealed, and it is not shown again"),
             GateFact("posted", None, "nothing: post the commitment yourself, or use vote"),
             SCREEN_ONLY)
    return GateRequest(action="vote-commit", deal_id="", contract=vote.contract, facts=facts,
                       created_ms=now_ms), vote
