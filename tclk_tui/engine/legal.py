"""Which deal action is legal now: one rule, the protocol's own.

The engine builds the frame it would post (the action's builder, `engine.prospects`, named by
its row in `engine.actions`) and dry-runs it through
`apply_frame`, the same state machine that judges every record it reads: "same rules for local
and remote". The `Step`'s ok and reason are the answer the engine's gates, the TUI and the CLI
all read, so no face keeps a table of its own.

Before a frame can be built some pieces may be missing (no rail set up here, no secret in the
vault, no contract yet); a placeholder stands in so the state machine still names the first
protocol reason, and the missing piece is the answer only where the protocol would allow it.
`Prospect` is re-exported here for the deal, which reads it with the rest.
"""

from __future__ import annotations

from typing import NamedTuple

from tclk_tui.engine.actions import JUDGED_ACTIONS, builder_of
from tclk_tui.engine.prospects import Prospect
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import NEXT_STATUS, RULES, ContractState, apply_frame

DEAL_ACTIONS: tuple[str, ...] = JUDGED_ACTIONS  # the actions whose frame is dry-run


class Legal(NamedTuple):
    """The answer: `ok`, or the reason the protocol (or this wallet) refuses."""

    ok: bool
    reason: str | None = None


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
    """The frame for `action` from `did` on this contract (its builder in `engine.actions`);
    raises TclkError if unbuildable."""
    build = builder_of(action)
    if build is None:
        raise TclkError(f"tclk: {action} is not a deal action")
    return build(state, did=did, deal_id=deal_id, rail=rail, secret=secret, note=note,
                 nonce=nonce, ref=ref, reason=reason)


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
