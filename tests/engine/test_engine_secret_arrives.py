"""The secret arrives wherever it is needed: a payee's one-shot `reveal` (no daemon, no
`committee` first) reads the deal's sealed mail before it looks for the secret."""

from __future__ import annotations

import asyncio
import json

import pytest

from tclk_tui.cli import main
from tests.engine.helpers import Pair, arbitrated_deal

PASS_VAR = "TCLK_TEST_SECRET_PASS"


def cli(pair: Pair, profile: str, *args: str) -> list[str]:
    return ["--home", str(pair.data_dir), "--profile", profile, "--venue", pair.venue.url,
            "--vault", "file", "--passphrase-env", PASS_VAR, "--json", *args]


@pytest.mark.parametrize("panel", ["arbiter", "point committee"])
async def test_a_one_shot_reveal_after_the_release_claims(pair: Pair, capsys, monkeypatch,
                                                          panel: str):
    monkeypatch.setenv(PASS_VAR, "correct horse")
    referees = ([await pair.open("carol")] if panel == "arbiter" else
                [await pair.open(name) for name in ("j1", "j2")])
    offer_id, _, deal_b = await arbitrated_deal(
        pair, referees, rail="paper", lock="hash" if panel == "arbiter" else "point")
    for referee in referees:  # the arbiter, or every juror: the last share completes it
        await referee.referee.refresh()
        request = referee.referee.request_release(offer_id)
        await referee.referee.confirm_release(request, request.confirm_code)
    code = deal_b.state.contract[2:6]
    await pair.bob.close()  # the payee's wallet is not running: one CLI call does it all
    capsys.readouterr()
    status = await asyncio.to_thread(main, cli(pair, "bob", "reveal", offer_id[:14],
                                               "--confirm", code))
    answer = json.loads(capsys.readouterr().out)
    assert status == 0, answer
    assert answer["performed"] and answer["status"] == "claimed"
    await pair.alice.sync()
    assert pair.alice.deal(offer_id).state.status == "claimed"
