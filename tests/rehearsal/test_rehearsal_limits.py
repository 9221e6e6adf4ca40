"""Budgets and transport limits: 429, 413, 408, 431, 405, and malformed bodies."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tclk_tui.rehearsal.server import VenueConfig
from tests.rehearsal.support import Clock, VenueFactory, first_line, http, lines, say


async def _limited(
    venue_factory: VenueFactory, **options: object
) -> tuple[httpx.AsyncClient, Clock]:
    clock = Clock()
    config = VenueConfig(clock=clock, rate_limits=True, **options)  # type: ignore[arg-type]
    running = await venue_factory(config)
    return http(running.url), clock


async def test_rate_limits_are_off_by_default(client: httpx.AsyncClient) -> None:
    for i in range(40):
        assert (await client.get(say("lobby", "bob", f"message {i}"))).status_code == 200


async def test_a_spent_read_budget_is_a_429_stating_the_wait(venue_factory: VenueFactory) -> None:
    client, clock = await _limited(venue_factory, rate_read=4)
    async with client:
        for _ in range(4):
            assert (await client.get("/r/lobby")).status_code == 200
        refused = await client.get("/r/lobby?format=json")
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "15"
        assert refused.headers["content-type"] == "text/plain; charset=utf-8"
        assert lines(refused)[:2] == [
            "429 rate limited: the read budget for your IP (4/min) is spent.",
            "retry after: 15s — the bucket refills continuously (0.1 tokens/s), so waiting "
            "longer buys a bigger burst, up to 4.",
        ]
        assert (await client.get("/r/lobby/say/bob/still%20writable")).status_code == 200
        assert (await client.get("/config")).status_code == 200
        clock.advance(15)
        assert (await client.get("/r/lobby")).status_code == 200


async def test_a_spent_write_budget_is_a_429(venue_factory: VenueFactory) -> None:
    client, _ = await _limited(venue_factory, rate_write=2)
    async with client:
        await client.get(say("lobby", "bob", "one"))
        await client.get(say("lobby", "bob", "two"))
        refused = await client.post("/kv/ns/key", json={"value": "v"})
    assert refused.status_code == 429
    assert first_line(refused) == "429 rate limited: the write budget for your IP (2/min) is spent."
    assert lines(refused)[1].startswith("retry after: 30s — ")


async def test_text_replies_carry_the_budget_footer_below_a_quarter(
    venue_factory: VenueFactory,
) -> None:
    client, _ = await _limited(venue_factory, rate_read=8)
    async with client:
        replies = [await client.get("/r/lobby") for _ in range(7)]
        json_reply = await client.get("/r/lobby?format=json")
    assert "# budget:" not in replies[4].text
    assert lines(replies[5])[-2] == (
        "# budget: 2 of 8 reads left this minute (refills 0.1 tokens/s; a 429 states the wait, "
        "and the full limits are in /.well-known/agent.json)"
    )
    assert "budget" not in json_reply.text


async def test_creating_rooms_spends_a_daily_budget(venue_factory: VenueFactory) -> None:
    client, _ = await _limited(venue_factory, rate_rooms_per_day=2)
    async with client:
        await client.get(say("one", "bob", "hi"))
        await client.get(say("two", "bob", "hi"))
        refused = await client.get(say("three", "bob", "hi"))
        existing = await client.get(say("one", "bob", "still fine"))
    assert refused.status_code == 429
    assert first_line(refused) == (
        "429 room-creation budget spent: /r/three does not exist yet, and this IP has created "
        "its 2 rooms for the day."
    )
    assert refused.headers["retry-after"] == "43200"
    assert existing.status_code == 200


async def test_a_refused_creation_gives_its_token_back(venue_factory: VenueFactory) -> None:
    client, _ = await _limited(venue_factory, rate_rooms_per_day=1)
    async with client:
        assert (await client.get(say("one", "Bad", "x"))).status_code == 400
        assert (await client.get(say("one", "bob", "x"))).status_code == 200


async def test_a_body_over_the_cap_is_a_413(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/r/lobby", content=b"x" * 262145, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert first_line(response).startswith("413 body too large: the cap is 262144 bytes")
    assert lines(response)[-2] == "your Content-Length said 262145 bytes."


async def test_a_streamed_body_over_the_cap_is_a_413(client: httpx.AsyncClient) -> None:
    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(5):
            yield b"y" * 60000

    response = await client.post("/kv/ns/key", content=chunks())
    assert response.status_code == 413
    assert lines(response)[-2] == "the stream passed it before it ended."


async def test_a_slow_body_is_a_408_that_closes(venue_factory: VenueFactory) -> None:
    running = await venue_factory(VenueConfig(body_deadline_seconds=0.05))
    reader, writer = await asyncio.open_connection("127.0.0.1", running.port)
    try:
        writer.write(
            b"POST /r/lobby HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 40\r\n\r\n{"from":"bob",'
        )
        await writer.drain()
        reply = await asyncio.wait_for(reader.read(), 5)  # until the server closes
    finally:
        writer.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert b"\r\nconnection: close" in head.lower()
    assert body.startswith(b"408 body upload exceeded 0.05s")
    assert running.venue.view("lobby")["count"] == 0


@pytest.mark.parametrize(
    ("content", "head"),
    [
        (b"{not json", "400 body must be JSON, and this did not parse: "),
        (b'{"text": NaN, "from": "b"}', "400 body must be JSON, and this did not parse: "),
        (b"[1, 2]", "400 body must be a JSON object, not a list — "),
        (b'"text"', "400 body must be a JSON object, not a str — "),
    ],
)
async def test_a_body_that_is_not_a_json_object_is_a_400(
    client: httpx.AsyncClient, content: bytes, head: str
) -> None:
    response = await client.post("/r/lobby", content=content)
    assert response.status_code == 400
    assert first_line(response).startswith(head)


@pytest.mark.parametrize(
    ("body", "head"),
    [
        ({"text": "hi"}, "400 bad from: required"),
        (
            {"from": "Bob", "text": "hi"},
            "400 bad from: 'Bob' must match /^[a-z0-9][a-z0-9_-]{0,47}$/",
        ),
        ({"from": "bob"}, "400 bad text: required"),
        ({"from": 0, "text": "hi"}, "400 bad from: must be a string"),
    ],
)
async def test_unsigned_post_fields_are_refused_by_name(
    client: httpx.AsyncClient, body: dict[str, object], head: str
) -> None:
    response = await client.post("/r/lobby", json=body)
    assert response.status_code == 400
    assert first_line(response) == head


async def test_too_many_headers_is_a_431(client: httpx.AsyncClient) -> None:
    headers = {f"x-extra-{i}": "v" for i in range(50)}
    response = await client.get("/r/lobby", headers=headers)
    assert response.status_code == 431
    assert first_line(response).startswith("431 header block too large: ")
    assert "(max 48 / 8192)" in first_line(response)


async def test_an_oversized_header_block_is_a_431(client: httpx.AsyncClient) -> None:
    response = await client.get("/r/lobby", headers={"x-big": "v" * 9000})
    assert response.status_code == 431


async def test_head_on_a_write_url_writes_nothing(client: httpx.AsyncClient) -> None:
    for path in ("/r/lobby/say/bob/via-head", "/kv/ns/key/set/via-head"):
        response = await client.head(path)
        assert response.status_code == 405
        assert response.headers["allow"] == "GET"
    assert (await client.get("/r/lobby?format=json")).json()["count"] == 0
    assert (await client.get("/kv/ns/key")).status_code == 404


async def test_other_methods_get_a_405_with_allow(client: httpx.AsyncClient) -> None:
    response = await client.put("/r/lobby")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, POST"
    assert first_line(response) == (
        "405 PUT is not accepted here. This service answers GET everywhere and POST on "
        "/r/<room> and /kv/<ns>/<key> — nothing else."
    )
    assert (await client.delete("/kv/ns/key")).headers["allow"] == "GET, HEAD, POST"
