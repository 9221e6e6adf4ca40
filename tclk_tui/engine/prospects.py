"""What each deal action would post: its frame, built with `protocol.builders`, and what this
wallet lacks to post it for real.

One builder per action that posts a frame, each named by its row in `engine.actions` (the
action's `builder`), so "is this legal now" (`engine.legal.judge`) and the frame actually posted
are the same frame. Before a frame can be built some pieces may be missing (no rail set up here,
no secret in the vault, no contract yet); a placeholder stands in so the state machine still
names the first protocol reason, and `missing` is the answer only where the protocol would
allow the frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from tclk_tui.protocol.builders import (
    make_cancel,
    make_heartbeat,
    make_lock,
    make_receipt,
    make_refund,
    make_reveal,
)
from tclk_tui.protocol.frames import OUTCOMES
from tclk_tui.protocol.machine import ContractState

_NO_SECRET_PLACEHOLDER = "0x" + "00" * 32
_REVEAL_PLACEHOLDER_REFUSED = "secret does not open the statement"


@dataclass(frozen=True, slots=True)
class Prospect:
    """A frame the engine would post, and what this wallet lacks to post it for real."""

    frame: dict[str, Any]
    missing: str | None = None  # why it cannot be posted, though the protocol may allow it
    masks: str | None = None  # the machine's reason the placeholder itself provokes


class Builder(Protocol):
    """An action's builder: the frame for it from `did` on this contract, with the pieces
    the engine has (each builder reads the ones its frame carries); raises TclkError if the
    frame cannot be built."""

    def __call__(self, state: ContractState, *, did: str, deal_id: str, rail: str | None,
                 secret: str | None, note: str | None, nonce: str | None, ref: str | None,
                 reason: str | None) -> Prospect: ...


def _contract(state: ContractState, deal_id: str) -> str:
    return state.contract or deal_id


def lock(state: ContractState, *, did: str, deal_id: str, rail: str | None,
         secret: str | None, note: str | None, nonce: str | None, ref: str | None,
         reason: str | None) -> Prospect:
    contract = _contract(state, deal_id)
    chosen = rail or state.offer["rails"][0]
    # The rail names the real ref only once it has locked; the contract id stands in.
    frame = make_lock(from_=did, contract=contract, rail=chosen, ref=ref or contract)
    return Prospect(dict(frame), None if rail else "no offered rail is set up in this wallet")


def reveal(state: ContractState, *, did: str, deal_id: str, rail: str | None,
           secret: str | None, note: str | None, nonce: str | None, ref: str | None,
           reason: str | None) -> Prospect:
    contract = _contract(state, deal_id)
    frame = make_reveal(from_=did, contract=contract, ref=state.rail_ref or contract,
                        secret=secret or _NO_SECRET_PLACEHOLDER)
    return Prospect(dict(frame), None if secret else "the vault holds no secret for this deal",
                    _REVEAL_PLACEHOLDER_REFUSED)


def refund(state: ContractState, *, did: str, deal_id: str, rail: str | None,
           secret: str | None, note: str | None, nonce: str | None, ref: str | None,
           reason: str | None) -> Prospect:
    contract = _contract(state, deal_id)
    return Prospect(dict(make_refund(from_=did, contract=contract,
                                     ref=state.rail_ref or contract, reason=reason)))


def cancel(state: ContractState, *, did: str, deal_id: str, rail: str | None,
           secret: str | None, note: str | None, nonce: str | None, ref: str | None,
           reason: str | None) -> Prospect:
    # Before an accept a cancel names the offer id and rides the board.
    return Prospect(dict(make_cancel(from_=did, contract=_contract(state, deal_id),
                                     reason=reason)))


def heartbeat(state: ContractState, *, did: str, deal_id: str, rail: str | None,
              secret: str | None, note: str | None, nonce: str | None, ref: str | None,
              reason: str | None) -> Prospect:
    return Prospect(dict(make_heartbeat(from_=did, contract=_contract(state, deal_id),
                                        nonce=nonce, note=note)))


def receipt(state: ContractState, *, did: str, deal_id: str, rail: str | None,
            secret: str | None, note: str | None, nonce: str | None, ref: str | None,
            reason: str | None) -> Prospect:
    outcome = state.status if state.status in OUTCOMES else "claimed"
    settled = state.status != "cancelled"
    frame = make_receipt(from_=did, contract=_contract(state, deal_id), outcome=outcome,
                         rail=state.rail if settled else None,
                         ref=state.rail_ref if settled else None)
    return Prospect(dict(frame),
                    None if state.contract else "no contract was formed: nothing to "
                    "acknowledge", "receipt names a different contract")


__all__ = ["Builder", "Prospect", "cancel", "heartbeat", "lock", "receipt", "refund", "reveal"]
