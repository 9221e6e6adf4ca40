"""The referee's acts other than release, as gates: mint, withhold, commit a vote, open it.

Each posts a signed line or closes a door, so each is a request stating the facts the engine
established (what is posted where, what it commits this wallet to, what stands in the way) and
a confirmation that asks again and re-checks them; no face builds these facts itself.

- **mint** publishes this wallet's statement (or juror share point) on the board; a hash-lock
  dealer first seals every other juror its share, so every juror's DID note must carry a record
  to seal to, and a missing one is named with what that juror must run. A plain yes.
- **withhold** is for good: release is refused afterwards, and on a hash lock the payee can
  never claim. It needs the typed code (`gates.code_for`, as a release does).
- **commit** posts a vote commitment in the deal room (the salt is kept in the vault first);
  **open** posts the opening, only once the commit phase is closed. Plain yeses.
"""

from __future__ import annotations

import secrets as _secrets
from typing import TYPE_CHECKING

from tclk_tui.engine.arbitration.desk import commit_vote
from tclk_tui.engine.deal.text import ms_text, short
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import (
    GateAction,
    GateFact,
    GateRefused,
    GateRequest,
    WrongCode,
    code_for,
    code_prompt,
    wrong_code,
)
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room

if TYPE_CHECKING:
    from tclk_tui.engine.arbitration.referee import CaseView, RefereeDesk
    from tclk_tui.engine.arbitration.vote_round import RoundView

# What a juror whose DID note cannot be sealed to must do: any wallet that opens on the venue
# publishes its note (the app, the daemon, or one CLI call such as this one).
PUBLISH_NOTE = "tclk-tui --venue {venue} --profile <theirs> cases"


def _request(desk: RefereeDesk, action: GateAction, offer_id: str, facts: list[GateFact],
             blockers: list[str], *, code_of: str | None = None,
             digits_of: str = "contract id") -> GateRequest:
    """A request the engine states, and remembers: only one it stated can be confirmed."""
    code = code_for(code_of) if code_of else None
    return desk.parts.stated.state(GateRequest(
        action=action, deal_id=offer_id, contract=desk.case(offer_id).contract,
        facts=tuple(facts), blockers=tuple(blockers), confirm_code=code,
        created_ms=desk.parts.now_ms(),
        prompt=code_prompt(code, digits_of=digits_of) if code else "",
        token=_secrets.token_hex(8)))


def _own(desk: RefereeDesk, request: GateRequest, action: GateAction) -> GateRequest:
    """The engine's own copy of the request a face confirms, never one the face made up."""
    own = desk.parts.stated.stated(request)
    if own.action != action:
        raise GateRefused(f"not a {action} request")
    return own


def _fresh(request: GateRequest, ask: GateRequest) -> GateRequest:
    """The engine's answer now, for the same act on the same case, with nothing in the way."""
    if ask.deal_id != request.deal_id or ask.contract != request.contract:
        raise GateRefused("the case changed since the request: ask again")
    if ask.blockers:
        raise GateRefused("; ".join(ask.blockers))
    return ask


def _case_facts(view: CaseView) -> list[GateFact]:
    return [GateFact("case", None, f"{view.amount_text}, {view.lock} lock; I hold "
                     f"{view.what}"),
            GateFact("status", None, view.status)]


# -- mint -------------------------------------------------------------------------------------


def mint_blockers(desk: RefereeDesk, offer_id: str) -> list[str]:
    """Why this wallet cannot mint for the case now (the act and its gate ask the same)."""
    view = desk.case(offer_id)
    blockers = []
    if view.status != "proposed":
        blockers.append(f"the offer is {view.status}: too late to mint for it")
    if view.minted:
        blockers.append("this wallet's statement is already on the board")
    if not desk.mints(offer_id):
        blockers.append("in a hash-lock committee only the first juror deals; this juror's "
                        "share arrives sealed from the dealer")
    return blockers


