"""The venue client's log tells the story of its retries and waits: each retry of a failed
request, each 429 waited out or given up on, each pause of a follower, from the layer that
decided it; and none of those lines carries what we sent (a reveal's secret) or the venue's
text, which may echo it."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import RateLimited, ServerError
from tclk_tui.technocore.follow import Backoff, WaitNotHeld
from tclk_tui.technocore.retry import RetryPolicy

from .helpers import PAYER, Sleeps

SECRET = "0x" + "5e" * 32
REVEAL = ('tclk1 {"contract":"0x' + "ab" * 32 + '","from":"' + PAYER.did
          + f'","secret":"{SECRET}","type":"reveal"}}')


@pytest.fixture
def story(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="tclk_tui")
    return caplog


def lines(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == name]


def assert_no_secret(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        text = record.getMessage() + repr(record.args)
        assert SECRET[2:] not in text, text


async def test_each_retry_of_a_failed_write_is_logged_without_what_was_sent(venue, story):
    # The edge echoes the request in its error page, secret and all.
    venue.venue.faults.respond_with(503, f"503 upstream busy: {REVEAL}\n", path_prefix="/r/",
                                    times=2)
    async with VenueClient(venue.url, PAYER, retry=RetryPolicy(sleep=Sleeps())) as client:
        await client.post("mb-p-tclk-abababababababab", REVEAL)
    said = lines(story, "tclk_tui.technocore.client")
    assert len(said) == 2, said
    assert said[0].startswith("post /r/mb-p-tclk-abababababababab: ServerError 503, attempt 1 "
                              "of 4: trying again in ")
    assert "attempt 2 of 4" in said[1]
    assert_no_secret(story)


async def test_a_request_that_keeps_failing_says_it_gave_up(venue, story):
    venue.venue.faults.respond_with(503, f"503 {SECRET}\n", path_prefix="/r/", times=3)
    policy = RetryPolicy(attempts=3, sleep=Sleeps())
    async with VenueClient(venue.url, PAYER, retry=policy) as client:
        with pytest.raises(ServerError):
            await client.post("lobby", REVEAL)
    said = lines(story, "tclk_tui.technocore.client")
    assert said[-1] == "post /r/lobby: ServerError 503, attempt 3 of 3: giving up"
    assert [r.levelname for r in story.records][-1] == "WARNING"
    assert_no_secret(story)


async def test_a_429_waited_out_and_one_given_up_on_are_logged_with_the_budget(venue, story):
    config = venue.venue.config
    clock = [1_750_000_000.0]
    config.clock = lambda: clock[0]
    config.rate_limits = True
    config.rate_write = 2

    async def advance(seconds: float) -> None:
        clock[0] += seconds

    async with VenueClient(venue.url, PAYER, retry=RetryPolicy(sleep=advance)) as client:
        for index in range(3):
            await client.post("lobby", f"tclk1 write number {index} {SECRET}")
    [waited] = lines(story, "tclk_tui.technocore.client")
    assert waited.startswith("post /r/lobby: rate limited (write budget): waiting ")
    assert "(429 1 of at most 8, 0.0 s of 60 s waited so far)" in waited

    story.clear()
    config.rate_read = 1
    async with VenueClient(venue.url, retry=RetryPolicy(rate_limit_budget_s=1.0,
                                                        sleep=Sleeps())) as client:
        await client.read("lobby")
        with pytest.raises(RateLimited):
            await client.read("lobby")
    [gave_up] = lines(story, "tclk_tui.technocore.client")
    assert "rate limited (read budget): a further" in gave_up and gave_up.endswith(
        "giving up")
    assert_no_secret(story)


async def test_a_follower_logs_its_pauses_and_its_caller_none_twice(venue, story):
    venue.venue.faults.respond_with(503, f"503 {SECRET}\n", path_prefix="/r/lobby", times=1)
    async with VenueClient(venue.url, retry=RetryPolicy(sleep=Sleeps())) as client:
        follower = client.follow("lobby", since=0, wait_s=0.05)
        events = []

        async def run() -> None:
            async for event in follower:
                events.append(event)
                if isinstance(event, Backoff):
                    return

        async with asyncio.timeout(10):
            await run()
    assert any(isinstance(e, Backoff) for e in events)
    said = lines(story, "tclk_tui.technocore.follow")
    assert said == ["follow lobby: ServerError 503; reading again in "
                    f"{events[-1].delay_s:.2f} s (failure 1 in a row)"]
    # The follower reads with one attempt and decides the retry itself: the client that made
    # the request says nothing of giving up.
    assert lines(story, "tclk_tui.technocore.client") == []
    assert_no_secret(story)


async def test_a_long_poll_the_venue_did_not_hold_is_logged(venue, story):
    venue.venue.config.max_waiters_per_ip = 0
    async with VenueClient(venue.url, retry=RetryPolicy(sleep=Sleeps())) as client:
        follower = client.follow("lobby", since=0, wait_s=1.0)
        async with asyncio.timeout(10):
            async for event in follower:
                if isinstance(event, WaitNotHeld):
                    break
    said = lines(story, "tclk_tui.technocore.follow")
    assert "follow lobby: the venue held no long-poll (no free waiter slot): reading again in " \
           "1 s" in said
