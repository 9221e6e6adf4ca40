"""Every venue request ends: a wall-clock deadline per request, and bounded 429 retries.

The trickling server is a real TCP server on loopback that sends one byte every 0.3 s, so no
single socket read ever reaches the client's 0.5 s timeout; only a deadline on the whole request
ends it. The 429 scripts use an injected sleep, so they never wait on the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import RateLimited, VenueUnavailable
from tclk_tui.technocore.retry import RetryPolicy

from .helpers import Sleeps, json_reply, scripted, text_reply, view

TRICKLE_BYTES = 200  # 60 s of trickle at 0.3 s a byte
ZERO_WAIT_429 = "429 rate limited: the read budget for your IP (120/min) is spent.\n" \
                "retry after: 0s\n"


class Trickle:
    """Answers every request with headers promising a body, then one byte per 0.3 s."""

    def __init__(self) -> None:
        self.sent: list[int] = []  # bytes sent on each connection when it ended
        self.ended = asyncio.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sent = 0
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % TRICKLE_BYTES)
            await writer.drain()
            while sent < TRICKLE_BYTES and not reader.at_eof():
                writer.write(b" ")
                await writer.drain()
                sent += 1
                await asyncio.sleep(0.3)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.sent.append(sent)
            self.ended.set()
            writer.close()


@contextlib.asynccontextmanager
async def trickling() -> AsyncIterator[tuple[Trickle, str]]:
    trickle = Trickle()
    server = await asyncio.start_server(trickle.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield trickle, f"http://127.0.0.1:{port}"
    finally:
        server.close()


async def test_a_trickling_server_cannot_hold_a_read_past_the_deadline():
    async with trickling() as (trickle, url):
        client = VenueClient(url, retry=RetryPolicy(attempts=1), timeout_s=0.5)
        try:
            async with asyncio.timeout(30):  # a guard for the test, not the behaviour
                with pytest.raises(VenueUnavailable, match=r"no answer within 0\.5s"):
                    await client.read("tclk-offers")
                await trickle.ended.wait()
        finally:
            await client.aclose()
    # The client hung up after about two bytes; without a deadline it would take all 200.
    assert trickle.sent and trickle.sent[0] < TRICKLE_BYTES // 4


async def test_a_zero_wait_429_cannot_make_the_client_retry_without_bound():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        async def always_429(_request):
            return text_reply(ZERO_WAIT_429, 429)
        venue.fallback = always_429
        policy = RetryPolicy(sleep=sleeps, rate_limit_budget_s=1000, rate_limit_retries=5)
        async with VenueClient(url, retry=policy) as client:
            async with asyncio.timeout(30):
                with pytest.raises(RateLimited):
                    await client.read("tclk-offers")
    assert len(venue.seen) == 6  # the first try and five counted retries
    assert sleeps.calls == [policy.rate_limit_floor_s] * 5


async def test_the_429_wait_floor_counts_against_the_budget():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        async def always_429(_request):
            return text_reply(ZERO_WAIT_429, 429)
        venue.fallback = always_429
        policy = RetryPolicy(sleep=sleeps, rate_limit_budget_s=2.0, rate_limit_floor_s=0.5,
                             rate_limit_retries=100)
        async with VenueClient(url, retry=policy) as client:
            async with asyncio.timeout(30):
                with pytest.raises(RateLimited):
                    await client.read("tclk-offers")
    assert sleeps.calls == [0.5, 0.5, 0.5, 0.5]


async def test_a_429_then_an_answer_still_succeeds_after_the_floor():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.add(text_reply(ZERO_WAIT_429, 429), json_reply(view("tclk-offers", [])))
        async with VenueClient(url, retry=RetryPolicy(sleep=sleeps)) as client:
            await client.read("tclk-offers")
    assert sleeps.calls == [RetryPolicy().rate_limit_floor_s]


@pytest.mark.parametrize("asked", [float("nan"), -5.0, 0.0, 1e-9])
def test_a_nonsense_wait_costs_at_least_the_floor(asked):
    assert RetryPolicy().rate_limit_wait(asked) == RetryPolicy().rate_limit_floor_s
