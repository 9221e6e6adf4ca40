"""The arbiter's and juror's maths as registry commands: a split, a combine and a vote's
commitment state what they would show (a combine, whether it opens the statement) and show it
only once confirmed; verify-vote answers whether a reveal opens its commitment."""

from __future__ import annotations

import json

import pytest

from tclk_tui.engine.commands import CommandError, execute
from tclk_tui.protocol.locks import hash_lock_from_preimage
from tests.engine.helpers import open_wallet

SECRET = "0x" + "5e" * 32
CONTRACT = "0x" + "c0" * 32


@pytest.fixture
async def wallet(venue, tmp_path, clock):
    opened = await open_wallet(venue.url, tmp_path, "dana", clock=clock)
    yield opened
    await opened.close()


async def test_a_split_and_its_combine_show_only_once_confirmed(wallet):
    asked = await execute(wallet, "split", {"secret": SECRET, "parts": 3})
    assert asked["performed"] is False and asked["gate"]["action"] == "arbiter-split"
    assert asked["gate"]["confirm"]["param"] == "yes"
    shares = (await execute(wallet, "split", {"secret": SECRET, "parts": 3,
                                              "yes": True}))["shares"]
    assert len(shares) == 3 and SECRET not in shares
    statement = hash_lock_from_preimage(SECRET).hash
    asked = await execute(wallet, "combine", {"shares": shares, "statement": statement})
    facts = {f["label"]: f for f in asked["gate"]["facts"]}
    assert facts["statement"]["ok"] is True and "opens" in facts["statement"]["detail"]
    wrong = await execute(wallet, "combine", {"shares": shares[:2], "statement": statement})
    assert "does NOT open" in {f["label"]: f for f in wrong["gate"]["facts"]}[
        "statement"]["detail"]
    text = json.dumps([asked, wrong])
    assert SECRET not in text and not any(s in text for s in shares)
    combined = await execute(wallet, "combine", {"shares": shares, "statement": statement,
                                                 "yes": True})
    assert combined == {"kind": "preimage", "value": SECRET, "opens": True, "performed": True}


async def test_a_vote_commitment_shows_its_salt_once_confirmed_and_verifies(wallet):
    asked = await execute(wallet, "commit-vote", {"contract": CONTRACT, "verdict": "release"})
    assert asked["performed"] is False and asked["gate"]["contract"] == CONTRACT
    assert "salt" not in json.dumps({k: v for k, v in asked.items() if k != "gate"})
    vote = await execute(wallet, "commit-vote", {"contract": CONTRACT, "verdict": "release",
                                                 "yes": True})
    assert vote["commit_line"].endswith(vote["commitment"]) and vote["salt"].startswith("0x")
    params = {"commitment": vote["commitment"], "contract": CONTRACT, "verdict": "release",
              "salt": vote["salt"]}
    assert await execute(wallet, "verify-vote", params) == {"opens": True}
    assert await execute(wallet, "verify-vote", {**params, "verdict": "refund"}) == {
        "opens": False}


@pytest.mark.parametrize("name, params", [
    ("split", {"secret": "0x12", "parts": 3}),
    ("split", {"secret": SECRET, "parts": 1}),
    ("combine", {"shares": ["0xnot-a-share"]}),
    ("commit-vote", {"contract": CONTRACT, "verdict": " release"}),
])
async def test_what_the_maths_refuses_is_a_refusal_with_its_reason(wallet, name, params):
    with pytest.raises(CommandError) as caught:
        await execute(wallet, name, {**params, "yes": True})
    assert caught.value.kind == "refused" and caught.value.message
