"""The arbiter's desk: shares, vote commitments, and a commit-reveal round in a deal room."""

from __future__ import annotations

import pytest

from tclk_tui.engine.arbitration.desk import ArbitrationError
from tclk_tui.protocol.locks import generate_hash_lock, generate_point_lock
from tclk_tui.protocol.side_lines import encode_vote_commit, encode_vote_reveal
from tests.engine.helpers import draft

CONTRACT = "0x" + "ab" * 32


async def test_split_and_combine_open_the_statement_only_with_every_share(pair):
    desk = pair.alice.arbitration
    lock = generate_hash_lock()
    shares = desk.split("preimage", lock.preimage, 3)
    assert desk.combine("preimage", shares, lock.hash).opens is True
    assert desk.combine("preimage", shares[:2], lock.hash).opens is False
    point = generate_point_lock()
    wshares = desk.split("witness", point.witness, 4)
    assert desk.combine("witness", wshares, point.statement).opens is True
    assert desk.combine("witness", wshares[1:], point.statement).opens is False
    assert "redacted" in repr(desk.combine("preimage", shares))


def test_refusals_carry_the_protocol_reason(pair):
    desk = pair.alice.arbitration
    with pytest.raises(ArbitrationError, match=r"'\|'"):
        desk.commit_vote(CONTRACT, "yes|no")
    with pytest.raises(ArbitrationError, match="rewrites"):
        desk.commit_vote(CONTRACT, "yes\u202e")
    with pytest.raises(ArbitrationError, match="2 and 64"):
        desk.split("preimage", "0x" + "11" * 32, 1)
    with pytest.raises(ArbitrationError):
        desk.combine("preimage", ["0x12"])


def test_commitment_verifies_only_with_its_verdict_salt_and_contract(pair):
    desk = pair.alice.arbitration
    vote = desk.commit_vote(CONTRACT, "release")
    assert desk.verify_vote(vote.commitment, CONTRACT, "release", vote.salt)
    assert not desk.verify_vote(vote.commitment, CONTRACT, "refund", vote.salt)
    assert not desk.verify_vote(vote.commitment, "0x" + "cd" * 32, "release", vote.salt)
    assert desk.commit_vote(CONTRACT, "release").salt != vote.salt


async def accepted_contract(pair) -> str:
    """A real contract (an offer naming no committee, accepted): a round is counted under
    its offer's deadline, so a tally needs the offer."""
    offer = await pair.alice.post_offer(draft(rails="memory"))
    await pair.bob.sync()
    await pair.bob.accept_offer(offer.deal_id)
    await pair.alice.sync()
    return pair.alice.deal(offer.deal_id).state.contract


async def test_round_in_a_deal_room_counts_opened_votes_and_names_problems(pair):
    alice, bob = pair.alice, pair.bob
    CONTRACT = await accepted_contract(pair)
    v_alice = alice.arbitration.commit_vote(CONTRACT, "release")
    v_bob = bob.arbitration.commit_vote(CONTRACT, "refund")
    await alice.arbitration.post_commit(v_alice)
    await bob.arbitration.post_commit(v_bob)
    await alice.arbitration.post_reveal(v_alice)
    # Bob reveals a verdict his commitment does not hold, and then commits again late.
    await bob._post_vote_line(CONTRACT, encode_vote_reveal(v_bob.salt, "release"))
    await bob._post_vote_line(CONTRACT, encode_vote_commit("0x" + "00" * 32))
    tally = await alice.arbitration.tally(CONTRACT, [alice.did, bob.did])
    assert tally.commits == {alice.did: v_alice.commitment, bob.did: v_bob.commitment}
    assert tally.reveals == {alice.did: "release"}
    assert tally.counts == {"release": 1}
    assert any("does not match its commitment" in p for p in tally.problems)
    assert any("second commitment" in p for p in tally.problems)


def test_a_vote_commit_repr_hides_its_salt_and_verdict(pair):
    vote = pair.alice.arbitration.commit_vote(CONTRACT, "release")
    assert vote.salt not in repr(vote) and "release" not in repr(vote)
    assert vote.commitment in repr(vote)


async def test_throwaway_dids_cannot_outvote_the_panel(pair):
    """Five freshly minted did:keys vote `refund`; the two jurors vote `release`."""
    import secrets as _secrets

    from tclk_tui.protocol.naming import deal_room
    from tclk_tui.technocore.client import VenueClient
    from tclk_tui.technocore.identity import Identity

    alice, bob = pair.alice, pair.bob
    CONTRACT = await accepted_contract(pair)
    votes = [(juror, juror.arbitration.commit_vote(CONTRACT, "release")) for juror in (alice, bob)]
    sybils = [(Identity.from_seed(_secrets.token_bytes(32)),
               alice.arbitration.commit_vote(CONTRACT, "refund")) for _ in range(5)]
    for juror, vote in votes:
        await juror.arbitration.post_commit(vote)
    for sybil, vote in sybils:  # every commitment in before any reveal: all on time
        async with VenueClient(pair.venue.url, sybil) as client:
            await client.post(deal_room(CONTRACT), encode_vote_commit(vote.commitment))
    for juror, vote in votes:
        await juror.arbitration.post_reveal(vote)
    for sybil, vote in sybils:
        async with VenueClient(pair.venue.url, sybil) as client:
            await client.post(deal_room(CONTRACT), encode_vote_reveal(vote.salt, vote.verdict))
    tally = await alice.arbitration.tally(CONTRACT, [alice.did, bob.did])
    assert tally.counts == {"release": 2}, tally
    assert set(tally.reveals) == {alice.did, bob.did}
    assert sum("not on the panel" in p for p in tally.problems) == 5
    unnamed = await alice.arbitration.tally(CONTRACT)
    assert unnamed.counts == {} and any("no panel named" in p for p in unnamed.problems)
