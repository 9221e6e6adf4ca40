"""An export read in the wrong room fails every signature (each is signed over its room's
name, and the room comes from the file name): the audit says so, names the room, exits 1."""

from __future__ import annotations

import json

import httpx

from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.identity import Identity
from tests.cli.helpers import run_cli


async def test_an_export_under_the_wrong_name_says_which_room_it_was_signed_in(
        venue, home, tmp_path):
    async def run(profile, *args):
        code, out, err = await run_cli(venue.url, home, profile, *args)
        assert code == 0, err
        return out

    deal = json.loads(await run("alice", "offer", "--amount", "1000", "--asset", "FLOP",
                                "--rails", "paper", "--json"))["deal"]
    contract = json.loads(await run("bob", "accept", deal[:12], "--json"))["contract"]
    await run("alice", "lock", deal[:12], "--yes")
    deal_room = "mb-p-tclk-" + contract[2:18]
    async with httpx.AsyncClient() as http:
        board = (await http.get(f"{venue.url}/r/tclk-offers/export")).content
        room = (await http.get(f"{venue.url}/r/{deal_room}/export")).content
    (tmp_path / "tclk-offers.jsonl").write_bytes(board)
    (tmp_path / "offers.jsonl").write_bytes(board)
    (tmp_path / "deal.jsonl").write_bytes(room)

    right = [str(tmp_path / "tclk-offers.jsonl"), f"{tmp_path / 'deal.jsonl'}:{deal_room}"]
    code, out, err = await run_cli(venue.url, home, "alice", "audit", *right, "--json")
    assert code == 0, err
    assert json.loads(out)["ok"] is True

    code, out, err = await run_cli(venue.url, home, "alice", "audit",
                                   str(tmp_path / "offers.jsonl"), str(tmp_path / "deal.jsonl"))
    assert code == 1, err
    problems = [line for line in out.splitlines() if line.startswith("problem: ")]
    offers, room_file = tmp_path / "offers.jsonl", tmp_path / "deal.jsonl"
    assert problems == [
        f"problem: signatures fail in {offers}: the records were signed in room tclk-offers, "
        f"not room offers (from the file name offers.jsonl); rename the file to "
        f"tclk-offers.jsonl or pass it as {offers}:tclk-offers",
        f"problem: signatures fail in {room_file}: the records were signed in room "
        f"{deal_room}, not room deal (from the file name deal.jsonl); rename the file to "
        f"{deal_room}.jsonl or pass it as {room_file}:{deal_room}"]

    code, out, err = await run_cli(venue.url, home, "alice", "audit",
                                   f"{room_file}:mb-p-tclk-0000000000000000", "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False, err
    assert report["problems"] == [
        f"signatures fail in {room_file}: the records were signed in room {deal_room}, not "
        f"room mb-p-tclk-0000000000000000 (as given); rename the file to {deal_room}.jsonl "
        f"or pass it as {room_file}:{deal_room}"]


async def test_an_export_whose_room_cannot_be_found_says_how_to_name_it(venue, home, tmp_path):
    async with VenueClient(venue.url, Identity.generate()) as client:
        await client.post("lobby", "hello from the lobby")
    async with httpx.AsyncClient() as http:
        lobby = (await http.get(f"{venue.url}/r/lobby/export")).content
    renamed = tmp_path / "hall.jsonl"
    renamed.write_bytes(lobby)
    code, out, _err = await run_cli(venue.url, home, "alice", "audit", str(renamed), "--json")
    assert code == 1
    assert json.loads(out)["problems"] == [
        f"every signature in {renamed} fails for room hall (from the file name hall.jsonl): "
        f"if it was exported from another room, pass it as {renamed}:ROOM"]
    code, out, _err = await run_cli(venue.url, home, "alice", "audit", f"{renamed}:lobby",
                                    "--json")
    assert code == 0 and json.loads(out)["unverified"] == 0
