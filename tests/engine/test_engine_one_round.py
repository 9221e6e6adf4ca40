"""One reading of a vote round: `tally`, `round`, the offline audit, the evidence bundle and the
console count the same votes under the same deadline rule; a second opening is refused; `cases`
reports the lock as the rail has it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tclk_tui.engine.bundle import build_bundle
from tclk_tui.engine.commands import execute
from tclk_tui.engine.errors import EngineError
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.tui.arb_cases import round_text
from tests.engine.helpers import Pair, arbitrated_deal, reveal_as_payee


async def export_file(pair: Pair, room: str, directory: Path) -> Path:
    async with httpx.AsyncClient(base_url=pair.venue.url) as http:
        reply = await http.get(f"/r/{room}/export")
    path = directory / f"{room}.jsonl"
    path.write_bytes(reply.content)
    return path


async def test_every_reader_counts_the_same_votes_under_the_deadline_rule(pair: Pair,
                                                                          tmp_path: Path):
    jurors = [await pair.open(name) for name in ("j1", "j2")]
    offer_id, deal_a, _ = await arbitrated_deal(pair, jurors, lock="point")
    contract = deal_a.state.contract
    j1, j2 = (j.referee for j in jurors)
    await j1.refresh()
    await j1.commit(offer_id, "release")
    pair.clock.advance(3600 * 1000 + 1)  # past claimByMs, the round's deadline
    await j2.refresh()
    await j2.commit(offer_id, "refund")  # late: before any opening, but after the deadline
    await j1.open_vote(offer_id)
    await j2.open_vote(offer_id)  # opens its late commitment: still not counted
    expected = {"release": 1}

    round_ = await execute(jurors[0], "round", {"offer": offer_id[:14]})
    assert round_["counts"] == expected
    tally = await execute(jurors[0], "tally", {"contract": contract,
                                                "jurors": [j.did for j in jurors]})
    assert tally["counts"] == expected, tally
    assert tally["reveals"] == {jurors[0].did: "release"}
    assert any("after the round closed" in p for p in tally["problems"])
    # The jurors can be left out: the offer names its panel.
    assert (await execute(pair.alice, "tally", {"contract": contract}))["counts"] == expected
    # The console shows the same count.
    assert "release: 1" in round_text(j1.round_view(offer_id)).plain
    # Offline, from the venue's export files and from an evidence bundle.
    files = [await export_file(pair, OFFER_ROOM, tmp_path),
             await export_file(pair, deal_room(contract), tmp_path)]
    audit = await execute(None, "audit", {"files": [str(f) for f in files]})
    [audited] = [c for c in audit["contracts"] if c["contract"] == contract]
    assert audited["round"]["counts"] == expected
    await pair.alice.sync()
    bundle = await build_bundle(pair.alice, offer_id)
    assert bundle["round"]["counts"] == expected


async def test_a_tally_of_a_contract_whose_offer_is_unknown_counts_nothing(pair: Pair):
    answer = await execute(pair.alice, "tally", {"contract": "0x" + "ab" * 32,
                                                 "jurors": [pair.bob.did]})
    assert answer["counts"] == {}
    assert any("deadline" in p for p in answer["problems"])


async def test_a_second_vote_open_is_refused(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2")]
    offer_id, deal_a, _ = await arbitrated_deal(pair, jurors, lock="point")
    for juror in jurors:
        await juror.referee.refresh()
        await juror.referee.commit(offer_id, "release")
    await jurors[0].referee.open_vote(offer_id)
    with pytest.raises(EngineError, match="already opened"):
        await jurors[0].referee.open_vote(offer_id)
    with pytest.raises(Exception, match="already opened"):
        await execute(jurors[0], "vote", {"offer": offer_id[:14], "open": True, "yes": True})
    room = (await pair.alice.client.export(deal_room(deal_a.state.contract))).records
    assert sum(r.text.startswith("tclk1-vote reveal") for r in room) == 1


async def test_cases_report_the_lock_as_the_rail_has_it(pair: Pair):
    carol = await pair.open("carol")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    [case] = (await execute(carol, "cases"))["cases"]
    assert case["status"] == "locked" and case["lock_verified"] is True
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    await pair.bob.check_mail()
    await reveal_as_payee(pair, deal_b)
    [case] = (await execute(carol, "cases"))["cases"]
    assert case["status"] == "claimed"
    assert "claimed" in case["lock_detail"], case["lock_detail"]
    assert case["lock_verified"] is not None