def missing_notes_text(desk: RefereeDesk, offer_id: str, missing: tuple[str, ...]) -> str:
    """Which jurors a dealer cannot seal a share to, by place and whole DID, and what each
    must run first."""
    panel = desk.case(offer_id).panel
    named = "; ".join(f"juror {panel.index(did) + 1} {did}" for did in missing)
    return (f"{named}: no DID note with a key to seal to on this venue. Each must open their "
            f"wallet here once (`{PUBLISH_NOTE.format(venue=desk.parts.venue_url)}` does it) "
            "before the shares can be dealt")


def request_mint(desk: RefereeDesk, offer_id: str) -> GateRequest:
    view = desk.case(offer_id)
    blockers = mint_blockers(desk, offer_id)
    if view.role == "arbiter":
        what = (f"the statement of this deal's secret ({view.lock} lock), derived from the "
                "master seed")
    elif view.lock == "point":
        what = f"this juror's share point Y{view.index + 1} of {len(view.panel)}, derived from " \
               "the master seed"
    else:
        what = (f"sha256 of a fresh preimage, after sealing each of the other "
                f"{len(view.panel) - 1} jurors its share; this wallet keeps share 1 and "
                "forgets the preimage")
    facts = [*_case_facts(view),
             GateFact("posts", None, f"a signed tclk1-statement line for this offer on "
                      f"{OFFER_ROOM}: {what}"),
             GateFact("commits me to", None, "releasing or withholding once the offer is "
                      "accepted and locked; the statement cannot be changed afterwards")]
    if view.role == "juror" and view.lock == "hash" and desk.mints(offer_id):
        missing = desk.missing_notes(offer_id)
        if missing is None:
            facts.append(GateFact("jurors' DID notes", None, "checked when confirming"))
        elif missing:
            text = missing_notes_text(desk, offer_id, missing)
            facts.append(GateFact("jurors' DID notes", False, text))
            blockers.append(text)
        else:
            facts.append(GateFact("jurors' DID notes", True, "every juror can be sealed to"))
    return _request(desk, "arbiter-mint", offer_id, facts, blockers)


async def confirm_mint(desk: RefereeDesk, request: GateRequest) -> CaseView:
    request = _own(desk, request, "arbiter-mint")
    await desk.refresh()
    _fresh(request, request_mint(desk, request.deal_id))
    view = await desk.mint(request.deal_id)
    desk.parts.stated.answered(request)
    return view


# -- withhold -----------------------------------------------------------------------------------


def request_withhold(desk: RefereeDesk, offer_id: str) -> GateRequest:
    view = desk.case(offer_id)
    now = desk.parts.now_ms()
    blockers = []
    if view.decision == "released":
        blockers.append("already released: a released secret cannot be taken back")
    elif view.decision == "withheld":
        blockers.append("this case is already withheld")
    if view.role == "arbiter" or view.lock == "hash":
        after = ("the payee can never claim (nobody else holds what opens the statement); the "
                 "payer takes the money back on the rail once refundAfterMs passes")
    else:
        after = ("the payee cannot claim without this juror's share; the payer takes the money "
                 "back on the rail once refundAfterMs passes")
    facts = [*_case_facts(view),
             GateFact("withholds", None, f"{view.what}: this wallet refuses to release it, "
                      "for good"),
             GateFact("then", None, after),
             GateFact("lock on the rail", view.lock_verified, view.lock_detail),
             GateFact("time to refundAfterMs", None,
                      ms_text(view.refund_after_ms - now))]
    code_of, digits_of = (view.contract, "contract id") if view.contract else \
        (offer_id, "offer id")
    return _request(desk, "arbiter-withhold", offer_id, facts, blockers, code_of=code_of,
                    digits_of=digits_of)


def confirm_withhold(desk: RefereeDesk, request: GateRequest, typed_code: str = "") -> CaseView:
    request = _own(desk, request, "arbiter-withhold")
    fresh = _fresh(request, request_withhold(desk, request.deal_id))
    if fresh.confirm_code is None or not fresh.code_matches(typed_code):
        raise WrongCode(wrong_code("contract id" if fresh.contract else "offer id"))
    view = desk.record_withheld(request.deal_id)
    desk.parts.stated.answered(request)
    return view


# -- the vote round ---------------------------------------------------------------------------


