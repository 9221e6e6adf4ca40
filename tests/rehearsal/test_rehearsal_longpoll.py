"""Long-poll: a parked read is woken by the append itself, and the slots are bounded."""

from __future__ import annotations

import asyncio

import httpx

from tclk_tui.rehearsal.runner import RunningVenue, start_venue
from tclk_tui.rehearsal.server import VenueConfig
from tests.rehearsal.support import Signer, VenueFactory, http, lines, until


async def test_a_parked_reader_is_woken_by_the_append(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    venue.venue.write_message("lobby", "before", client="t", nick="bob")
    reader = asyncio.create_task(client.get("/r/lobby?since=1&wait=10&format=json"))
    await until(lambda: venue.venue.waiting("lobby") == 1)
    posted = await client.post("/r/lobby", json={"from": "al", "text": "after"})
    assert posted.status_code == 200
    view = (await reader).json()
    assert [m["text"] for m in view["messages"]] == ["after"]
    assert "wait_held" not in view
    assert venue.venue.waiting("lobby") == 0


async def test_a_signed_append_wakes_a_mailbox_reader(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    room = "mb-p-box"
    reader = asyncio.create_task(client.get(f"/r/{room}?since=0&wait=10&format=json"))
    await until(lambda: venue.venue.waiting(room) == 1)
    signer = Signer()
    await client.post(f"/r/{room}", json=signer.post_body(room, 1, "knock"))
    view = (await reader).json()
    assert view["messages"][0]["from"] == signer.did
    assert view["generation"] == 1


async def test_one_append_wakes_every_parked_reader(venue_factory: VenueFactory) -> None:
    running = await venue_factory(VenueConfig(client_ip_header="X-Venue-Client"))
    async with http(running.url, timeout=20) as client:
        readers = [
            asyncio.create_task(
                client.get(
                    "/r/lobby?since=0&wait=10&format=json", headers={"X-Venue-Client": f"c{i}"}
                )
            )
            for i in range(6)
        ]
        await until(lambda: running.venue.waiting("lobby") == 6)
        await client.get("/r/lobby/say/bob/wake")
        views = [(await reader).json() for reader in readers]
    assert all(view["count"] == 1 for view in views)


async def test_news_already_there_is_returned_at_once(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    venue.venue.write_message("lobby", "waiting for you", client="t", nick="bob")
    view = (await client.get("/r/lobby?since=0&wait=10&format=json")).json()
    assert view["count"] == 1
    assert "wait_held" not in view


async def test_a_quiet_room_returns_empty_with_wait_held(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    venue.venue.write_message("lobby", "old", client="t", nick="bob")
    view = (await client.get("/r/lobby?since=1&wait=0.05&format=json")).json()
    assert (view["count"], view["last_seq"], view["wait_held"]) == (0, 1, True)
    assert list(view)[-1] == "wait_held"


async def test_wait_without_since_is_an_ordinary_read(client: httpx.AsyncClient) -> None:
    view = (await client.get("/r/lobby?wait=10&format=json")).json()
    assert view["count"] == 0
    assert "wait_held" not in view


async def test_wait_is_clamped_to_the_ceiling(venue_factory: VenueFactory) -> None:
    running = await venue_factory(VenueConfig(max_wait=0.05))
    async with http(running.url, timeout=5) as client:
        view = (await client.get("/r/lobby?since=0&wait=60&format=json")).json()
    assert view["wait_held"] is True


async def test_junk_wait_values_mean_no_wait(client: httpx.AsyncClient) -> None:
    for value in ("nan", "-5", "abc", "0"):
        view = (await client.get(f"/r/lobby?since=0&wait={value}&format=json")).json()
        assert "wait_held" not in view


async def test_past_the_per_client_cap_the_reply_is_immediate_and_says_so(
    venue_factory: VenueFactory,
) -> None:
    running = await venue_factory(VenueConfig(max_waiters_per_ip=1))
    async with http(running.url, timeout=20) as client:
        parked = asyncio.create_task(client.get("/r/lobby?since=0&wait=10&format=json"))
        await until(lambda: running.venue.waiting("lobby") == 1)
        refused = (await client.get("/r/lobby?since=0&wait=3&format=json")).json()
        text = await client.get("/r/lobby?since=0&wait=3")
        await client.get("/r/lobby/say/bob/release")
        await parked
    assert refused["wait_held"] is False
    assert lines(text)[-2] == (
        "# wait: not held — you hold all 1 slots one caller may have, so this reply is "
        "immediate rather than after 3s. Sleep about that long before retrying; without this "
        "line the wait really was held."
    )


async def test_past_the_total_cap_the_footer_names_the_instance(
    venue_factory: VenueFactory,
) -> None:
    config = VenueConfig(max_waiters_total=1, client_ip_header="X-Venue-Client")
    running = await venue_factory(config)
    async with http(running.url, timeout=20) as client:
        parked = asyncio.create_task(
            client.get("/r/lobby?since=0&wait=10", headers={"X-Venue-Client": "a"})
        )
        await until(lambda: running.venue.waiting("lobby") == 1)
        text = await client.get("/r/lobby?since=0&wait=2", headers={"X-Venue-Client": "b"})
        await client.get("/r/lobby/say/bob/release")
        await parked
    assert lines(text)[-2].startswith(
        "# wait: not held — all 1 on this instance are busy, so this reply is immediate "
        "rather than after 2s."
    )


async def test_a_reader_that_hangs_up_gives_its_slot_back(venue: RunningVenue) -> None:
    async with http(venue.url, timeout=20) as client:
        parked = asyncio.create_task(client.get("/r/lobby?since=0&wait=10"))
        await until(lambda: venue.venue.slots.total == 1)
        parked.cancel()
    await until(lambda: venue.venue.slots.total == 0 and venue.venue.waiting("lobby") == 0)


async def test_stopping_the_venue_answers_parked_readers() -> None:
    async with http("", timeout=20) as client:
        async with start_venue() as running:
            parked = asyncio.create_task(
                client.get(f"{running.url}/r/lobby?since=0&wait=10&format=json")
            )
            await until(lambda: running.venue.waiting("lobby") == 1)
        view = (await parked).json()
    assert view["count"] == 0
