"""A committee's commit-reveal round in the deal room (SPEC §8.3), audited offline from the
venue's /export files, and a deal's evidence bundle audited from the file alone."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tclk_tui.engine.bundle import build_bundle
from tclk_tui.engine.commands import execute
from tclk_tui.engine.errors import EngineError
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.side_lines import encode_vote_commit, encode_vote_reveal
from tests.engine.helpers import Pair, arbitrated_deal


async def export_file(pair: Pair, room: str, directory: Path) -> Path:
    async with httpx.AsyncClient(base_url=pair.venue.url) as http:
        reply = await http.get(f"/r/{room}/export")
    path = directory / f"{room}.jsonl"
    path.write_bytes(reply.content)
    return path


async def test_a_round_with_a_mismatched_opening_audited_from_export_files(pair: Pair,
                                                                           tmp_path: Path):
    jurors = [await pair.open(name) for name in ("j1", "j2", "j3")]
    mallory = await pair.open("mallory")
    offer_id, deal_a, _ = await arbitrated_deal(pair, jurors, lock="point")
    contract = deal_a.state.contract
    j1, j2, j3 = (j.referee for j in jurors)
    for desk in (j1, j2, j3):
        await desk.refresh()
    await j1.commit(offer_id, "release")
    await j2.commit(offer_id, "release")
    with pytest.raises(EngineError, match="commit phase is still open"):
        await j1.open_vote(offer_id)  # j3 has not committed: opening now lets it copy
    with pytest.raises(EngineError, match="already committed"):
        await j1.commit(offer_id, "refund")
    # A stranger votes too: shown, never counted.
    await mallory.outbox.publish(deal_room(contract), encode_vote_commit("0x" + "ab" * 32))
    await j3.commit(offer_id, "refund")
    await j1.open_vote(offer_id)
    await j2.open_vote(offer_id)
    # j3 opens a verdict its commitment does not hold.
    salt = bytes(jurors[2].vault.backend.get("vote/" + contract)).decode().split(" ")[0]
    await jurors[2].outbox.publish(deal_room(contract), encode_vote_reveal(salt, "release"))
    view = j1.round_view(offer_id)
    await j1.refresh()
    view = j1.round_view(offer_id)
    assert view.counts == {"release": 2}
    assert [j.opened for j in view.jurors] == [True, True, False]
    assert "mismatched opening" in view.jurors[2].flags
    assert any("not on the panel" in p for p in view.problems)

    # Offline: nothing but the venue's export files.
    files = [await export_file(pair, OFFER_ROOM, tmp_path),
             await export_file(pair, deal_room(contract), tmp_path)]
    answer = await execute(None, "audit", {"files": [str(f) for f in files]})
    [audited] = [c for c in answer["contracts"] if c["contract"] == contract]
    assert audited["status"] == "locked"
    round_ = audited["round"]
    assert round_["counts"] == {"release": 2} and round_["all_committed"]
    assert round_["jurors"][2]["flags"] == ["mismatched opening"]
    assert any("does not match its commitment" in p for p in round_["problems"])
    assert any("not on the panel" in p for p in round_["problems"])


async def test_a_late_commitment_is_ignored(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2")]
    offer_id, _, _ = await arbitrated_deal(pair, jurors, lock="point")
    j1, j2 = (j.referee for j in jurors)
    await j1.refresh()
    await j1.commit(offer_id, "release")
    pair.clock.advance(3600 * 1000 + 1)  # past claimByMs, the round's default deadline
    await j2.refresh()
    await j2.commit(offer_id, "refund")
    view = j1.round_view(offer_id)
    await j1.refresh()
    view = j1.round_view(offer_id)
    assert [j.committed for j in view.jurors] == [True, False]
    assert "late commitment" in view.jurors[1].flags
    assert view.commit_closed  # the deadline passed: j1 may open now
    await j1.open_vote(offer_id)


async def test_an_evidence_bundle_audits_offline_and_a_tampered_one_does_not(pair: Pair,
                                                                            tmp_path: Path):
    carol = await pair.open("carol")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    await pair.bob.check_mail()
    reveal = deal_b.request_reveal()
    await deal_b.confirm(reveal, typed_code=reveal.confirm_code)
    await pair.sync()
    bundle = await build_bundle(pair.alice, offer_id)
    assert bundle["status"] == "claimed" and bundle["rail"]["status"] == "claimed"
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(bundle, indent=1))
    answer = await execute(None, "audit", {"files": [str(path)]})
    [audited] = answer["bundles"]
    assert answer["ok"] and audited["status"] == "claimed" and not audited["problems"]
    assert audited["proves"] and audited["does_not_prove"]
    # Claiming another outcome, or editing a signed line, is caught from the file alone.
    bundle["status"] = "refunded"
    room = deal_room(bundle["contract"])
    bundle["rooms"][room][0]["line"] = bundle["rooms"][room][0]["line"].replace('"lock"',
                                                                              '"lock" ')
    path.write_text(json.dumps(bundle))
    answer = await execute(None, "audit", {"files": [str(path)]})
    assert not answer["ok"]
    problems = answer["bundles"][0]["problems"]
    assert any("claims 'refunded'" in p for p in problems)
    assert any("signature" in p for p in problems)
