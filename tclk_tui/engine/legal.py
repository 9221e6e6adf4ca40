"""Which deal action is legal now: one rule, the protocol's own.

The engine builds the frame it would post (with `protocol.builders`) and dry-runs it through
`apply_frame`, the same state machine that judges every record it reads: "same rules for local
and remote". The `Step`'s ok and reason are the answer the engine's gates, the TUI and the CLI
all read, so no face keeps a table of its own.

Before a frame can be built some pieces may be missing (no rail set up here, no secret in the
vault, no contract yet); a placeholder stands in so the state machine still names the first
protocol reason, and the missing piece is the answer only where the protocol would allow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from tclk_tui.protocol.builders import (
    make_cancel,
    make_heartbeat,
    make_lock,
    make_receipt,
    make_refund,
    make_reveal,
)
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import NEXT_STATUS, RULES, ContractState, apply_frame

DEAL_ACTIONS: tuple[str, ...] = ("lock", "reveal", "refund", "cancel", "heartbeat", "receipt")
TERMINAL_OUTCOMES = ("claimed", "refunded", "cancelled")
_NO_SECRET_PLACEHOLDER = "0x" + "00" * 32
_REVEAL_PLACEHOLDER_REFUSED = "secret does not open the statement"


class Legal(NamedTuple):
    """The answer: `ok`, or the reason the protocol (or this wallet) refuses."""

    ok: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Prospect:
    """A frame the engine would post, and what this wallet lacks to post it for real."""

    frame: dict[str, Any]
    missing: str | None = None  # why it cannot be posted, though the protocol may allow it
    masks: str | None = None  # the machine's reason the placeholder itself provokes


def in_play(state: ContractState, action: str) -> bool:
    """Whether the contract's status admits `action` at all (the machine's status table):
    an action in play but refused has a reason worth showing; one out of play has none."""
    return (state.status, action) in NEXT_STATUS


def wrong_status(state: ContractState, action: str) -> str:
    """The readable form of the machine's status gate, read off its own table."""
    allowed = sorted(RULES[action].from_statuses)
    if action == "receipt":
        return f"the contract is {state.status}: a receipt follows a settled or cancelled one"
    return f"the contract is {state.status}, not {' or '.join(allowed)}"


def prospect(action: str, state: ContractState, *, did: str, deal_id: str,
             rail: str | None = None, secret: str | None = None,
             note: str | None = None, nonce: str | None = None, ref: str | None = None,
             reason: str | None = None) -> Prospect:
    """The frame for `action` from `did` on this contract; raises TclkError if unbuildable."""
    contract = state.contract or deal_id
    if action == "lock":
        chosen = rail or state.offer["rails"][0]
        # The rail names the real ref only once it has locked; the contract id stands in.
        lock = make_lock(from_=did, contract=contract, rail=chosen, ref=ref or contract)
        return Prospect(dict(lock), None if rail else "no offered rail is set up in this wallet")
    ref = state.rail_ref or contract
    if action == "reveal":
        reveal = make_reveal(from_=did, contract=contract, ref=ref,
                             secret=secret or _NO_SECRET_PLACEHOLDER)
        return Prospect(dict(reveal),
                        None if secret else "the vault holds no secret for this deal",
                        _REVEAL_PLACEHOLDER_REFUSED)
    if action == "refund":
        return Prospect(dict(make_refund(from_=did, contract=contract, ref=ref, reason=reason)))
    if action == "cancel":
        # Before an accept a cancel names the offer id and rides the board.
        return Prospect(dict(make_cancel(from_=did, contract=contract, reason=reason)))
    if action == "heartbeat":
        return Prospect(dict(make_heartbeat(from_=did, contract=contract, nonce=nonce,
                                            note=note)))
    if action == "receipt":
        outcome = state.status if state.status in TERMINAL_OUTCOMES else "claimed"
        settled = state.status != "cancelled"
        receipt = make_receipt(from_=did, contract=contract, outcome=outcome,
                               rail=state.rail if settled else None,
                               ref=state.rail_ref if settled else None)
        return Prospect(dict(receipt),
                        None if state.contract else "no contract was formed: nothing to "
                        "acknowledge", "receipt names a different contract")
    raise TclkError(f"tclk: {action} is not a deal action")


def judge(state: ContractState, prospective: Prospect, now_ms: int) -> Legal:
    """Dry-run the frame through `apply_frame`; the missing piece answers where it decides."""
    step = apply_frame(state, prospective.frame, now_ms)
    kind = prospective.frame["type"]
    if prospective.missing is not None and (step.ok or step.reason == prospective.masks):
        return Legal(False, prospective.missing)
    if step.ok:
        return Legal(True)
    if (state.status, kind) not in NEXT_STATUS:
        return Legal(False, wrong_status(state, kind))
    return Legal(False, step.reason)
