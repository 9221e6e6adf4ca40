"""Whether this wallet may accept an offer now: the accept it would post, dry-run through the
protocol's state machine (`engine.legal.judge` over `apply_frame`), as every deal action is.

No rule of the accept is written out here: the builder refuses an accept of one's own offer,
the machine refuses an offer no longer proposed or past its expiry. Before the wallet commits
to anything (a secret minted into the vault, a payment key derived) the frame is built with
placeholders for those pieces, so the answer comes before any side effect; the real frame is
judged again just before it is posted (see `OfferDesk._accept`).

The machine's reasons are the reference's, written about a frame read from the venue ("accept
in status accepted"); the operator asked to accept an offer on the board, so `in_words` says
the same refusal in the board's terms, once, here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from tclk_tui.engine.legal import Legal, Prospect, in_play, judge
from tclk_tui.protocol.builders import make_accept
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import ContractState, open_contract

# Stand-ins for what the wallet derives only once it commits: a statement that fits either
# lock kind's grammar (the generator point G; 32 zero bytes) and a payment key.
_POINT = "0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
_PLACEHOLDER_STATEMENT = {"hash": "0x" + "00" * 32, "point": _POINT}
_PLACEHOLDER_NONCE = "00" * 8
TOOK_PART = "you already took part in this offer"
_OPEN = ("open", "awaiting")  # board statuses of an offer still proposed

# The builder's and the machine's reasons, in the board's words.
_WORDS: Mapping[str, str] = {
    "tclk: accept.from must differ from offer.from": "this is your own offer",
    "cannot accept own offer": "this is your own offer",
    "offer has expired": "the offer is expired",
}


def prospect_accept(offer: Mapping[str, Any], *, did: str, statement: str | None = None,
                    payment_key: str | None = None, nonce: str | None = None) -> Prospect:
    """The accept `did` would post for `offer`; placeholders stand in for the pieces not given.
    Raises TclkError when no accept can be built (our own offer)."""
    lock = offer["lock"]
    if payment_key is None and lock == "point":
        payment_key = _POINT
    frame = make_accept(offer, from_=did, statement=statement or _PLACEHOLDER_STATEMENT.get(
        lock, ""), nonce=nonce or _PLACEHOLDER_NONCE, payment_key=payment_key)
    return Prospect(dict(frame))


def offer_state(offer: Mapping[str, Any], board_status: str) -> ContractState:
    """The offer's contract as the board has folded it: proposed while open (expiry is the
    clock's), else at the status the board's records moved it to. Only the status matters to
    an accept's dry-run: the machine takes an accept in `proposed` alone."""
    state = open_contract(offer)
    if board_status in (*_OPEN, "expired"):
        return state
    return dataclasses.replace(state, status=board_status)


def judge_accept(offer: Mapping[str, Any], board_status: str, built: Prospect,
                 now_ms: int) -> Legal:
    """The machine's answer to `built` now, in the board's words. An offer the board marked
    expired (its clock's tick, or the venue's stamp on the offer) is judged at expiresMs at
    least: the board saw that time pass even if this computer's clock has not."""
    state = offer_state(offer, board_status)
    at = max(now_ms, offer["expiresMs"]) if board_status == "expired" else now_ms
    legal = judge(state, built, at)
    return legal if legal.ok else Legal(False, in_words(legal.reason, state))


def may_accept(offer: Mapping[str, Any], board_status: str, *, did: str, now_ms: int,
               took_part: bool = False) -> Legal:
    """Whether `did` may accept now, before anything is committed: the builder first (our own
    offer), then whether this wallet took part in it already (its book's word), then the
    machine."""
    try:
        built = prospect_accept(offer, did=did)
    except TclkError as exc:
        return Legal(False, in_words(str(exc)))
    if took_part:
        return Legal(False, TOOK_PART)
    return judge_accept(offer, board_status, built, now_ms)


def in_words(reason: str | None, state: ContractState | None = None) -> str:
    """A builder's or the machine's refusal of an accept, as the operator reads it."""
    if state is not None and not in_play(state, "accept"):
        return f"the offer is {state.status}"
    text = reason or "the protocol refuses this accept"
    return _WORDS.get(text, text.removeprefix("tclk: "))
