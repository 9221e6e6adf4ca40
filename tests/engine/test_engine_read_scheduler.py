"""The read scheduler over a real venue: a stranger flooding a followed room cannot spend the
wallet's reads, and the other rooms are still read."""

from __future__ import annotations

import asyncio
import time

from tclk_tui.engine.sync.read_scheduler import ROOM_BURST, ROOM_SHARE, ReadScheduler, Want
from tclk_tui.technocore.budget import VenueBudget
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.follow import RecordsEvent
from tclk_tui.technocore.identity import Identity
from tests.engine.helpers import until


async def test_a_stranger_flooding_a_followed_room_gets_no_more_than_its_share(venue):
    budget = VenueBudget(share=1)
    reads = {"mb-p-flooded": 0, "mb-p-quiet": 0}
    seen: list[str] = []
    errors: list[Exception] = []
    closed = False
    async with VenueClient(venue.url, Identity.generate(), budget=budget) as client, \
            VenueClient(venue.url, Identity.generate()) as stranger:
        scheduler = ReadScheduler(client, closed=lambda: closed,
                                  on_error=lambda room, exc: errors.append(exc))

        def handler(room: str):
            async def handle(events: list) -> None:
                reads[room] += 1
                seen.extend(r.text for e in events if isinstance(e, RecordsEvent)
                            for r in e.records)
            return handle

        for room in reads:
            await stranger.post(room, f"{room} exists")
            scheduler.add(room, handler=handler(room), want=lambda quiet_s: Want.HOT, since=1)
        task = asyncio.create_task(scheduler.run())
        try:
            start = time.monotonic()
            for n in range(150):
                await stranger.post("mb-p-flooded", f"flood line {n}")
            elapsed = time.monotonic() - start
            # A burst of ten, then half of this wallet's 120 reads a minute: one a second.
            assert (ROOM_BURST, budget.reads.capacity * ROOM_SHARE) == (10.0, 60.0)
            cap = 10 + elapsed * 1.0 + 2
            assert reads["mb-p-flooded"] <= cap, (reads, cap)
            await stranger.post("mb-p-quiet", "a line that matters")
            await until(lambda: "a line that matters" in seen, timeout_s=10)
            assert errors == []
        finally:
            closed = True
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
