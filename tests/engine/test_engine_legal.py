"""Which action is legal now has one answer: `apply_frame` on the frame the engine would post.

Each check builds the frame by hand with the protocol's builders, runs the state machine on it,
and holds the engine's `can()`, `actions()` and `DealView.unavailable` to that answer, for each
status the deal passes through and for both roles.
"""

from __future__ import annotations

from typing import Any

import pytest

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.legal import DEAL_ACTIONS, in_play, wrong_status
from tclk_tui.protocol.builders import (
    make_cancel,
    make_heartbeat,
    make_lock,
    make_receipt,
    make_refund,
    make_reveal,
)
from tclk_tui.protocol.machine import apply_frame
from tests.engine.helpers import (
    Pair,
    draft,
    lock_as_payer,
    payer_offer_accepted,
    reveal_as_payee,
)

# The protocol's word on who may do what in each status (before the refund window opens).
EXPECTED = {
    ("accepted", "payer"): {"lock", "cancel", "heartbeat"},
    ("accepted", "payee"): {"cancel", "heartbeat"},
    ("locked", "payer"): {"heartbeat"},
    ("locked", "payee"): {"reveal", "heartbeat"},
    ("claimed", "payer"): {"receipt"},
    ("claimed", "payee"): {"receipt"},
}
WALLET_REASONS = {"no offered rail is set up in this wallet",
                  "the vault holds no secret for this deal"}


def hand_frame(action: str, deal: DealSession, secret: str | None) -> dict[str, Any]:
    """The frame for `action`, built here independently of the engine's own prospect."""
    state, did = deal.state, deal.ctx.did
    contract = state.contract or deal.deal_id
    ref = state.rail_ref or contract
    if action == "lock":
        return dict(make_lock(from_=did, contract=contract, rail=deal.offer["rails"][0],
                              ref=contract))
    if action == "reveal":
        return dict(make_reveal(from_=did, contract=contract, ref=ref,
                                secret=secret or "0x" + "00" * 32))
    if action == "refund":
        return dict(make_refund(from_=did, contract=contract, ref=ref))
    if action == "cancel":
        return dict(make_cancel(from_=did, contract=contract))
    if action == "heartbeat":
        return dict(make_heartbeat(from_=did, contract=contract))
    settled = state.status in ("claimed", "refunded")
    return dict(make_receipt(
        from_=did, contract=contract,
        outcome=state.status if state.status in ("claimed", "refunded", "cancelled") else "claimed",
        rail=state.rail if settled else None, ref=state.rail_ref if settled else None))


def assert_engine_reads_the_machine(deal: DealSession) -> set[str]:
    now = deal.ctx.now_ms()
    secret = deal.ctx.secrets.deal_secret(deal.deal_id)
    legal_now = set()
    for action in DEAL_ACTIONS:
        legal = deal.can(action)
        step = apply_frame(deal.state, hand_frame(action, deal, secret), now)
        if legal.ok:
            assert step.ok, (action, step.reason)
            legal_now.add(action)
        elif step.ok:  # the protocol would take it; this wallet lacks a piece to post it
            assert legal.reason in WALLET_REASONS, (action, legal.reason)
        elif in_play(deal.state, action):
            assert legal.reason == step.reason or legal.reason in WALLET_REASONS, action
        else:
            assert legal.reason == wrong_status(deal.state, action)
    view = deal.view()
    assert set(view.actions) == legal_now == set(deal.actions())
    assert dict(view.unavailable) == {
        a: deal.can(a).reason for a in DEAL_ACTIONS
        if a not in legal_now and in_play(deal.state, a)}
    return legal_now


async def test_each_status_and_role_answers_as_apply_frame_does(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair)
    for deal, role in ((deal_a, "payer"), (deal_b, "payee")):
        assert assert_engine_reads_the_machine(deal) == EXPECTED[("accepted", role)]
    await lock_as_payer(pair, deal_a)
    for deal, role in ((deal_a, "payer"), (deal_b, "payee")):
        assert assert_engine_reads_the_machine(deal) == EXPECTED[("locked", role)]
    assert dict(deal_a.view().unavailable)["refund"] == "refund window not open yet"
    await deal_b.check_lock()
    await reveal_as_payee(pair, deal_b)
    for deal, role in ((deal_a, "payer"), (deal_b, "payee")):
        assert assert_engine_reads_the_machine(deal) == EXPECTED[("claimed", role)]


async def test_the_refund_window_moves_the_answer_for_both_sides(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair)
    await lock_as_payer(pair, deal_a)
    pair.clock.ms = deal_a.offer["refundAfterMs"]
    assert assert_engine_reads_the_machine(deal_a) == {"refund", "heartbeat"}
    assert assert_engine_reads_the_machine(deal_b) == {"heartbeat"}
    assert deal_b.can("reveal").reason == "refund window is open"
    request = deal_b.request_reveal()
    assert "refund window is open" in request.blockers


async def test_a_proposed_offer_only_its_offerer_may_cancel(pair: Pair):
    view = await pair.alice.post_offer(draft())
    deal = pair.alice.deal(view.deal_id)
    assert assert_engine_reads_the_machine(deal) == {"cancel"}
    assert deal.can("lock").reason == "the contract is proposed, not accepted"


@pytest.mark.parametrize("action", ["heartbeat", "receipt"])
async def test_an_ungated_action_refused_by_the_machine_says_its_reason(pair: Pair, action: str):
    view = await pair.alice.post_offer(draft())
    deal = pair.alice.deal(view.deal_id)
    reason = deal.can(action).reason
    assert reason
    with pytest.raises(GateRefused) as refused:
        await (deal.heartbeat() if action == "heartbeat" else deal.receipt())
    assert reason in refused.value.reason
