"""The referee's acts behind gates, through the engine and the registry: mint, withhold (with
its code, for good), a vote's commitment and opening. Nothing is posted before the gate is
confirmed, and the confirmation re-checks what the request stated."""

from __future__ import annotations

import dataclasses

import pytest

from tclk_tui.engine.commands import CommandError, execute
from tclk_tui.engine.gates import GateRefused, WrongCode
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.technocore.identity import Identity
from tclk_tui.tui.transcript_table import record_cells
from tests.engine.helpers import Pair, arbitrated_deal, draft


async def room_texts(pair: Pair, room: str) -> list[str]:
    return [r.text for r in (await pair.alice.client.export(room)).records]


async def test_mint_states_what_it_posts_and_posts_only_when_confirmed(pair: Pair):
    carol = await pair.open("carol")
    offer_id = (await pair.alice.post_offer(draft(rails="memory", panel=carol.did))).deal_id
    desk = carol.referee
    await desk.refresh()
    before = await room_texts(pair, OFFER_ROOM)
    unconfirmed = await execute(carol, "mint", {"offer": offer_id[:14]})
    assert unconfirmed["performed"] is False
    gate = unconfirmed["gate"]
    assert gate["action"] == "arbiter-mint" and gate["allowed"]
    assert gate["confirm"] == {"param": "yes", "code_required": False,
                               "prompt": gate["confirm"]["prompt"]}
    assert any("tclk1-statement" in f["detail"] for f in gate["facts"])
    assert await room_texts(pair, OFFER_ROOM) == before  # nothing posted yet
    done = await execute(carol, "mint", {"offer": offer_id, "yes": True})
    assert done["performed"] and done["minted"]
    again = desk.request_mint(offer_id)
    assert any("already on the board" in b for b in again.blockers)
    with pytest.raises(GateRefused, match="already on the board"):
        await desk.confirm_mint(again)


async def test_a_dealer_is_told_which_jurors_must_publish_a_note_first(pair: Pair):
    """A hash-lock committee whose third juror never opened a wallet on this venue: the mint
    gate names that juror and what to run, and nothing is dealt or posted."""
    j1, j2 = await pair.open("j1"), await pair.open("j2")
    absent = Identity.generate().did
    offer_id = (await pair.alice.post_offer(draft(
        rails="memory", panel=",".join([j1.did, j2.did, absent])))).deal_id
    desk = j1.referee
    await desk.refresh()
    request = desk.request_mint(offer_id)
    assert not request.allowed
    [blocker] = request.blockers
    assert f"juror 3 {absent}" in blocker and "cases" in blocker and j2.did not in blocker
    assert "--venue " + pair.venue.url in blocker
    with pytest.raises(GateRefused, match="no DID note with a key to seal to"):
        await desk.confirm_mint(request)
    with pytest.raises(CommandError, match="no DID note with a key to seal to"):
        await execute(j1, "mint", {"offer": offer_id, "yes": True})
    assert not any(offer_id in text for text in await room_texts(pair, OFFER_ROOM)
                   if text.startswith("tclk1-statement"))
    assert desk.case(offer_id).held is False  # no share kept: nothing was dealt


async def test_withhold_needs_the_code_and_then_closes_the_door(pair: Pair):
    carol = await pair.open("carol")
    offer_id, deal_a, _ = await arbitrated_deal(pair, [carol])
    code = deal_a.state.contract[2:6]
    unconfirmed = await execute(carol, "withhold", {"offer": offer_id})
    gate = unconfirmed["gate"]
    assert unconfirmed["performed"] is False and gate["confirm"]["code_required"]
    assert any("never claim" in f["detail"] for f in gate["facts"])
    with pytest.raises(CommandError, match="the code does not match") as wrong:
        await execute(carol, "withhold", {"offer": offer_id, "confirm": "zzzz"})
    assert wrong.value.kind == "usage"
    desk = carol.referee
    with pytest.raises(WrongCode):
        desk.confirm_withhold(desk.request_withhold(offer_id), "")
    made_up = dataclasses.replace(desk.request_withhold(offer_id), token="0" * 16)
    with pytest.raises(GateRefused, match="answers no request"):  # only what it stated
        desk.confirm_withhold(made_up, code)
    assert desk.case(offer_id).decision == "pending"
    done = await execute(carol, "withhold", {"offer": offer_id, "confirm": code})
    assert done["performed"] and done["decision"] == "withheld"
    assert any("withheld" in b for b in desk.request_release(offer_id).blockers)
    assert any("already withheld" in b for b in desk.request_withhold(offer_id).blockers)


async def test_a_vote_is_committed_and_opened_only_through_its_gates(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2")]
    offer_id, deal_a, _ = await arbitrated_deal(pair, jurors, lock="point")
    room = deal_room(deal_a.state.contract)
    j1, j2 = (j.referee for j in jurors)
    for desk in (j1, j2):
        await desk.refresh()
    empty = j1.request_commit(offer_id, "")
    assert any("type a verdict" in b for b in empty.blockers)
    unconfirmed = await execute(jurors[0], "vote", {"offer": offer_id, "verdict": "release"})
    assert unconfirmed["performed"] is False
    assert unconfirmed["gate"]["action"] == "vote-post"
    assert not [t for t in await room_texts(pair, room) if t.startswith("tclk1-vote")]
    early = j1.request_open(offer_id)
    assert any("no commitment" in b for b in early.blockers)
    done = await execute(jurors[0], "vote", {"offer": offer_id, "verdict": "release",
                                             "yes": True})
    assert done["performed"] and done["jurors"][0]["committed"]
    assert any("already committed" in b for b in j1.request_commit(offer_id, "x").blockers)
    still_open = j1.request_open(offer_id)
    assert any("still open" in b for b in still_open.blockers)
    with pytest.raises(GateRefused, match="still open"):
        await j1.confirm_open(still_open)
    await j2.confirm_commit(j2.request_commit(offer_id, "release"), "release")
    await j1.refresh()
    opening = j1.request_open(offer_id)
    assert opening.allowed, opening.blockers
    assert any(f.label == "verdict" and f.detail == "release" for f in opening.facts)
    view = await j1.confirm_open(opening)
    assert view.jurors[0].opened and view.counts == {"release": 1}
    assert any("already opened" in b for b in j1.request_open(offer_id).blockers)

    # The parties' deal rooms show the votes as what they are, never as junk lines.
    await pair.sync()
    records = [r for r in pair.alice.deal(offer_id).view().records if r.room == room]
    votes = [r for r in records if r.sender in (jurors[0].did, jurors[1].did)]
    assert [r.type for r in votes] == ["vote commitment", "vote commitment", "vote opening"]
    assert all(r.ok and r.verified and r.reason is None for r in votes)
    assert "verdict 'release'" in votes[-1].summary
    cells = " ".join(cell.plain for cell in record_cells(votes[0]))
    assert cells.startswith("ok") and "vote commitment" in cells
    assert "not a tclk/1" not in " ".join(r.reason or "" for r in records)
