"""The arbiter's desk: shares, vote commitments, and a commit-reveal round in a deal room."""

from __future__ import annotations

import pytest

from tclk_tui.engine.arbitration import ArbitrationError, commit_line, reveal_line
from tclk_tui.protocol.locks import generate_hash_lock, generate_point_lock

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


async def test_round_in_a_deal_room_counts_opened_votes_and_names_problems(pair):
    alice, bob = pair.alice, pair.bob
    v_alice = alice.arbitration.commit_vote(CONTRACT, "release")
    v_bob = bob.arbitration.commit_vote(CONTRACT, "refund")
    await alice.arbitration.post_commit(v_alice)
    await bob.arbitration.post_commit(v_bob)
    await alice.arbitration.post_reveal(v_alice)
    # Bob reveals a verdict his commitment does not hold, and then commits again late.
    await bob._post_vote_line(CONTRACT, reveal_line(v_bob.salt, "release"))
    await bob._post_vote_line(CONTRACT, commit_line("0x" + "00" * 32))
    tally = await alice.arbitration.tally(CONTRACT)
    assert tally.commits == {alice.did: v_alice.commitment, bob.did: v_bob.commitment}
    assert tally.reveals == {alice.did: "release"}
    assert tally.counts == {"release": 1}
    assert any("does not open" in p for p in tally.problems)
    assert any("after reveals began" in p for p in tally.problems)


def test_a_vote_commit_repr_hides_its_salt_and_verdict(pair):
    vote = pair.alice.arbitration.commit_vote(CONTRACT, "release")
    assert vote.salt not in repr(vote) and "release" not in repr(vote)
    assert vote.commitment in repr(vote)
