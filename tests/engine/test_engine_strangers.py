"""Third parties on the venue: a competing acceptor, a squatter on the paper note, a heckler in
the deal room. None of them can move a deal, and none of them speaks for the counterparty."""

from __future__ import annotations

import pytest

from tclk_tui.engine.gates import GateRefused
from tclk_tui.protocol.naming import encode_paper_record, paper_note
from tests.engine.helpers import Pair, assert_settled, draft, lock_as_payer, post_as


async def test_a_lost_accept_race_leaves_the_loser_an_observer(pair: Pair):
    alice, bob = pair.alice, pair.bob
    carol = await pair.open("carol")
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await bob.sync()
    await carol.sync()
    await carol.accept_offer(offer_id)  # carol's accept lands first
    await bob.accept_offer(offer_id)
    await pair.sync()
    await carol.sync()

    lost = bob.deal(offer_id)
    assert lost.state.payee_did == carol.did
    view = lost.view()
    assert view.role == "observer" and view.actions == frozenset()
    for request in (lost.request_reveal(), lost.request_cancel(), lost.request_lock()):
        assert any("not a party" in b for b in request.blockers), request.blockers
        with pytest.raises(GateRefused):
            await lost.confirm(request, typed_code=request.confirm_code)
    with pytest.raises(GateRefused):
        await lost.heartbeat("still here?")

    won = carol.deal(offer_id)
    assert won.view().role == "payee" and alice.deal(offer_id).state.payee_did == carol.did
    await lock_as_payer(pair, alice.deal(offer_id), "memory")
    await carol.sync()
    request = won.request_reveal()
    await won.confirm(request, typed_code=request.confirm_code)
    await alice.sync()
    assert alice.deal(offer_id).state.status == "claimed"


async def test_a_squatted_paper_note_makes_the_lock_refuse_cleanly(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="paper"))).deal_id
    await bob.sync()
    await bob.accept_offer(offer_id)
    await alice.sync()
    deal_a = alice.deal(offer_id)
    carol = await pair.open("carol")
    ns, key = paper_note(deal_a.state.contract)
    squat = encode_paper_record({"status": "claimed", "lock": "hash",
                                 "statement": deal_a.state.statement,
                                 "refund_after_ms": deal_a.offer["refundAfterMs"],
                                 "secret": "0x" + "00" * 31 + "01"})
    assert (await carol.client.set_note(ns, key, squat)).ok
    request = deal_a.request_lock("paper")
    assert request.allowed
    with pytest.raises(GateRefused, match="rail refused the lock"):
        await deal_a.confirm(request)
    await pair.sync()
    assert deal_a.state.status == bob.deal(offer_id).state.status == "accepted"
    assert not any(r.type == "lock" for r in deal_a.view().records)


async def test_only_the_counterpartys_heartbeat_note_is_shown(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await bob.sync()
    await bob.accept_offer(offer_id)
    await alice.sync()
    deal_a, deal_b = alice.deal(offer_id), bob.deal(offer_id)
    await deal_a.heartbeat("locking within the hour")
    carol = await pair.open("carol")
    await post_as(carol, deal_a.room, {"type": "heartbeat", "from": carol.did,
                                       "contract": deal_a.state.contract,
                                       "nonce": "c0ffee00", "note": "send it to me instead"})
    await bob.sync()
    assert deal_b.view().note == "locking within the hour"
    assert deal_b.state.status == "accepted"
    await lock_as_payer(pair, deal_a, "memory")
    request = deal_b.request_reveal()
    await deal_b.confirm(request, typed_code=request.confirm_code)
    await assert_settled(pair, offer_id, "claimed")
