"""A venue that echoes a write in its error must not put our secret into the error we raise."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError
from tclk_tui.technocore.retry import RetryPolicy

from .helpers import PAYER, Sleeps, scripted, text_reply

SECRET = "0x" + "5e" * 32
CONTRACT = "0x" + "c0" * 32


async def _echo(status: int, upper: bool = False):
    async def handler(request: Request):
        body = (await request.body()).decode()
        return text_reply(f"{status} refused: {body.upper() if upper else body}\n", status)
    return handler


@pytest.mark.parametrize(("status", "upper"), [(400, False), (413, True), (503, False)])
async def test_a_rail_write_echoed_in_an_error_body_is_redacted(status, upper):
    record = f"tclkpaper1 claimed hash {CONTRACT} 10 {SECRET}"
    async with scripted() as (venue, url):
        venue.fallback = await _echo(status, upper)
        async with VenueClient(url, PAYER, retry=RetryPolicy(sleep=Sleeps())) as client:
            with pytest.raises(VenueError) as caught:
                await client.set_note("paper-ab", "cd" * 7, record)
    error = caught.value
    for shown in (str(error), repr(error), error.detail):
        assert SECRET[2:] not in shown.lower()
    assert "<redacted>" in str(error)


async def test_a_reveal_frame_echoed_by_a_failed_post_is_redacted():
    frame = ('tclk1 {"contract":"' + CONTRACT + '","from":"' + PAYER.did + '","secret":"'
             + SECRET + '","type":"reveal"}')
    async with scripted() as (venue, url):
        venue.fallback = await _echo(400)
        async with VenueClient(url, PAYER, retry=RetryPolicy(sleep=Sleeps())) as client:
            with pytest.raises(VenueError) as caught:
                await client.post("mb-p-tclk-c0c0c0c0c0c0c0c0", frame)
    assert SECRET[2:] not in str(caught.value) and SECRET[2:] not in caught.value.detail
