"""The reveal gate: every early path is refused with a reason, whoever asks and however.

Hostile lock frames are signed with the counterparty's real identity (a dishonest payer, not
a stranger), so the fold accepts them and only the rail check stands between them and the
secret.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets

import pytest

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.gates import GateRefused
from tclk_tui.protocol.locks import hash_lock_from_preimage
from tclk_tui.protocol.naming import encode_paper_record, paper_note
from tests.engine.helpers import (
    Pair,
    assert_settled,
    draft,
    lock_as_payer,
    payer_offer_accepted,
    post_as,
)


def _lock_frame(pair: Pair, deal: DealSession, rail: str, ref: str) -> dict:
    return {"type": "lock", "from": pair.alice.did, "contract": deal.state.contract,
            "rail": rail, "ref": ref}


async def _assert_reveal_refused(deal: DealSession, reason: str) -> None:
    request = deal.request_reveal()
    assert not request.allowed
    assert any(reason in b for b in request.blockers), request.blockers
    with pytest.raises(GateRefused, match=reason):
        await deal.confirm(request, typed_code=request.confirm_code, acknowledge_late=True)
    # A request doctored to look allowed is judged afresh at confirm time.
    doctored = dataclasses.replace(request, blockers=(), late=False)
    with pytest.raises(GateRefused):
        await deal.confirm(doctored, typed_code=request.confirm_code, acknowledge_late=True)
    assert not any(r.type == "reveal" for r in deal.view().records)
    assert deal.state.status != "claimed"


async def test_reveal_refused_on_a_proposed_offer_and_for_the_payer(pair: Pair):
    view = await pair.bob.post_offer(draft(role="payee"))
    await _assert_reveal_refused(pair.bob.deal(view.deal_id), "not locked")
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    await _assert_reveal_refused(deal_a, "only the payee reveals")


@pytest.mark.parametrize("rail", ["memory", "paper"])
async def test_reveal_refused_when_the_announced_lock_does_not_exist(pair: Pair, rail: str):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails=rail)
    await post_as(pair.alice, deal_a.room, _lock_frame(pair, deal_a, rail, deal_a.state.contract))
    await pair.sync()
    assert deal_b.state.status == "locked"  # the fold believes the signed frame...
    assert deal_b.lock_check.verified is False  # ...the rail does not
    await _assert_reveal_refused(deal_b, "lock not verified on the rail")


@pytest.mark.parametrize("change", ["amount", "statement", "payee", "refund_after_ms"])
async def test_reveal_refused_when_the_memory_lock_has_other_terms(pair: Pair, change: str):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    terms = deal_a.terms()
    other = {
        "amount": "1",
        "statement": hash_lock_from_preimage(secrets.token_bytes(32)).hash,
        "payee": pair.alice.did,
        "refund_after_ms": terms.refund_after_ms + 1,
    }[change]
    ref = await pair.memory.lock(dataclasses.replace(terms, **{change: other}))
    await post_as(pair.alice, deal_a.room, _lock_frame(pair, deal_a, "memory", ref))
    await pair.sync()
    assert deal_b.state.status == "locked"
    await _assert_reveal_refused(deal_b, "no lock with these terms")


async def test_reveal_refused_when_the_paper_note_names_another_statement(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="paper")
    terms = deal_a.terms()
    other = hash_lock_from_preimage(hashlib.sha256(b"another").digest()).hash
    ref = await pair.alice.rails["paper"].lock(dataclasses.replace(terms, statement=other))
    await post_as(pair.alice, deal_a.room, _lock_frame(pair, deal_a, "paper", ref))
    await pair.sync()
    await _assert_reveal_refused(deal_b, "no lock with these terms")


async def test_reveal_refused_when_the_lock_names_another_ref(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await pair.memory.lock(deal_a.terms())
    await post_as(pair.alice, deal_a.room, _lock_frame(pair, deal_a, "memory", "0x" + "ab" * 32))
    await pair.sync()
    await _assert_reveal_refused(deal_b, "lock not verified")


async def test_a_lock_overwritten_after_the_request_is_caught_at_confirm(pair: Pair):
    """The paper note is world-writable: the gate re-reads the rail when the operator confirms."""
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="paper")
    await lock_as_payer(pair, deal_a, "paper")
    request = deal_b.request_reveal()
    assert request.allowed, request.blockers
    carol = await pair.open("carol")
    ns, key = paper_note(deal_a.state.contract)
    forged = encode_paper_record({"status": "refunded", "lock": "hash",
                                  "statement": deal_a.state.statement,
                                  "refund_after_ms": deal_a.offer["refundAfterMs"]})
    assert (await carol.client.set_note(ns, key, forged)).ok
    with pytest.raises(GateRefused, match="lock not verified"):
        await deal_b.confirm(request, typed_code=request.confirm_code)
    assert deal_b.state.status == "locked"


async def test_a_strangers_frames_never_move_the_deal(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    carol = await pair.open("carol")
    contract = deal_a.state.contract
    for frame in ({"type": "lock", "from": carol.did, "contract": contract, "rail": "memory",
                   "ref": contract},
                  {"type": "cancel", "from": carol.did, "contract": contract}):
        await post_as(carol, deal_a.room, frame)
    await pair.sync()
    for deal in (deal_a, deal_b):
        assert deal.state.status == "accepted"
        refused = [r for r in deal.view().records if r.sender == carol.did]
        assert [r.ok for r in refused] == [False, False]
        assert refused[0].reason == "only the payer locks"
        assert refused[1].reason == "cancel from a non-party"
    await _assert_reveal_refused(deal_b, "not locked")


async def test_late_reveal_needs_an_acknowledgement(pair: Pair):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    pair.clock.ms = deal_a.offer["claimByMs"]
    request = deal_b.request_reveal()
    assert request.allowed and request.late
    with pytest.raises(GateRefused, match="acknowledge"):
        await deal_b.confirm(request, typed_code=request.confirm_code)
    assert deal_b.state.status == "locked"
    await deal_b.confirm(request, typed_code=request.confirm_code, acknowledge_late=True)
    await assert_settled(pair, offer_id, "claimed")


async def test_reveal_refused_once_the_refund_window_is_open(pair: Pair):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    pair.clock.ms = deal_a.offer["refundAfterMs"]
    await _assert_reveal_refused(deal_b, "refund window is open")
    assert pair.memory.status(deal_a.state.contract) == "locked"
    await deal_a.confirm(deal_a.request_refund())
    await assert_settled(pair, offer_id, "refunded")


async def test_lock_refused_once_the_refund_window_is_open(pair: Pair):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    pair.clock.ms = deal_a.offer["refundAfterMs"]
    request = deal_a.request_lock("memory")
    assert "refund window is already open" in request.blockers
    with pytest.raises(GateRefused):
        await deal_a.confirm(request)
    assert pair.memory.status(deal_a.state.contract) is None



async def test_a_claim_race_lost_to_a_forged_claimed_record_never_posts_the_secret(pair: Pair):
    """Between the gate's rail check and the claim a stranger marks the paper record claimed
    with junk: the claim fails and the secret stays unpublished (the rail's word decides)."""
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="paper")
    await lock_as_payer(pair, deal_a, "paper")
    request = deal_b.request_reveal()
    assert request.allowed, request.blockers
    carol = await pair.open("carol")
    ns, key = paper_note(deal_a.state.contract)
    forged = encode_paper_record({"status": "claimed", "lock": "hash",
                                  "statement": deal_a.state.statement,
                                  "refund_after_ms": deal_a.offer["refundAfterMs"],
                                  "secret": "0x" + secrets.token_hex(32)})
    assert (await carol.client.set_note(ns, key, forged)).ok
    with pytest.raises(GateRefused, match="rail refused the claim"):
        await deal_b._do_reveal(request)  # the step after the gate's checks, in the race window
    room = (await pair.bob.client.export(deal_b.room)).records
    assert not any('"type":"reveal"' in r.text for r in room)
