"""The state machine: every guard, in order, with the reference's reasons and boundaries."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol import machine
from tclk_tui.protocol.errors import FrameError, TclkError
from tclk_tui.protocol.frames import validate_frame
from tclk_tui.protocol.ids import contract_id, offer_id
from tclk_tui.protocol.machine import (
    CLOCK_REASON,
    NEXT_STATUS,
    RULES,
    STATUSES,
    TERMINAL,
    ContractState,
    LockTerms,
    Outlook,
    Step,
    accept_core,
    apply_frame,
    funding_outlook,
    lock_terms,
    open_contract,
)

PAYER = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"  # RFC 8032 test 1
PAYEE = "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT"  # RFC 8032 test 2
STRANGER = "did:key:z6MkwSD8dBdqcXQzKJZQFPy2hh2izzxskndKCjdmC2dBpfME"  # RFC 8032 test 3

T0 = 1_760_000_000_000
EXPIRES = T0 + 600_000
CLAIM_BY = T0 + 3_600_000
REFUND_AFTER = T0 + 7_200_000

PREIMAGE = "0x" + "11" * 32
HASH = "0x02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc"
WITNESS = "0x" + "22" * 32
POINT = "0x02466d7fcae563e5cb09a0d1870bb580344804617879a14949cf22285f1bae3f27"
G = "0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
OFF_CURVE = "0x02" + "00" * 31 + "05"  # x = 5: 5^3 + 7 = 132 is not a square mod p
ZERO32 = "0x" + "00" * 32


def make_offer(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "offer",
        "from": PAYER,
        "role": "payer",
        "amount": "1000",
        "asset": "USDC",
        "lock": "hash",
        "rails": ["flop-htlc", "x402"],
        "claimByMs": CLAIM_BY,
        "refundAfterMs": REFUND_AFTER,
        "expiresMs": EXPIRES,
        "nonce": "0011223344556677",
    }
    body.update(fields)
    body = {k: v for k, v in body.items() if v is not None}
    return {**body, "id": offer_id(body)}


def make_accept(
    offer: dict[str, Any],
    *,
    sender: str = PAYEE,
    statement: str = HASH,
    nonce: str = "8899aabbccddeeff",
    payment_key: str | None = None,
) -> dict[str, Any]:
    core: dict[str, Any] = {"from": sender, "ref": offer["id"], "statement": statement}
    if payment_key is not None:
        core["paymentKey"] = payment_key
    core["nonce"] = nonce
    return {"type": "accept", **core, "contract": contract_id(offer, core)}


def frame(kind: str, sender: str, contract: str | None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind, "from": sender, **fields}
    if contract is not None:
        out["contract"] = contract
    return out


def ok(step: Step) -> ContractState:
    assert step.ok, step.reason
    assert step.reason is None
    return step.state


def rejected(state: ContractState, f: Any, now: Any, reason: str) -> None:
    step = apply_frame(state, f, now)
    assert not step.ok
    assert step.reason == reason
    assert step.state is state


def accepted_state(**offer_fields: Any) -> tuple[ContractState, dict[str, Any]]:
    offer = make_offer(**offer_fields)
    acc = make_accept(offer)
    return ok(apply_frame(open_contract(offer), acc, T0)), acc


def locked_state(rail: str = "flop-htlc", ref: str = "escrow-42") -> ContractState:
    state, acc = accepted_state()
    lock = frame("lock", PAYER, acc["contract"], rail=rail, ref=ref)
    return ok(apply_frame(state, lock, T0 + 1))


def claimed_state() -> ContractState:
    state = locked_state()
    reveal = frame("reveal", PAYEE, state.contract, ref="escrow-42", secret=PREIMAGE)
    return ok(apply_frame(state, reveal, T0 + 2))


# ------------------------------------------------------------------------------- open_contract


def test_open_payer_role_offer_fills_the_payer_side() -> None:
    offer = make_offer(lock="point", paymentKey=G)
    state = open_contract(offer)
    assert state.status == "proposed"
    assert (state.payer_did, state.payer_key) == (PAYER, G)
    assert (state.payee_did, state.payee_key) == (None, None)
    assert state.contract is None and state.statement is None


def test_open_payee_role_offer_fills_the_payee_side() -> None:
    state = open_contract(make_offer(role="payee", **{"from": PAYEE}))
    assert (state.payee_did, state.payer_did) == (PAYEE, None)


def test_open_refuses_an_invalid_offer_with_the_validator_message() -> None:
    offer = make_offer()
    offer["amount"] = "01"
    with pytest.raises(FrameError) as raised:
        open_contract(offer)
    assert str(raised.value).startswith("tclk: amount is malformed")


def test_open_refuses_a_tampered_offer_id() -> None:
    offer = make_offer()
    offer["id"] = ZERO32
    with pytest.raises(FrameError, match="offer id mismatch"):
        open_contract(offer)


def test_open_refuses_a_non_offer_frame() -> None:
    _, acc = accepted_state()
    with pytest.raises(FrameError):
        open_contract(acc)


def test_open_copies_the_offer_so_the_state_cannot_be_changed_from_outside() -> None:
    offer = make_offer()
    state = open_contract(offer)
    offer["rails"].append("paper")
    offer["amount"] = "999"
    assert state.offer["rails"] == ["flop-htlc", "x402"]
    assert state.offer["amount"] == "1000"


# ---------------------------------------------------------------------------------- prelude


@pytest.mark.parametrize(
    "now",
    [math.nan, math.inf, -math.inf, -1, -0.5, True, False, "1", None, [1]],
)
def test_bad_clock_is_rejected_first_and_returns_the_same_state(now: Any) -> None:
    state, acc = accepted_state()
    lock = frame("lock", PAYER, acc["contract"], rail="flop-htlc", ref="r")
    rejected(state, lock, now, CLOCK_REASON)
    rejected(state, {"type": "nonsense"}, now, CLOCK_REASON)  # clock before validation
    assert CLOCK_REASON == "tclk: nowMs must be a finite non-negative number"


def test_fractional_and_zero_clocks_are_accepted() -> None:
    offer = make_offer()
    assert apply_frame(open_contract(offer), make_accept(offer), T0 + 0.5).ok
    assert apply_frame(open_contract(offer), make_accept(offer), 0).ok
    # a fractional clock just below expiresMs is still before it
    assert apply_frame(open_contract(offer), make_accept(offer), EXPIRES - 0.25).ok


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        "tclk1 {}",
        {"type": "nonsense", "from": PAYER},
        {"type": "lock", "from": PAYER, "contract": ZERO32, "rail": "flop-htlc"},
        {"type": "lock", "from": "did:key:nope", "contract": ZERO32, "rail": "x402", "ref": "r"},
        {"type": "reveal", "from": PAYEE, "contract": ZERO32, "secret": "0x11"},
        {"type": "cancel", "from": PAYER, "contract": ZERO32, "extra": 1},
    ],
)
def test_validation_failures_are_reported_verbatim(bad: Any) -> None:
    state, _ = accepted_state()
    with pytest.raises(FrameError) as raised:
        validate_frame(bad)
    rejected(state, bad, T0, str(raised.value))
    assert str(raised.value).startswith("tclk: ")


def test_validation_reasons_match_the_reference_wording() -> None:
    state, _ = accepted_state()
    rejected(state, None, T0, "tclk: frame must be an object")
    lock = {"type": "lock", "from": PAYER, "contract": ZERO32, "rail": "flop-htlc"}
    rejected(state, lock, T0, "tclk: missing field on lock: ref")


def test_non_string_type_is_a_rejection_never_a_crash() -> None:
    # The reference's validator stringifies the type key, so this decodes there and then crashes
    # its fold; here it is an ordinary failed step.
    state, _ = accepted_state()
    hostile = {"contract": 0, "from": PAYER, "rail": 0, "ref": 0, "type": ["lock"]}
    step = apply_frame(state, hostile, T0)
    assert not step.ok and step.state is state
    assert step.reason is not None and step.reason.startswith("tclk: ")


def test_non_string_type_after_validation_is_still_refused() -> None:
    # Belt and braces: even if a frame slipped past validation, dispatch refuses unknown types.
    state, _ = accepted_state()
    step = machine._apply_validated(state, {"type": ["lock"], "from": PAYER}, T0)
    assert (step.ok, step.reason, step.state is state) == (
        False,
        "tclk: unknown frame type: lock",
        True,
    )


def test_an_offer_on_an_open_contract_is_refused() -> None:
    offer = make_offer()
    state = open_contract(offer)
    rejected(state, offer, T0, "contract is already open")
    rejected(state, make_offer(nonce="ffffffffffffffff"), T0, "contract is already open")


# ------------------------------------------------------------------------------------ accept


def test_accept_of_payer_offer_makes_the_acceptor_the_payee() -> None:
    offer = make_offer()
    acc = make_accept(offer)
    state = ok(apply_frame(open_contract(offer), acc, T0))
    assert state.status == "accepted"
    assert state.contract == acc["contract"]
    assert state.statement == HASH
    assert (state.payer_did, state.payee_did) == (PAYER, PAYEE)
    assert state.payee_key is None


def test_accept_of_payee_offer_makes_the_acceptor_the_payer_with_its_key() -> None:
    offer = make_offer(role="payee", lock="point", paymentKey=POINT, **{"from": PAYEE})
    acc = make_accept(offer, sender=PAYER, statement=POINT, payment_key=G)
    state = ok(apply_frame(open_contract(offer), acc, T0))
    assert (state.payer_did, state.payer_key) == (PAYER, G)
    assert (state.payee_did, state.payee_key) == (PAYEE, POINT)
    assert state.statement == POINT


def test_accept_reasons() -> None:
    offer = make_offer()
    state = open_contract(offer)
    other = make_offer(nonce="ffffffffffffffff")
    rejected(state, make_accept(other), T0, "accept.ref names a different offer")
    rejected(state, make_accept(offer, sender=PAYER), T0, "cannot accept own offer")
    rejected(state, make_accept(offer), EXPIRES, "offer has expired")
    rejected(state, make_accept(offer), EXPIRES + 1, "offer has expired")
    assert apply_frame(state, make_accept(offer), EXPIRES - 1).ok
    tampered = make_accept(offer)
    tampered["contract"] = ZERO32
    rejected(state, tampered, T0, "contract id mismatch")
    long_statement = make_accept(offer, statement=G)
    rejected(state, long_statement, T0, "statement does not fit a hash lock")


def test_accept_status_guard_comes_first() -> None:
    state, acc = accepted_state()
    rejected(state, acc, T0, "accept in status accepted")
    # even a wholly wrong accept reports the status first
    stranger_offer = make_offer(nonce="ffffffffffffffff")
    rejected(state, make_accept(stranger_offer), EXPIRES, "accept in status accepted")


def test_accept_guard_order() -> None:
    offer = make_offer()
    state = open_contract(offer)
    other = make_offer(nonce="ffffffffffffffff")
    # different offer beats own-offer and expiry
    rejected(state, make_accept(other, sender=PAYER), EXPIRES, "accept.ref names a different offer")
    # own-offer beats expiry
    rejected(state, make_accept(offer, sender=PAYER), EXPIRES, "cannot accept own offer")
    # expiry beats a tampered contract id
    tampered = make_accept(offer)
    tampered["contract"] = ZERO32
    rejected(state, tampered, EXPIRES, "offer has expired")
    # contract id beats statement fit (the id is computed over the bad statement anyway)
    bad_fit = make_accept(offer, statement=G)
    bad_fit["contract"] = ZERO32
    rejected(state, bad_fit, T0, "contract id mismatch")


def test_point_accept_needs_the_acceptor_key_then_a_fitting_statement() -> None:
    offer = make_offer(lock="point", paymentKey=G)
    state = open_contract(offer)
    rejected(
        state,
        make_accept(offer, statement=POINT),
        T0,
        "point locks require the acceptor's paymentKey",
    )
    # the key check comes before the statement check
    rejected(
        state,
        make_accept(offer, statement=HASH),
        T0,
        "point locks require the acceptor's paymentKey",
    )
    rejected(
        state,
        make_accept(offer, statement=HASH, payment_key=G),
        T0,
        "statement does not fit a point lock",
    )
    rejected(
        state,
        make_accept(offer, statement=OFF_CURVE, payment_key=G),
        T0,
        "statement does not fit a point lock",
    )
    good = ok(apply_frame(state, make_accept(offer, statement=POINT, payment_key=G), T0))
    assert (good.payee_did, good.payee_key) == (PAYEE, G)


def test_hash_accept_may_carry_a_payment_key() -> None:
    offer = make_offer()
    state = ok(apply_frame(open_contract(offer), make_accept(offer, payment_key=G), T0))
    assert state.payee_key == G


# -------------------------------------------------------------------------------------- lock


def test_lock_succeeds_for_the_payer_and_keeps_the_exact_rail_spelling() -> None:
    state, acc = accepted_state(rails=["paper-rail", "x402"])
    presig = {"nonce": G, "s": "0x11"}
    lock = frame("lock", PAYER, acc["contract"], rail="PaperRail", ref="escrow-1", presig=presig)
    locked = ok(apply_frame(state, lock, T0))
    assert locked.status == "locked"
    assert (locked.rail, locked.rail_ref, locked.presig) == ("PaperRail", "escrow-1", presig)
    presig["s"] = "0x22"
    assert locked.presig == {"nonce": G, "s": "0x11"}  # copied, not shared


def test_lock_reasons() -> None:
    offer = make_offer()
    proposed = open_contract(offer)
    state, acc = accepted_state()
    contract = acc["contract"]
    good = frame("lock", PAYER, contract, rail="flop-htlc", ref="r")
    rejected(proposed, good, T0, "lock in status proposed")
    rejected(state, frame("lock", PAYER, ZERO32, rail="flop-htlc", ref="r"), T0,
             "lock names a different contract")
    rejected(state, frame("lock", PAYEE, contract, rail="flop-htlc", ref="r"), T0,
             "only the payer locks")
    rejected(state, frame("lock", STRANGER, contract, rail="flop-htlc", ref="r"), T0,
             "only the payer locks")
    rejected(state, good, REFUND_AFTER, "refund window is already open")
    rejected(state, frame("lock", PAYER, contract, rail="paper", ref="r"), T0,
             "rail paper was not offered")
    assert apply_frame(state, good, REFUND_AFTER - 1).ok
    assert apply_frame(state, good, EXPIRES).ok  # a lock may come after the offer expired
    assert apply_frame(state, good, CLAIM_BY + 1).ok  # claimByMs is advisory only
    rejected(ok(apply_frame(state, good, T0)), good, T0, "lock in status locked")


def test_lock_guard_order() -> None:
    state, acc = accepted_state()
    wrong = frame("lock", PAYEE, ZERO32, rail="paper", ref="r")
    rejected(state, wrong, REFUND_AFTER, "lock names a different contract")
    wrong["contract"] = acc["contract"]
    rejected(state, wrong, REFUND_AFTER, "only the payer locks")
    wrong["from"] = PAYER
    rejected(state, wrong, REFUND_AFTER, "refund window is already open")


def test_payee_role_offer_is_locked_by_the_acceptor() -> None:
    offer = make_offer(role="payee", **{"from": PAYEE})
    acc = make_accept(offer, sender=PAYER)
    state = ok(apply_frame(open_contract(offer), acc, T0))
    rejected(state, frame("lock", PAYEE, acc["contract"], rail="x402", ref="r"), T0,
             "only the payer locks")
    assert apply_frame(state, frame("lock", PAYER, acc["contract"], rail="x402", ref="r"), T0).ok


@pytest.mark.parametrize(
    ("offered", "rail", "allowed"),
    [
        (["flop-htlc", "x402"], "x402", True),
        (["paper"], "PaperRail", True),
        (["PaperRail"], "paper", True),
        (["paper-rail"], "paperrail", True),
        (["custom.rail"], "custom.rail", True),
        (["custom.rail", "x402"], "x402", True),
        (["x402", "custom.rail"], "x402", True),
        (["custom.rail"], "custom-rail", False),
        (["flop-htlc"], "custom.rail", False),
        (["flop-htlc"], "memory", False),
    ],
)
def test_lock_rail_membership(offered: list[str], rail: str, allowed: bool) -> None:
    state, acc = accepted_state(rails=offered)
    step = apply_frame(state, frame("lock", PAYER, acc["contract"], rail=rail, ref="r"), T0)
    assert step.ok is allowed
    if not allowed:
        assert step.reason == f"rail {rail} was not offered"
    else:
        assert step.state.rail == rail


def test_point_lock_needs_no_presig() -> None:
    offer = make_offer(lock="point", paymentKey=G)
    acc = make_accept(offer, statement=POINT, payment_key=G)
    state = ok(apply_frame(open_contract(offer), acc, T0))
    locked = ok(apply_frame(state, frame("lock", PAYER, acc["contract"], rail="x402", ref="r"), T0))
    assert locked.presig is None
    reveal = frame("reveal", PAYEE, acc["contract"], secret=WITNESS)
    assert ok(apply_frame(locked, reveal, T0)).status == "claimed"


# ------------------------------------------------------------------------------------ reveal


def test_reveal_claims_with_the_right_secret() -> None:
    state = locked_state()
    claimed = ok(apply_frame(state, frame("reveal", PAYEE, state.contract, secret=PREIMAGE), T0))
    assert (claimed.status, claimed.secret) == ("claimed", PREIMAGE)
    with_ref = frame("reveal", PAYEE, state.contract, ref="escrow-42", secret=PREIMAGE)
    assert apply_frame(state, with_ref, REFUND_AFTER - 1).ok


def test_reveal_reasons() -> None:
    accepted, _ = accepted_state()
    state = locked_state()
    c = state.contract
    good = frame("reveal", PAYEE, c, secret=PREIMAGE)
    rejected(accepted, good, T0, "reveal in status accepted")
    rejected(state, frame("reveal", PAYEE, ZERO32, secret=PREIMAGE), T0,
             "reveal names a different contract")
    rejected(state, frame("reveal", PAYEE, c, ref="escrow-43", secret=PREIMAGE), T0,
             "reveal names a different rail ref")
    rejected(state, frame("reveal", PAYER, c, secret=PREIMAGE), T0, "only the payee reveals")
    rejected(state, frame("reveal", STRANGER, c, secret=PREIMAGE), T0, "only the payee reveals")
    rejected(state, good, REFUND_AFTER, "refund window is open")
    rejected(state, frame("reveal", PAYEE, c, secret="0x" + "12" * 32), T0,
             "secret does not open the statement")
    claimed = ok(apply_frame(state, good, T0))
    rejected(claimed, good, T0, "reveal in status claimed")


def test_reveal_guard_order() -> None:
    state = locked_state()
    bad = frame("reveal", PAYER, ZERO32, ref="other", secret=ZERO32)
    rejected(state, bad, REFUND_AFTER, "reveal names a different contract")
    bad["contract"] = state.contract
    rejected(state, bad, REFUND_AFTER, "reveal names a different rail ref")
    bad["ref"] = "escrow-42"
    rejected(state, bad, REFUND_AFTER, "only the payee reveals")
    bad["from"] = PAYEE
    rejected(state, bad, REFUND_AFTER, "refund window is open")
    rejected(state, bad, T0, "secret does not open the statement")


# ------------------------------------------------------------------------------------ refund


def test_refund_opens_exactly_at_refund_after() -> None:
    state = locked_state()
    refund = frame("refund", PAYER, state.contract, ref="escrow-42")
    rejected(state, refund, REFUND_AFTER - 1, "refund window not open yet")
    refunded = ok(apply_frame(state, refund, REFUND_AFTER))
    assert refunded.status == "refunded"
    assert apply_frame(state, frame("refund", PAYER, state.contract), REFUND_AFTER + 5).ok
    rejected(refunded, refund, REFUND_AFTER, "refund in status refunded")


def test_refund_reasons_in_order() -> None:
    accepted, _ = accepted_state()
    state = locked_state()
    bad = frame("refund", PAYEE, ZERO32, ref="other", reason="late")
    rejected(accepted, bad, T0, "refund in status accepted")
    rejected(state, bad, T0, "refund names a different contract")
    bad["contract"] = state.contract
    rejected(state, bad, T0, "refund names a different rail ref")
    bad["ref"] = "escrow-42"
    rejected(state, bad, T0, "only the payer refunds")
    bad["from"] = PAYER
    rejected(state, bad, T0, "refund window not open yet")


# ------------------------------------------------------------------------------------ cancel


def test_cancel_in_proposed_by_the_offerer_ignores_the_contract_field() -> None:
    offer = make_offer()
    state = open_contract(offer)
    cancelled = ok(apply_frame(state, frame("cancel", PAYER, ZERO32), T0))
    assert cancelled.status == "cancelled"
    assert apply_frame(state, frame("cancel", PAYER, "0x" + "ab" * 32, reason="x"), T0).ok


def test_cancel_in_proposed_from_anyone_else_is_a_non_party() -> None:
    state = open_contract(make_offer())
    rejected(state, frame("cancel", STRANGER, ZERO32), T0, "cancel from a non-party")
    # the would-be acceptor is not a party yet either
    rejected(state, frame("cancel", PAYEE, ZERO32), T0, "cancel from a non-party")


def test_cancel_when_accepted() -> None:
    state, acc = accepted_state()
    c = acc["contract"]
    rejected(state, frame("cancel", PAYER, ZERO32), T0, "cancel names a different contract")
    rejected(state, frame("cancel", STRANGER, ZERO32), T0, "cancel names a different contract")
    rejected(state, frame("cancel", STRANGER, c), T0, "cancel from a non-party")
    assert ok(apply_frame(state, frame("cancel", PAYER, c), T0)).status == "cancelled"
    # no clock guard on cancel
    assert ok(apply_frame(state, frame("cancel", PAYEE, c), REFUND_AFTER + 1)).status == "cancelled"


@pytest.mark.parametrize("status_of", ["locked", "claimed", "cancelled"])
def test_cancel_after_accepted_is_refused(status_of: str) -> None:
    state = locked_state() if status_of == "locked" else claimed_state()
    if status_of == "cancelled":
        state = ok(apply_frame(open_contract(make_offer()), frame("cancel", PAYER, ZERO32), T0))
    contract = state.contract or ZERO32
    rejected(state, frame("cancel", PAYER, contract), T0, f"cancel in status {state.status}")


# ----------------------------------------------------------------------------------- receipt


def test_receipt_on_claimed_contract_is_an_idempotent_acknowledgement() -> None:
    state = claimed_state()
    receipt = frame("receipt", PAYER, state.contract, outcome="claimed", rail="flop-htlc",
                    ref="escrow-42")
    first = apply_frame(state, receipt, T0)
    assert first.ok and first.state is state and first.reason is None
    second = apply_frame(first.state, receipt, T0 + 10**9)  # replays ok, no clock guard
    assert second.ok and second.state is state
    assert apply_frame(state, frame("receipt", PAYEE, state.contract, outcome="claimed"), T0).ok


def test_receipt_reasons_in_order() -> None:
    locked = locked_state()
    state = claimed_state()
    c = state.contract
    rejected(locked, frame("receipt", PAYER, c, outcome="claimed"), T0,
             "receipt before a terminal status")
    bad = frame("receipt", STRANGER, ZERO32, outcome="refunded", rail="x402", ref="other")
    rejected(state, bad, T0, "receipt names a different contract")
    bad["contract"] = c
    rejected(state, bad, T0, "receipt from a non-party")
    bad["from"] = PAYEE
    rejected(state, bad, T0, "receipt outcome refunded does not match claimed")
    bad["outcome"] = "claimed"
    rejected(state, bad, T0, "receipt rail x402 does not match contract rail flop-htlc")
    bad["rail"] = "flop-htlc"
    rejected(state, bad, T0, "receipt ref does not match contract railRef")
    bad["ref"] = "escrow-42"
    assert apply_frame(state, bad, T0).ok


def test_receipt_rail_is_compared_as_an_exact_string() -> None:
    state, acc = accepted_state(rails=["paper"])
    state = ok(apply_frame(state, frame("lock", PAYER, acc["contract"], rail="paper", ref="r"), T0))
    state = ok(apply_frame(state, frame("reveal", PAYEE, acc["contract"], secret=PREIMAGE), T0))
    receipt = frame("receipt", PAYER, acc["contract"], outcome="claimed", rail="PaperRail")
    rejected(state, receipt, T0, "receipt rail PaperRail does not match contract rail paper")


def test_receipt_on_refunded_contract() -> None:
    state = locked_state()
    refunded = ok(apply_frame(state, frame("refund", PAYER, state.contract), REFUND_AFTER))
    assert apply_frame(refunded, frame("receipt", PAYEE, state.contract, outcome="refunded"), 0).ok
    rejected(refunded, frame("receipt", PAYEE, state.contract, outcome="claimed"), 0,
             "receipt outcome claimed does not match refunded")


def test_receipt_on_contract_cancelled_after_accept_must_not_name_a_rail() -> None:
    state, acc = accepted_state()
    c = acc["contract"]
    cancelled = ok(apply_frame(state, frame("cancel", PAYEE, c), T0))
    assert apply_frame(cancelled, frame("receipt", PAYER, c, outcome="cancelled"), T0).ok
    for extra in ({"rail": "x402"}, {"ref": "r"}, {"rail": "x402", "ref": "r"}):
        rejected(cancelled, frame("receipt", PAYER, c, outcome="cancelled", **extra), T0,
                 "receipt on cancelled contract cannot name a settlement rail")


def test_receipt_on_contract_cancelled_while_proposed_can_never_succeed() -> None:
    cancelled = ok(apply_frame(open_contract(make_offer()), frame("cancel", PAYER, ZERO32), T0))
    for contract in (ZERO32, "0x" + "ab" * 32):
        rejected(cancelled, frame("receipt", PAYER, contract, outcome="cancelled"), T0,
                 "receipt names a different contract")


# --------------------------------------------------------------------------------- heartbeat


def test_heartbeat_rules() -> None:
    proposed = open_contract(make_offer())
    state, acc = accepted_state()
    c = acc["contract"]
    beat = frame("heartbeat", PAYEE, c, nonce="0123456789abcdef", note="alive")
    rejected(proposed, beat, T0, "heartbeat in status proposed")
    first = apply_frame(state, beat, T0)
    assert first.ok and first.state is state
    assert apply_frame(first.state, beat, T0).ok  # replay is fine
    rejected(state, frame("heartbeat", PAYER, ZERO32, nonce="01234567"), T0,
             "heartbeat names a different contract")
    rejected(state, frame("heartbeat", STRANGER, c, nonce="01234567"), T0,
             "heartbeat from a non-party")
    locked = locked_state()
    assert apply_frame(locked, frame("heartbeat", PAYER, c, nonce="01234567"), REFUND_AFTER).ok
    claimed = claimed_state()
    rejected(claimed, beat, T0, "heartbeat in status claimed")


# ------------------------------------------------------------------------------- replays etc.


def test_replayed_transitions_are_status_rejections() -> None:
    offer = make_offer()
    acc = make_accept(offer)
    s1 = ok(apply_frame(open_contract(offer), acc, T0))
    lock = frame("lock", PAYER, acc["contract"], rail="flop-htlc", ref="escrow-42")
    s2 = ok(apply_frame(s1, lock, T0))
    rejected(s2, acc, T0, "accept in status locked")
    rejected(s2, lock, T0, "lock in status locked")
    reveal = frame("reveal", PAYEE, acc["contract"], secret=PREIMAGE)
    s3 = ok(apply_frame(s2, reveal, T0))
    rejected(s3, reveal, T0, "reveal in status claimed")
    rejected(s3, frame("refund", PAYER, acc["contract"]), REFUND_AFTER, "refund in status claimed")


def test_every_status_type_pair_outside_the_table_is_a_status_rejection() -> None:
    """The tables are the whole story: any (status, type) not in NEXT_STATUS is refused."""
    contract = "0x" + "cd" * 32
    samples = {
        "accept": make_accept(make_offer()),
        "lock": frame("lock", PAYER, contract, rail="x402", ref="r"),
        "reveal": frame("reveal", PAYEE, contract, secret=PREIMAGE),
        "refund": frame("refund", PAYER, contract),
        "cancel": frame("cancel", PAYER, contract),
        "receipt": frame("receipt", PAYER, contract, outcome="claimed"),
        "heartbeat": frame("heartbeat", PAYER, contract, nonce="01234567"),
    }
    base = open_contract(make_offer())
    for status in STATUSES:
        state = ContractState(status, base.offer, payer_did=PAYER, payee_did=PAYEE, contract=None)
        for kind, sample in samples.items():
            if (status, kind) in NEXT_STATUS:
                continue
            expected = (
                "receipt before a terminal status"
                if kind == "receipt"
                else f"{kind} in status {status}"
            )
            rejected(state, sample, T0, expected)


def test_tables_are_consistent() -> None:
    assert set(STATUSES) >= {s for (s, _) in NEXT_STATUS} | set(NEXT_STATUS.values())
    assert {"claimed", "refunded", "cancelled"} == TERMINAL
    assert set(RULES) == {"accept", "lock", "reveal", "refund", "cancel", "receipt", "heartbeat"}
    assert RULES["receipt"].from_statuses == TERMINAL
    assert RULES["heartbeat"].from_statuses == {"accepted", "locked"}
    assert RULES["cancel"].from_statuses == {"proposed", "accepted"}
    # nothing leaves a terminal status
    for (status, _kind), target in NEXT_STATUS.items():
        if status in TERMINAL:
            assert target == status


def test_apply_frame_never_mutates_state_or_frame() -> None:
    state = locked_state()
    snapshot = copy.deepcopy(state.to_dict())
    reveal = frame("reveal", PAYEE, state.contract, ref="escrow-42", secret=PREIMAGE)
    frame_copy = copy.deepcopy(reveal)
    new = apply_frame(state, reveal, T0).state
    assert new is not state
    assert state.to_dict() == snapshot
    assert reveal == frame_copy


def test_an_unexpected_error_inside_a_guard_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object) -> bool:
        raise RuntimeError("0x" + "11" * 32)

    monkeypatch.setattr(machine, "verify_secret", boom)
    state = locked_state()
    step = apply_frame(state, frame("reveal", PAYEE, state.contract, secret=PREIMAGE), T0)
    assert not step.ok and step.state is state
    assert step.reason == "tclk: frame could not be applied (RuntimeError)"
    assert "11" * 32 not in step.reason


def test_apply_frame_refuses_a_state_that_is_not_a_contract_state() -> None:
    _, acc = accepted_state()
    fake: Any = {"status": "proposed"}
    step = apply_frame(fake, acc, T0)
    assert not step.ok and step.state is fake


# ----------------------------------------------------------------------------------- outlook


def test_funding_outlook_table() -> None:
    offer = make_offer()
    proposed = open_contract(offer)
    accepted, _ = accepted_state()
    locked = locked_state()
    claimed = claimed_state()
    refunded = ok(apply_frame(locked, frame("refund", PAYER, locked.contract), REFUND_AFTER))
    cancelled = ok(apply_frame(proposed, frame("cancel", PAYER, ZERO32), T0))

    def out(state: ContractState, now: Any) -> tuple[Any, ...]:
        o = funding_outlook(state, now)
        return (o.actionable, o.code, o.ms_remaining, o.reason)

    assert out(accepted, math.nan) == (False, "unreadable-clock", 0, CLOCK_REASON)
    assert out(claimed, -1) == (False, "unreadable-clock", 0, CLOCK_REASON)
    assert out(cancelled, T0) == (False, "cancelled", 0, "contract was cancelled")
    assert out(claimed, T0) == (False, "settled", 0, "contract is claimed")
    assert out(refunded, T0) == (False, "settled", 0, "contract is refunded")
    assert out(locked, T0) == (False, "funded", 0, "contract is already funded")
    assert out(proposed, EXPIRES) == (False, "offer-expired", 0, "offer expired unaccepted")
    assert out(proposed, EXPIRES - 1) == (
        True, "awaiting-accept", 1, "offer is open and a lock would still be accepted",
    )
    assert out(accepted, T0) == (
        True, "open", REFUND_AFTER - T0, "accepted and a lock would still be accepted",
    )
    assert out(accepted, REFUND_AFTER) == (
        False, "lapsed", 0, "refund window opened with no lock on the contract",
    )
    assert out(accepted, EXPIRES + 1)[:2] == (True, "open")  # expiry no longer matters


def test_funding_outlook_proposed_offer_whose_refund_window_opens_first() -> None:
    # expiresMs may lie after refundAfterMs (no rule ties them together)
    state = open_contract(make_offer(expiresMs=REFUND_AFTER + 1000))
    lapsed = funding_outlook(state, REFUND_AFTER)
    assert (lapsed.actionable, lapsed.code, lapsed.reason) == (
        False, "lapsed", "refund window opened before the offer was accepted",
    )
    early = funding_outlook(state, REFUND_AFTER - 10)
    assert (early.code, early.ms_remaining) == ("awaiting-accept", 10)


def test_outlook_reads_like_a_mapping() -> None:
    outlook = funding_outlook(open_contract(make_offer()), T0)
    assert isinstance(outlook, Outlook)
    assert outlook["msRemaining"] == outlook["ms_remaining"] == EXPIRES - T0
    assert outlook.to_dict(camel=True) == {
        "actionable": True,
        "code": "awaiting-accept",
        "msRemaining": EXPIRES - T0,
        "reason": "offer is open and a lock would still be accepted",
    }


# -------------------------------------------------------------------------------- lock terms


def test_lock_terms_before_accept_raise() -> None:
    state = open_contract(make_offer())
    expected = r"^tclk: contract is not accepted yet \(status proposed\)$"
    with pytest.raises(TclkError, match=expected):
        lock_terms(state)
    cancelled = ok(apply_frame(state, frame("cancel", PAYER, ZERO32), T0))
    with pytest.raises(TclkError, match=r"\(status cancelled\)"):
        lock_terms(cancelled)


def test_lock_terms_after_accept_and_after_cancel() -> None:
    state, acc = accepted_state()
    terms = lock_terms(state)
    assert terms == LockTerms(
        contract=acc["contract"],
        lock="hash",
        statement=HASH,
        amount="1000",
        asset="USDC",
        payer=PAYER,
        payee=PAYEE,
        claim_by_ms=CLAIM_BY,
        refund_after_ms=REFUND_AFTER,
    )
    assert terms.to_wire() == {
        "contract": acc["contract"],
        "lock": "hash",
        "statement": HASH,
        "amount": "1000",
        "asset": "USDC",
        "payer": PAYER,
        "payee": PAYEE,
        "claimByMs": CLAIM_BY,
        "refundAfterMs": REFUND_AFTER,
    }
    cancelled = ok(apply_frame(state, frame("cancel", PAYER, acc["contract"]), T0))
    assert lock_terms(cancelled) == terms


def test_lock_terms_of_a_payee_role_offer() -> None:
    offer = make_offer(role="payee", **{"from": PAYEE})
    acc = make_accept(offer, sender=PAYER)
    terms = lock_terms(ok(apply_frame(open_contract(offer), acc, T0)))
    assert (terms.payer, terms.payee) == (PAYER, PAYEE)


# ------------------------------------------------------------------------------ value types


def test_state_reads_like_a_mapping_in_both_spellings() -> None:
    state = claimed_state()
    assert state["status"] == "claimed"
    assert state["payerDid"] == state["payer_did"] == PAYER
    assert state["railRef"] == "escrow-42"
    assert state.get("payeeKey") is None
    assert state.get("nope", 7) == 7
    assert "railRef" in state and "nope" not in state and 3 not in state
    with pytest.raises(KeyError):
        state["nope"]
    assert state.keys()[0] == "status"
    assert state.to_dict()["payer_did"] == PAYER
    assert state.to_dict(camel=True)["payerDid"] == PAYER
    assert state.terminal


def test_to_dict_is_a_copy() -> None:
    state = locked_state()
    data = state.to_dict()
    data["offer"]["amount"] = "1"
    assert state.offer["amount"] == "1000"


def test_step_reads_like_a_mapping() -> None:
    state, _ = accepted_state()
    step = apply_frame(state, None, T0)
    assert step["ok"] is False
    assert step["reason"] == "tclk: frame must be an object"
    assert step["state"] is state
    assert step.get("reason") == step.reason


def test_repr_redacts_the_secret() -> None:
    state = claimed_state()
    text = repr(state)
    assert PREIMAGE[2:] not in text
    assert "secret=<redacted>" in text
    assert "status='claimed'" in text
    assert PREIMAGE[2:] not in repr(Step(state, True))
    assert "secret=None" in repr(locked_state())


def test_values_are_frozen() -> None:
    state = locked_state()
    with pytest.raises(AttributeError):
        state.status = "claimed"  # type: ignore[misc]
    assert not hasattr(state, "__dict__")


def test_accept_core_drops_type_contract_and_absent_payment_key() -> None:
    offer = make_offer()
    acc = make_accept(offer)
    assert accept_core(acc) == {
        "from": PAYEE,
        "ref": offer["id"],
        "statement": HASH,
        "nonce": "8899aabbccddeeff",
    }
    assert accept_core(make_accept(offer, payment_key=G))["paymentKey"] == G


# ---------------------------------------------------------------------------------- fuzzing

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from([PAYER, PAYEE, STRANGER, ZERO32, HASH, POINT, PREIMAGE, "x402", "claimed"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
frame_keys = st.sampled_from(
    ["type", "from", "contract", "rail", "ref", "secret", "outcome", "nonce", "statement",
     "paymentKey", "presig", "reason", "note"]
)
frame_types = st.sampled_from(
    ["offer", "accept", "lock", "reveal", "refund", "cancel", "receipt", "heartbeat", "x"]
)
fuzz_frames = st.one_of(
    json_values,
    st.builds(
        lambda kind, rest: {**rest, "type": kind},
        frame_types | json_values,
        st.dictionaries(frame_keys, json_values, max_size=6),
    ),
)
clocks = st.one_of(
    st.integers(min_value=-5, max_value=2**63),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([T0, EXPIRES, REFUND_AFTER, True, None, "1"]),
)


@settings(max_examples=300, deadline=None)
@given(fuzz_frames, clocks, st.sampled_from(["proposed", "accepted", "locked", "claimed"]))
def test_apply_frame_never_raises_and_rejections_keep_the_state(
    hostile: Any, now: Any, stage: str
) -> None:
    state = {
        "proposed": lambda: open_contract(make_offer()),
        "accepted": lambda: accepted_state()[0],
        "locked": locked_state,
        "claimed": claimed_state,
    }[stage]()
    step = apply_frame(state, hostile, now)
    assert isinstance(step, Step)
    assert isinstance(step.ok, bool)
    if not step.ok:
        assert step.state is state
        assert isinstance(step.reason, str) and step.reason
    else:
        assert step.reason is None
        assert step.state.status in STATUSES
