"""An audit's exit code means something: non-zero for a signed record that fails verification,
a round with a mismatched opening, an evidence bundle whose own claims differ from what its
records re-fold to; unsigned junk on a board is told apart from a signed forgery; `evidence
--out` never overwrites a file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tclk_tui.cli import main
from tclk_tui.engine.bundle import build_bundle
from tclk_tui.engine.commands import CommandError, execute
from tclk_tui.protocol.builders import make_offer
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.side_lines import encode_vote_reveal
from tclk_tui.technocore.identity import Identity
from tests.engine.helpers import Pair, arbitrated_deal, draft, reveal_as_payee


def _row(seq: int, sender: str, text: str, nonce: str | None = None,
         sig: str | None = None) -> str:
    row = {"seq": seq, "ts": "2026-03-01T12:00:00.000Z", "from": sender, "text": text}
    if nonce is not None:
        row |= {"nonce": nonce, "sig": sig}
    return json.dumps(row)


def _board_file(tmp_path: Path, *, forged: bool, junk: bool) -> Path:
    who = Identity.from_seed(b"\x07" * 32)
    offer = encode_frame(make_offer(
        from_=who.did, role="payer", amount="5", asset="FLOP", lock="hash", rails=["paper"],
        claim_by_ms=1_900_000_000_000, refund_after_ms=1_900_003_600_000,
        expires_ms=1_899_000_000_000, nonce="0011223344556677"))
    rows = [_row(1, who.did, offer, "1", who.sign(OFFER_ROOM, 1, offer))]
    if junk:  # the unsigned lane: data, never a commitment
        rows.append(_row(2, "drifter", "buy my course"))
    if forged:  # a signature over other text, presented as this DID's
        rows.append(_row(3, who.did, offer.replace('"5"', '"500"'), "2",
                         who.sign(OFFER_ROOM, 2, offer)))
    path = tmp_path / f"{OFFER_ROOM}.jsonl"
    path.write_text("\n".join(rows) + "\n")
    return path


def _exit(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_unsigned_junk_passes_and_a_signed_forgery_fails_the_audit(tmp_path: Path, capsys):
    code, answer = _exit(capsys, "audit", str(_board_file(tmp_path, forged=False, junk=True)))
    assert code == 0 and answer["ok"], answer
    assert (answer["unsigned"], answer["forged"]) == (1, 0)
    code, answer = _exit(capsys, "audit", str(_board_file(tmp_path, forged=True, junk=True)))
    assert code == 1 and not answer["ok"]
    assert (answer["unsigned"], answer["forged"]) == (1, 1)
    assert any("forged" in p and "#3" in p for p in answer["problems"]), answer["problems"]


async def test_a_round_with_a_mismatched_opening_fails_the_audit(pair: Pair, tmp_path: Path,
                                                                 capsys):
    jurors = [await pair.open(name) for name in ("j1", "j2")]
    offer_id, deal_a, _ = await arbitrated_deal(pair, jurors, lock="point")
    contract = deal_a.state.contract
    for juror in jurors:
        await juror.referee.refresh()
        await juror.referee.commit(offer_id, "release")
    salt = bytes(jurors[1].vault.backend.get("vote/" + contract)).decode().split(" ")[0]
    await jurors[1].outbox.publish(deal_room(contract), encode_vote_reveal(salt, "refund"))
    files = []
    for room in (OFFER_ROOM, deal_room(contract)):
        path = tmp_path / f"{room}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in await _export_rows(pair, room)))
        files.append(str(path))
    code, answer = await asyncio.to_thread(_exit, capsys, "audit", *files)
    assert code == 1, answer
    assert any("does not match its commitment" in p for p in answer["problems"])


async def _export_rows(pair: Pair, room: str) -> list[dict]:
    import httpx

    async with httpx.AsyncClient(base_url=pair.venue.url) as http:
        text = (await http.get(f"/r/{room}/export")).text
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def test_a_bundle_whose_claims_differ_from_its_records_fails(pair: Pair, tmp_path: Path,
                                                                   capsys):
    carol = await pair.open("carol")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    await pair.bob.check_mail()
    await reveal_as_payee(pair, deal_b)
    bundle = await build_bundle(pair.alice, offer_id)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(bundle))
    code, answer = await asyncio.to_thread(_exit, capsys, "audit", str(path))
    assert code == 0, answer
    for claim, tamper in (("deal", lambda b: b.update(deal="0x" + "ee" * 32)),
                          ("step", lambda b: b["fold"][-1].update(ok=False)),
                          ("step", lambda b: b["fold"].pop())):
        forged = json.loads(json.dumps(bundle))
        tamper(forged)
        path.write_text(json.dumps(forged))
        code, answer = await asyncio.to_thread(_exit, capsys, "audit", str(path))
        assert code == 1, (claim, answer)
        assert any(claim in p for p in answer["bundles"][0]["problems"]), answer


async def test_evidence_never_overwrites_a_file(pair: Pair, tmp_path: Path):
    offer = await pair.alice.post_offer(draft())
    target = tmp_path / "notes.txt"
    target.write_text("my notes")
    with pytest.raises(CommandError, match="exists"):
        await execute(pair.alice, "evidence", {"deal": offer.deal_id, "out": str(target)})
    assert target.read_text() == "my notes"
    done = await execute(pair.alice, "evidence", {"deal": offer.deal_id,
                                                  "out": str(tmp_path / "new.json")})
    assert Path(done["file"]).exists()
