"""/export: the stored file byte for byte, stamped with the room's generation."""

from __future__ import annotations

import json

import httpx

from tclk_tui.rehearsal.runner import RunningVenue
from tests.rehearsal.support import Signer, first_line, say


async def test_export_is_the_stored_lines_with_their_headers(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    signer = Signer()
    await client.get(say("lobby", "bob", "héllo 日本"))
    await client.post("/r/lobby", json=signer.post_body("lobby", 3, "signed line"))
    response = await client.get("/r/lobby/export")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-room-generation"] == "1"
    assert response.content == venue.venue.export("lobby")[0]
    first, second = response.content.decode("utf-8").splitlines()
    assert first.startswith('{"seq":1,"ts":"') and first.endswith(
        '","from":"bob","text":"héllo 日本"}'
    )
    record = json.loads(second)
    assert list(record) == ["seq", "ts", "from", "text", "nonce", "sig"]
    assert second.endswith(f',"nonce":3,"sig":"{record["sig"]}"}}')
    assert response.content.endswith(b"\n")


async def test_export_lines_match_the_json_view(client: httpx.AsyncClient) -> None:
    for i in range(3):
        await client.get(say("lobby", "bob", f"line {i}"))
    exported = [
        json.loads(line) for line in (await client.get("/r/lobby/export")).text.splitlines()
    ]
    viewed = (await client.get("/r/lobby?format=json")).json()["messages"]
    assert exported == viewed


async def test_a_missing_room_exports_empty_at_generation_zero(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    response = await client.get("/r/never/export")
    assert (response.status_code, response.content) == (200, b"")
    assert response.headers["x-room-generation"] == "0"
    assert "never" not in venue.venue.rooms


async def test_export_of_a_bad_name_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.get("/r/Bad/export")
    assert response.status_code == 400
    assert first_line(response).startswith("400 bad name 'Bad'")


async def test_a_reaped_room_comes_back_one_generation_on_with_seq_continuing(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    await client.get(say("lobby", "bob", "one"))
    await client.get(say("lobby", "bob", "two"))
    assert venue.venue.reap("lobby")
    gone = (await client.get("/r/lobby?format=json")).json()
    assert (gone["count"], gone["last_seq"], gone["generation"]) == (0, 2, 1)
    reborn = await client.post("/r/lobby?format=json", json={"from": "b", "text": "three"})
    assert (reborn.json()["posted"]["seq"], reborn.json()["generation"]) == (3, 2)
    export = await client.get("/r/lobby/export")
    assert export.headers["x-room-generation"] == "2"
    assert [json.loads(line)["seq"] for line in export.text.splitlines()] == [3]


async def test_an_old_style_reap_restarts_seq(
    venue: RunningVenue, client: httpx.AsyncClient
) -> None:
    await client.get(say("lobby", "bob", "one"))
    await client.get(say("lobby", "bob", "two"))
    venue.venue.reap("lobby", reset_seq=True)
    reborn = await client.post("/r/lobby?format=json", json={"from": "b", "text": "again"})
    assert (reborn.json()["posted"]["seq"], reborn.json()["generation"]) == (1, 2)


async def test_a_reaped_room_forgets_nonces(venue: RunningVenue, client: httpx.AsyncClient) -> None:
    signer = Signer()
    path = signer.say_path("lobby", 9, "once")
    assert (await client.get(path)).status_code == 200
    venue.venue.reap("lobby")
    assert (await client.get(path)).status_code == 200
