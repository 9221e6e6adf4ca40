"""A data directory: room files in the export format, append-only, reloaded on start."""

from __future__ import annotations

import json
from pathlib import Path

from tclk_tui.rehearsal.notes import Condition
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.rehearsal.server import VenueConfig
from tests.rehearsal.support import Clock, Signer, http, say


async def test_rooms_notes_and_epochs_survive_a_restart(tmp_path: Path) -> None:
    signer = Signer()
    config = VenueConfig(fsync=False)
    async with start_venue(config, tmp_path) as first, http(first.url) as client:
        await client.get(say("lobby", "bob", "héllo"))
        await client.post("/r/mb-p-box", json=signer.post_body("mb-p-box", 5, "signed"))
        await client.get("/kv/ns/key/set/v1")
        await client.get("/kv/ns/key/set/v2")
        before = (await client.get("/r/lobby/export")).content
        first.venue.reap("mb-p-box")
    async with start_venue(config, tmp_path) as second, http(second.url) as client:
        assert (await client.get("/r/lobby/export")).content == before
        assert (await client.get("/kv/ns/key")).text.split("\n")[2] == "v2"
        reborn = await client.post(
            "/r/mb-p-box?format=json", json=signer.post_body("mb-p-box", 5, "again")
        )
        assert reborn.status_code == 200
        assert (reborn.json()["posted"]["seq"], reborn.json()["generation"]) == (2, 2)
        posted = await client.post("/r/lobby?format=json", json={"from": "b", "text": "next"})
        assert posted.json()["posted"]["seq"] == 2
        events = (await client.get("/r/events?format=json")).json()
        assert [m["text"] for m in events["messages"]] == ["created lobby"]


async def test_the_room_file_is_the_export_byte_for_byte(tmp_path: Path) -> None:
    async with (
        start_venue(VenueConfig(fsync=False), tmp_path) as running,
        http(running.url) as client,
    ):
        for text in ("one", "two 日本", "three"):
            await client.get(say("lobby", "bob", text))
        export = (await client.get("/r/lobby/export")).content
    stored = (tmp_path / "rooms" / "lobby.jsonl").read_bytes()
    assert stored == export
    assert [json.loads(line)["seq"] for line in stored.splitlines()] == [1, 2, 3]


async def test_a_replayed_nonce_is_refused_after_a_restart(tmp_path: Path) -> None:
    signer = Signer()
    path = signer.say_path("lobby", 7, "once only")
    async with (
        start_venue(VenueConfig(fsync=False), tmp_path) as running,
        http(running.url) as client,
    ):
        assert (await client.get(path)).status_code == 200
    async with (
        start_venue(VenueConfig(fsync=False), tmp_path) as running,
        http(running.url) as client,
    ):
        assert (await client.get(path)).status_code == 400


async def test_a_compacted_ring_and_its_head_reload(tmp_path: Path) -> None:
    config = VenueConfig(fsync=True, ring_bytes=2000, ring_keep_bytes=1000)
    async with start_venue(config, tmp_path) as running:
        for i in range(60):
            running.venue.write_message("lobby", f"line {i} " + "x" * 30, client="t", nick="b")
        running.venue.force_gap("lobby", 10_000)
    async with start_venue(config, tmp_path) as running:
        assert running.venue.head("lobby") == 60
        assert running.venue.view("lobby")["count"] == 0
        record = running.venue.write_message("lobby", "after", client="t", nick="b")
        assert record["seq"] == 61


async def test_idle_rooms_and_notes_are_reaped_lazily_on_writes(tmp_path: Path) -> None:
    clock = Clock()
    config = VenueConfig(fsync=False, clock=clock)
    async with start_venue(config, tmp_path) as running:
        model = running.venue
        model.write_message("quiet", "said once", client="t", nick="b")
        model.write_message("busy", "first", client="t", nick="b")
        model.write_message("busy", "second", client="t", nick="b")
        clock.advance(86_401)
        model.write_message("other", "trigger", client="t", nick="b")
        assert "quiet" not in model.rooms and "busy" in model.rooms
        clock.advance(7 * 86_400)
        model.write_note("ns", "fresh", "v", condition=Condition())
        assert "busy" not in model.rooms
        assert model.generation("busy") == 1 and model.head("busy") == 2
    async with start_venue(config, tmp_path) as running:
        assert "busy" not in running.venue.rooms
        assert running.venue.generation("busy") == 1
