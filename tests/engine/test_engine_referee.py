"""Referees on the rehearsal venue (SPEC §8): an arbiter who holds the secret and releases it
sealed, a unanimous committee of three on a point lock, a hash-lock committee with a dealer."""

from __future__ import annotations

import pytest

from tclk_tui.engine.events import Notice
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.sync import private_deals
from tests.engine.helpers import Pair, arbitrated_deal, draft, reveal_as_payee


def texts(queue) -> list[str]:
    out = []
    while not queue.empty():
        event = queue.get_nowait()
        if isinstance(event, Notice):
            out.append(event.text)
    return out


async def every_room_text(pair: Pair, client) -> str:
    lines = []
    for room in list(pair.venue.venue.rooms):
        lines += [r.text for r in (await client.export(room)).records]
    return "\n".join(lines)


async def test_an_arbiter_releases_and_the_payee_claims(pair: Pair):
    carol = await pair.open("carol")
    offer_id, deal_a, deal_b = await arbitrated_deal(pair, [carol])
    desk = carol.referee
    [case] = await desk.refresh()
    assert (case.role, case.status, case.minted, case.held) == ("arbiter", "locked", True, True)
    assert case.lock_verified is True
    # The payee holds nothing yet: its reveal gate refuses.
    assert any("no secret" in b for b in deal_b.request_reveal().blockers)
    request = desk.request_release(offer_id)
    assert request.allowed, request.blockers
    with pytest.raises(GateRefused, match="type"):
        await desk.confirm_release(request, "zzzz")
    secret = "0x" + carol.vault.cached_deal_secret(offer_id, deal_a.offer["nonce"],
                                                   "preimage").hex()
    assert secret not in await every_room_text(pair, carol.client)
    released = await desk.confirm_release(request, request.confirm_code)
    assert released.decision == "released"
    # Sealed: not in any room of the venue, only in the payee's vault once opened.
    assert secret not in await every_room_text(pair, carol.client)
    await private_deals.poll_letters(pair.bob)
    assert pair.bob.keeper.deal_secret(offer_id) == secret
    assert secret not in await every_room_text(pair, carol.client)
    await reveal_as_payee(pair, deal_b)
    assert pair.alice.deal(offer_id).state.status == "claimed"
    [case] = await desk.refresh()
    assert case.status == "claimed"


async def test_an_arbiter_withholds_and_the_payer_refunds(pair: Pair):
    carol = await pair.open("carol")
    offer_id, deal_a, deal_b = await arbitrated_deal(pair, [carol], lock="point")
    desk = carol.referee
    await desk.refresh()
    request = desk.request_withhold(offer_id)
    assert request.allowed and request.confirm_code == deal_a.state.contract[2:6]
    assert desk.confirm_withhold(request, request.confirm_code).decision == "withheld"
    assert any("withheld" in b for b in desk.request_release(offer_id).blockers)
    pair.clock.advance(2 * 3600 * 1000 + 1000)
    refund = deal_a.request_refund()
    assert refund.allowed, refund.blockers
    await deal_a.confirm(refund)
    await pair.sync()
    assert deal_b.state.status == "refunded"
    [case] = await desk.refresh()
    assert case.status == "refunded" and case.decision == "withheld"
    with pytest.raises(GateRefused, match="answers no request"):  # answered once, only
        desk.confirm_withhold(request, request.confirm_code)
    desk._set_meta(offer_id, decision="released")
    again = desk.request_withhold(offer_id)
    with pytest.raises(GateRefused, match="already released"):
        desk.confirm_withhold(again, again.confirm_code)


async def test_a_forged_release_from_a_stranger_is_refused(pair: Pair):
    carol = await pair.open("carol")
    mallory = await pair.open("mallory")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    seen = pair.bob.events.subscribe()
    await mallory.mail.send(pair.bob.did, {"kind": "secret", "offer": offer_id,
                                           "contract": deal_b.state.contract,
                                           "secret": "0x" + "11" * 32})
    await carol.mail.send(pair.bob.did, {"kind": "secret", "offer": offer_id,
                                         "contract": deal_b.state.contract,
                                         "secret": "0x" + "22" * 32})
    await private_deals.poll_letters(pair.bob)
    notes = texts(seen)
    assert any("not the deal's arbiter" in t for t in notes)
    assert any("does not open the deal's statement" in t for t in notes)
    assert pair.bob.keeper.deal_secret(offer_id) is None
    assert deal_b.state.status == "locked"


