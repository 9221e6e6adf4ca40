"""Point locks: the payer's lock carries an adaptor pre-signature the payee checks first."""

from __future__ import annotations

import secrets

import pytest

from tclk_tui.engine.deal import claim_message
from tclk_tui.engine.gates import GateRefused
from tclk_tui.protocol.adaptor import adapt, extract_witness, pre_sign, verify_signature
from tests.engine.helpers import (
    Pair,
    assert_settled,
    lock_as_payer,
    payer_offer_accepted,
    post_as,
    reveal_as_payee,
)


def _fact(request, label: str):
    return next(f for f in request.facts if f.label == label)


@pytest.mark.parametrize("rail", ["memory", "paper"])
async def test_point_lock_deal_with_verified_presig_ends_claimed(pair: Pair, rail: str):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, lock="point", rails=rail)
    assert deal_a.state.payer_key and deal_b.state.payee_key
    await lock_as_payer(pair, deal_a, rail)

    presig = deal_b.state.presig
    assert presig is not None and set(presig) == {"nonce", "s"}
    assert deal_b.lock_check.presig_ok is True
    request = deal_b.request_reveal()
    assert request.allowed, request.blockers
    assert _fact(request, "adaptor pre-signature").ok is True

    await reveal_as_payee(pair, deal_b)
    await assert_settled(pair, offer_id, "claimed")
    # The revealed witness completes the payer's pre-signature, and the completed signature
    # hands the witness back to anyone holding the pre-signature (the PTLC property).
    witness = deal_a.state.secret
    message = "0x" + claim_message(deal_a.state.contract).hex()
    signature = adapt(presig, witness)
    assert verify_signature(deal_a.state.payer_key, message, signature)
    assert extract_witness(presig, signature) == witness


def _tampered(presig: dict) -> dict:
    s = int(presig["s"], 16)
    return {"nonce": presig["nonce"], "s": "0x" + format((s % (2**255)) + 1, "064x")}


@pytest.mark.parametrize("forgery", ["tampered", "foreign-key"])
async def test_a_bad_presig_blocks_the_reveal_on_a_rail_that_settles_by_it(pair: Pair,
                                                                           forgery: str):
    # A rail whose claim is the completed adaptor signature (SPEC §3.3); on a rail that
    # settles by secret the same presig is only a note (test_engine_interop_payee.py).
    pair.memory.settles_by_signature = True  # type: ignore[attr-defined]
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, lock="point", rails="memory")
    terms = deal_a.terms()
    ref = await pair.memory.lock(terms)  # the rail lock itself is genuine
    message = "0x" + claim_message(terms.contract).hex()
    if forgery == "tampered":
        good = pre_sign(pair.alice.keeper.payment_secret_key(offer_id), message, terms.statement)
        presig = _tampered(good)
    else:
        presig = pre_sign("0x" + secrets.token_hex(31).rjust(64, "0"), message, terms.statement)
    await post_as(pair.alice, deal_a.room, {"type": "lock", "from": pair.alice.did,
                                           "contract": terms.contract, "rail": "memory",
                                           "ref": ref, "presig": presig})
    await pair.sync()
    assert deal_b.state.status == "locked"
    assert deal_b.lock_check.verified is True
    assert deal_b.lock_check.presig_ok is False
    request = deal_b.request_reveal()
    assert not request.allowed
    assert "the payer's pre-signature does not verify" in request.blockers
    assert _fact(request, "adaptor pre-signature").ok is False
    with pytest.raises(GateRefused, match="pre-signature"):
        await deal_b.confirm(request, typed_code=request.confirm_code)
    assert deal_b.state.status == "locked"
    assert pair.memory.status(ref) == "locked"  # the secret never reached the rail either
    assert not any(r.type == "reveal" for r in deal_b.view().records)
