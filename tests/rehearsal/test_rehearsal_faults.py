"""Fault injection: hostile records, canned replies and stalls, as a hostile venue would."""

from __future__ import annotations

import asyncio
import json

import httpx

from tclk_tui.rehearsal.runner import RunningVenue
from tests.rehearsal.support import Signer, say, until


async def test_an_injected_record_is_served_verbatim(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    hostile = {"seq": "one", "ts": 5, "from": ["x"], "text": None, "sig": 7}
    entry = venue.venue.inject_record("lobby", hostile)
    assert entry.seq == 1
    view = (await client.get("/r/lobby?format=json")).json()
    assert view["messages"] == [hostile]
    assert (view["first_seq"], view["last_seq"]) == (1, 1)
    assert (await client.get("/r/lobby")).status_code == 200
    assert json.loads((await client.get("/r/lobby/export")).content) == hostile


async def test_a_forged_signed_record_is_stored_as_given(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    signer = Signer()
    forged = {
        "seq": 1,
        "ts": "2026-01-01T00:00:00.000000Z",
        "from": signer.did,
        "text": "i never said this",
        "nonce": 1,
        "sig": signer.message_sig("lobby", 1, "something else"),
    }
    venue.venue.inject_record("lobby", forged)
    assert (await client.get("/r/lobby?format=json")).json()["messages"] == [forged]


async def test_a_raw_line_reaches_the_export_but_not_the_views(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    await client.get(say("lobby", "bob", "honest"))
    venue.venue.inject_line("lobby", "this is { not json")
    await client.get(say("lobby", "bob", "honest again"))
    view = (await client.get("/r/lobby?format=json")).json()
    assert [m["seq"] for m in view["messages"]] == [1, 3]
    export = (await client.get("/r/lobby/export")).content.split(b"\n")
    assert export[1] == b"this is { not json"


async def test_an_injected_seq_can_jump_ahead(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    await client.get(say("lobby", "bob", "one"))
    venue.venue.inject_record(
        "lobby", {"seq": 9, "ts": "2026-01-01T00:00:00Z", "from": "x", "text": "jump"}, seq=9
    )
    posted = (await client.post("/r/lobby?format=json", json={"from": "b", "text": "n"})).json()
    assert posted["posted"]["seq"] == 10


async def test_injection_wakes_parked_readers(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    reader = asyncio.create_task(client.get("/r/lobby?since=0&wait=10&format=json"))
    await until(lambda: venue.venue.waiting("lobby") == 1)
    venue.venue.inject_record("lobby", {"seq": 1, "garbage": True})
    assert (await reader).json()["messages"] == [{"seq": 1, "garbage": True}]


async def test_a_canned_reply_is_served_then_the_venue_answers_again(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    venue.venue.faults.respond_with(503, "503 try later", path_prefix="/r/", times=2)
    first = await client.get("/r/lobby")
    other_path = await client.get("/kv/ns/key")
    second = await client.get("/r/lobby/say/bob/hi")
    third = await client.get("/r/lobby/say/bob/hi")
    assert (first.status_code, first.text) == (503, "503 try later")
    assert other_path.status_code == 404
    assert second.status_code == 503
    assert third.status_code == 200
    assert venue.venue.view("lobby")["count"] == 1


async def test_a_stalled_path_holds_requests_until_released(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    stall = venue.venue.faults.stall("/r/lobby")
    held = asyncio.create_task(client.get("/r/lobby/say/bob/held"))
    await until(lambda: stall.parked == 1)
    assert (await client.get("/r/other")).status_code == 200
    assert venue.venue.view("lobby")["count"] == 0
    stall.release()
    assert (await held).status_code == 200


async def test_a_client_timeout_against_a_stall_is_the_clients_own(
    venue: RunningVenue,
) -> None:
    venue.venue.faults.stall("/r/")
    async with httpx.AsyncClient(base_url=venue.url, timeout=0.05, verify=False) as client:
        try:
            await client.get("/r/lobby")
        except httpx.ReadTimeout:
            timed_out = True
        else:
            timed_out = False
    assert timed_out
