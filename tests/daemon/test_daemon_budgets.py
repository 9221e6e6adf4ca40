"""Two daemons on one host share the venue's real per-address limits deal after deal: nothing
is refused for budget, settled rooms are no longer followed, and an accept the new-room budget
cannot keep is refused before anything is signed, naming the reason."""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.daemon.wire import RpcError
from tclk_tui.rehearsal.server import VenueConfig
from tests.daemon.conftest import DaemonProcess

DEALS = 3


async def _call(daemon: DaemonProcess, method: str, **params: object) -> dict:
    def blocking() -> dict:
        with daemon.client() as client:
            return client.call(method, dict(params))
    return await asyncio.to_thread(blocking)  # the venue runs in this loop: never block it


async def _until_status(daemon: DaemonProcess, deal: str, status: str) -> dict:
    async with asyncio.timeout(30):
        while True:
            answer = await _call(daemon, "status", deal=deal)
            if answer["status"] == status:
                return answer
            await asyncio.sleep(0.05)


async def _retry(daemon: DaemonProcess, method: str, **params: object) -> dict:
    """A call that waits on what the daemon has yet to read (an offer, a lock)."""
    async with asyncio.timeout(30):
        while True:
            try:
                return await _call(daemon, method, **params)
            except RpcError:
                await asyncio.sleep(0.05)


async def _budget(daemon: DaemonProcess):
    remote = RemoteDoor.attach(daemon.profile_dir)
    assert remote is not None
    try:
        return await asyncio.to_thread(remote.venue_budget)
    finally:
        await remote.close()


async def test_two_daemons_on_one_host_stay_within_the_venues_real_limits(
        venue_factory, home):
    # The real server's defaults, with 8 new rooms a day for the address: 4 for each daemon.
    venue = await venue_factory(VenueConfig(rate_limits=True, rate_rooms_per_day=8))
    alice = await DaemonProcess(venue.url, home, "alice").start()
    bob = await DaemonProcess(venue.url, home, "bob").start()
    try:
        for n in range(DEALS):  # Alice pays: her first offer creates the board, each lock a room
            offer = await _call(alice, "offer", amount=str(1000 + n), asset="FLOP",
                                rails="paper")
            await _retry(bob, "accept", offer=offer["deal"])
            accepted = await _until_status(alice, offer["deal"], "accepted")
            await _call(alice, "lock", deal=offer["deal"], yes=True)
            contract = accepted["contract"]
            await _retry(bob, "reveal", deal=offer["deal"], confirm=contract[2:6])
            await _until_status(alice, offer["deal"], "claimed")
            await _call(alice, "receipt", deal=offer["deal"])
            await _call(bob, "receipt", deal=offer["deal"])
        for daemon in (alice, bob):  # both receipts read: those rooms are followed no more
            async with asyncio.timeout(30):
                while (await _budget(daemon)).dropped < DEALS:
                    await asyncio.sleep(0.1)
        assert venue.venue.limits.refusals == {}, "a request was refused for budget"
        assert venue.venue.slots.refused == 0, "a waiting read was refused a slot"
        view = await _budget(alice)
        assert view is not None and view.budget.rooms_left == 0
        payee_offer = await _call(bob, "offer", role="payee", amount="9", asset="FLOP",
                                  rails="paper")
        with pytest.raises(RpcError) as refused:
            await _retry_refusal(alice, payee_offer["deal"])
        message = refused.value.message
        assert "refused before anything is signed" in message and "new rooms a day" in message
        assert "frees up in" in message
        assert venue.venue.limits.refusals == {}  # refused here, not by the venue
    finally:
        await alice.stop()
        await bob.stop()


async def _retry_refusal(alice: DaemonProcess, offer: str) -> None:
    """Accept until the answer is the budget's refusal (the board may not show it yet)."""
    async with asyncio.timeout(30):
        while True:
            try:
                await _call(alice, "accept", offer=offer)
            except RpcError as exc:
                if "new rooms a day" in exc.message:
                    raise
                await asyncio.sleep(0.05)
                continue
            raise AssertionError("the accept was not refused")
