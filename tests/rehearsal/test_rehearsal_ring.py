"""The ring: bounded bytes, a visible gap, and the nonce window that rides on it."""

from __future__ import annotations

import httpx

from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.rehearsal.server import VenueConfig
from tests.rehearsal.support import Signer, VenueFactory, http, say


async def test_past_the_ring_a_room_keeps_its_newest_bytes(venue_factory: VenueFactory) -> None:
    running = await venue_factory(VenueConfig(ring_bytes=4000, ring_keep_bytes=2000))
    for i in range(1, 101):
        running.venue.write_message("lobby", f"message {i:03d} " + "x" * 40, client="t", nick="b")
    room = running.venue.rooms["lobby"]
    assert room.size <= 4000
    async with http(running.url) as client:
        view = (await client.get("/r/lobby?format=json&since=0&limit=200")).json()
        export = (await client.get("/r/lobby/export")).content
    assert view["last_seq"] == 100
    assert view["first_seq"] > 1
    assert view["first_seq"] == room.entries[0].seq
    assert len(export) == room.size


async def test_a_forced_gap_shows_as_first_seq_past_the_cursor(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    for i in range(10):
        await client.get(say("lobby", "bob", f"m{i}"))
    assert venue.venue.force_gap("lobby", 6) == 6
    view = (await client.get("/r/lobby?format=json&since=2")).json()
    assert (view["first_seq"], view["last_seq"], view["count"]) == (7, 10, 4)


async def test_seq_never_rewinds_when_the_ring_is_emptied(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    await client.get(say("lobby", "bob", "a"))
    await client.get(say("lobby", "bob", "b"))
    venue.venue.force_gap("lobby", 99)
    posted = (await client.post("/r/lobby?format=json", json={"from": "b", "text": "c"})).json()
    assert posted["posted"]["seq"] == 3


async def test_a_captured_url_replays_once_buried_past_the_window(
    venue_factory: VenueFactory,
) -> None:
    running = await venue_factory(VenueConfig(nonce_window_bytes=2000))
    signer = Signer()
    path = signer.say_path("lobby", 1, "captured")
    async with http(running.url) as client:
        assert (await client.get(path)).status_code == 200
        assert (await client.get(path)).status_code == 400
        for i in range(30):
            running.venue.write_message(
                "lobby", f"burying traffic {i} " + "z" * 60, client="t", nick="b"
            )
        replay = await client.get(path)
    assert replay.status_code == 200


async def test_with_no_window_the_whole_ring_is_searched(venue_factory: VenueFactory) -> None:
    running = await venue_factory(VenueConfig(nonce_window_bytes=None))
    signer = Signer()
    path = signer.say_path("lobby", 1, "captured")
    async with http(running.url) as client:
        assert (await client.get(path)).status_code == 200
        for i in range(30):
            running.venue.write_message(
                "lobby", f"burying traffic {i} " + "z" * 60, client="t", nick="b"
            )
        assert (await client.get(path)).status_code == 400


async def test_a_ring_drop_forgets_the_nonce(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    signer = Signer()
    path = signer.say_path("lobby", 1, "captured")
    assert (await client.get(path)).status_code == 200
    await client.get(say("lobby", "bob", "later"))
    venue.venue.force_gap("lobby", 1)
    assert (await client.get(path)).status_code == 200