def _round_or_blocker(desk: RefereeDesk, offer_id: str, blockers: list[str]
                      ) -> RoundView | None:
    try:
        return desk.round_view(offer_id)
    except EngineError as exc:  # no contract yet, or an offer naming no panel
        blockers.append(str(exc))
        return None


def _round_facts(round_: RoundView, now_ms: int) -> list[GateFact]:
    committed = sum(j.committed for j in round_.jurors)
    return [GateFact("round", None, f"{committed} of {len(round_.jurors)} jurors committed; "
                     f"commit phase {'closed' if round_.commit_closed else 'open'}"),
            GateFact("time to the commit deadline", None,
                     ms_text(round_.deadline_ms - now_ms))]


def request_commit(desk: RefereeDesk, offer_id: str, verdict: str) -> GateRequest:
    blockers: list[str] = []
    round_ = _round_or_blocker(desk, offer_id, blockers)
    facts = [*_case_facts(desk.case(offer_id)), GateFact("verdict", None, verdict or "-")]
    if round_ is not None:
        room = deal_room(round_.contract)
        facts += [GateFact("posts", None, f"a signed tclk1-vote commit line in {room}; the "
                           "salt that opens it is kept in the vault until the opening"),
                  *_round_facts(round_, desk.parts.now_ms())]
        if desk.has_committed(round_.contract):
            blockers.append("this wallet already committed in this round")
        if round_.commit_closed and not round_.all_committed:
            facts.append(GateFact("late", False, "the commit deadline has passed: this "
                                  "commitment will be counted as late"))
        try:
            commit_vote(round_.contract, verdict)
        except Exception as exc:
            blockers.append(str(exc) or "the verdict cannot be committed")
    if not verdict.strip():
        blockers.append("type a verdict first, e.g. release or refund")
    return _request(desk, "vote-post", offer_id, facts, blockers)


async def confirm_commit(desk: RefereeDesk, request: GateRequest, verdict: str) -> RoundView:
    request = _own(desk, request, "vote-post")
    if not any(f.label == "verdict" and f.detail == verdict for f in request.facts):
        raise GateRefused("the verdict is not the one the request stated: ask again")
    await desk.refresh()
    _fresh(request, request_commit(desk, request.deal_id, verdict))
    view = await desk.commit(request.deal_id, verdict)
    desk.parts.stated.answered(request)
    return view


def request_open(desk: RefereeDesk, offer_id: str) -> GateRequest:
    blockers: list[str] = []
    round_ = _round_or_blocker(desk, offer_id, blockers)
    facts = _case_facts(desk.case(offer_id))
    if round_ is not None:
        verdict = desk.committed_verdict(round_.contract)
        facts += [GateFact("posts", None, f"a signed tclk1-vote reveal line in "
                           f"{deal_room(round_.contract)}: the salt and the verdict, which "
                           "every juror and auditor can check against the commitment"),
                  GateFact("verdict", None, verdict if verdict is not None else "-"),
                  *_round_facts(round_, desk.parts.now_ms())]
        if verdict is None:
            blockers.append("this wallet has no commitment in this round")
        mine = next((j for j in round_.jurors if j.did == desk.parts.did), None)
        if mine is not None and mine.opened:
            blockers.append("this wallet's vote is already opened")
        if not round_.commit_closed:
            waiting = [short(j.did) for j in round_.jurors if not j.committed]
            blockers.append("the commit phase is still open (waiting for " + ", ".join(waiting)
                            + "): opening now would let them copy")
    return _request(desk, "vote-open", offer_id, facts, blockers)


async def confirm_open(desk: RefereeDesk, request: GateRequest) -> RoundView:
    request = _own(desk, request, "vote-open")
    await desk.refresh()
    _fresh(request, request_open(desk, request.deal_id))
    view = await desk.open_vote(request.deal_id)
    desk.parts.stated.answered(request)
    return view


__all__ = ["confirm_commit", "confirm_mint", "confirm_open", "confirm_withhold",
           "mint_blockers", "request_commit", "request_mint", "request_open",
           "request_withhold"]