async def test_the_payer_will_not_lock_a_statement_the_arbiter_did_not_publish(pair: Pair):
    """Bob (payee) puts his own statement in the accept of an arbitrated offer."""
    from tclk_tui.engine.secrets.keeper import SecretPlan
    from tclk_tui.protocol.builders import make_accept
    from tclk_tui.protocol.codec import encode_frame
    from tclk_tui.protocol.naming import OFFER_ROOM
    alice, bob = pair.alice, pair.bob
    carol = await pair.open("carol")
    offer_id = (await alice.post_offer(draft(rails="memory", panel=carol.did))).deal_id
    await carol.referee.refresh()
    await carol.referee.mint(offer_id)
    await bob.sync()
    own = bob.keeper.mint(SecretPlan(offer_id=offer_id, nonce="00112233", lock="hash"))
    accept = make_accept(bob.board.offer_frame(offer_id), from_=bob.did, statement=own,
                         nonce="00112233")
    await bob.client.post(OFFER_ROOM, encode_frame(accept))
    await alice.sync()
    deal_a = alice.deal(offer_id)
    assert deal_a.state.status == "accepted"
    request = deal_a.request_lock("memory")
    assert any("not the one the panel published" in b for b in request.blockers)
    with pytest.raises(GateRefused):
        await deal_a.confirm(request)


async def test_a_point_committee_of_three_opens_only_with_the_third_share(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2", "j3")]
    offer_id, _, deal_b = await arbitrated_deal(pair, jurors, lock="point")
    bob = pair.bob
    for number, juror in enumerate(jurors, start=1):
        desk = juror.referee
        [case] = await desk.refresh()
        assert case.what == f"share {number} of 3"
        request = desk.request_release(offer_id)
        assert request.allowed, request.blockers
        await desk.confirm_release(request, request.confirm_code)
        await private_deals.poll_letters(bob)
        progress = private_deals.committee_progress(bob, offer_id)
        if number < 3:
            assert progress["missing"] == [j.did for j in jurors[number:]]
            assert not progress["opened"] and bob.keeper.deal_secret(offer_id) is None
            assert any("no secret" in b for b in deal_b.request_reveal().blockers)
    assert private_deals.committee_progress(bob, offer_id)["opened"]
    # No share and not the combined witness appear in any room before the payee's reveal.
    public = await every_room_text(pair, bob.client)
    for value in [*bob.keeper.shares(offer_id).values(), bob.keeper.deal_secret(offer_id)]:
        assert value[2:] not in public
    await reveal_as_payee(pair, deal_b)
    assert pair.alice.deal(offer_id).state.status == "claimed"


async def test_a_share_that_does_not_match_its_point_is_refused(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2")]
    offer_id, _, deal_b = await arbitrated_deal(pair, jurors, lock="point")
    seen = pair.bob.events.subscribe()
    await jurors[0].mail.send(pair.bob.did, {"kind": "share", "offer": offer_id,
                                             "contract": deal_b.state.contract,
                                             "share": "0x" + "33" * 32})
    await private_deals.poll_letters(pair.bob)
    assert any("does not match the share point" in t for t in texts(seen))
    assert private_deals.committee_progress(pair.bob, offer_id)["have"] == []


async def test_a_hash_committee_with_a_dealer_who_forgets(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2", "j3")]
    offer_id, _, deal_b = await arbitrated_deal(pair, jurors, lock="hash")
    for juror in jurors:
        desk = juror.referee
        await desk.refresh()
        request = desk.request_release(offer_id)
        assert request.allowed, (juror.profile, request.blockers)
        await desk.confirm_release(request, request.confirm_code)
    # The dealer keeps only its own share: no vault entry opens the statement by itself.
    dealer = jurors[0]
    assert dealer.keeper.deal_secret(offer_id) is None
    await private_deals.poll_letters(pair.bob)
    assert private_deals.committee_progress(pair.bob, offer_id)["opened"]
    await reveal_as_payee(pair, deal_b)


async def test_the_registry_drives_the_referee_console(pair: Pair, tmp_path):
    from tclk_tui.engine.commands import CommandError, execute
    carol = await pair.open("carol")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    [case] = (await execute(carol, "cases"))["cases"]
    assert case["offer_id"] == offer_id and case["what"] == "the secret"
    unconfirmed = await execute(carol, "release", {"offer": offer_id[:14]})
    assert unconfirmed["performed"] is False and unconfirmed["gate"]["allowed"]
    with pytest.raises(CommandError, match="the code does not match: type the first 4 hex") \
            as wrong:
        await execute(carol, "release", {"offer": offer_id, "confirm": "zzzz"})
    assert wrong.value.kind == "usage" and wrong.value.data["wrong_code"] is True
    done = await execute(carol, "release", {"offer": offer_id,
                                            "confirm": deal_b.state.contract[2:6]})
    assert done["performed"] and done["decision"] == "released"
    await pair.bob.check_mail()
    answer = await execute(pair.bob, "evidence", {"deal": offer_id,
                                                  "out": str(tmp_path / "e.json")})
    assert answer["status"] == "locked" and answer["records"] >= 4
    audited = await execute(None, "audit", {"files": [answer["file"]]})
    assert audited["ok"] and audited["bundles"][0]["status"] == "locked"
