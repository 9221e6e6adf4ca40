"""The venue status the engine publishes names what is happening, in the follower's terms."""

from __future__ import annotations

from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.technocore.errors import RateLimited
from tclk_tui.technocore.follow import Backoff, Idle, WaitNotHeld


async def test_a_wait_not_held_is_polling_and_a_quiet_wait_is_following_again(pair):
    rooms = pair.alice.rooms
    await rooms._on_follow_event(OFFER_ROOM, WaitNotHeld(OFFER_ROOM, 10.0))
    assert rooms.status.state == "polling"
    assert "nothing is limited" in rooms.status.detail
    await rooms._on_follow_event(OFFER_ROOM, Idle(OFFER_ROOM, 3))
    assert rooms.status.state == "following"


async def test_only_a_real_rate_limit_is_called_one(pair):
    rooms = pair.alice.rooms
    error = RateLimited("slow down", wait_s=4.0, kind="read")
    await rooms._on_follow_event(OFFER_ROOM, Backoff(OFFER_ROOM, error, 4.0, 1))
    assert rooms.status.state == "rate-limited" and "4 s" in rooms.status.detail
