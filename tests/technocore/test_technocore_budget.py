"""The venue's per-address budgets on the client's side: shares, classes, and what the venue
says overriding what is believed."""

import asyncio
import math

import pytest

from tclk_tui.rehearsal.server import VenueConfig
from tclk_tui.technocore.budget import (
    RoomBudgetSpent,
    VenueBudget,
    VenueLimits,
    traffic,
)
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.nonces import MemoryNonceStore

from .helpers import PAYER, STRANGER


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_limits_from_config_keep_the_defaults_for_nonsense():
    limits = VenueLimits.from_settings({
        "max_waiters_per_ip": True, "rate_read": -5, "rate_write": "30", "rate_rooms_per_day":
        10**12, "max_wait": float("nan")})
    assert (limits.waiters, limits.reads_per_min, limits.writes_per_min, limits.rooms_per_day,
            limits.max_wait_s) == (4, 120, 30, 20, 10.0)
    real = VenueLimits.from_settings({"max_waiters_per_ip": 8, "rate_read": 600,
                                      "rate_write": 300, "rate_rooms_per_day": 50,
                                      "max_wait": 5})
    assert (real.waiters, real.reads_per_min, real.rooms_per_day, real.max_wait_s) == \
        (8, 600, 50, 5.0)


def test_each_wallet_takes_its_share_of_every_budget():
    view = VenueBudget(share=2, clock=Clock(), wall=Clock()).view()
    assert (view.waiters, view.reads_per_min, view.writes_per_min, view.rooms_per_day) == \
        (2, 60, 15, 10)
    alone = VenueBudget(share=1, clock=Clock(), wall=Clock()).view()
    assert (alone.waiters, alone.reads_per_min, alone.rooms_per_day) == (4, 120, 20)
    for bad in (0, 65, True, 1.5):
        with pytest.raises(ValueError):
            VenueBudget(share=bad)  # type: ignore[arg-type]


def test_following_reads_leave_a_quarter_for_deal_moves_which_never_wait():
    clock = Clock()
    budget = VenueBudget(share=2, clock=clock, wall=Clock())
    budget.reads.at_most(clock(), 15.5)  # a quarter of 60 is kept, plus less than one
    assert not budget.available("read", "follow")
    assert budget.available("read", "urgent")
    assert not budget.available("read", "optional")
    assert budget.available("read", "critical")
    asyncio.run(budget.spend("read", "a lock's read-back"))  # critical: spent at once
    assert budget.reads.level(clock()) == pytest.approx(14.5)
    clock.now += 2.0  # one token a second at this share
    assert budget.available("read", "follow")
    budget.reads.at_most(clock(), 0.5)  # the whole share spent: even a deal move waits
    assert not budget.available("read", "critical")
    assert budget.seconds_until_available("read", "critical") == pytest.approx(0.75)


def test_what_the_venue_says_about_the_address_only_ever_lowers_what_is_left():
    clock = Clock()
    budget = VenueBudget(share=2, clock=clock, wall=Clock())
    budget.observe_reply(b"[1] ok\n# budget: 7 of 120 reads left this minute (refills ...)")
    assert budget.view().reads_left == 7
    budget.observe_reply(b"# budget: 100 of 120 reads left this minute")
    assert budget.view().reads_left == 7  # never believed above what was seen
    budget.rate_limited("write", 4.0)  # a 429: nothing left for four seconds
    assert budget.view().writes_left == 0
    assert budget.seconds_until_available("write", "critical") == pytest.approx(9.0)


def test_an_optional_write_is_kept_with_the_reason_and_when_it_frees_up():
    clock = Clock()
    budget = VenueBudget(share=2, clock=clock, wall=Clock())
    budget.optional_patience_s = 0.0
    budget.writes.at_most(clock(), 3.0)  # a third of 15 is kept for deal moves

    async def heartbeat() -> None:
        with traffic("optional"):
            await budget.spend("write", "post /r/mb-p-tclk-x")

    with pytest.raises(Exception) as refused:
        asyncio.run(heartbeat())
    assert "kept for deal moves" in str(refused.value) and "free for this in" in str(
        refused.value)
    asyncio.run(budget.spend("write", "a reveal"))  # a deal move goes all the same
    assert budget.writes.level(clock()) == pytest.approx(2.0)


def test_the_new_room_bucket_survives_a_restart_and_says_when_a_room_frees_up():
    wall = Clock(1_700_000_000.0)
    saved: list[tuple[float, float]] = []
    budget = VenueBudget(share=2, clock=Clock(), wall=wall,
                         on_rooms=lambda level, stamp: saved.append((level, stamp)))
    for n in range(10):
        budget.room_created(f"mb-p-tclk-{n}")
    assert budget.rooms_left() == 0
    again = VenueBudget(share=2, clock=Clock(), wall=wall, rooms_state=saved[-1])
    assert again.rooms_left() == 0
    why = again.rooms_sentence(1)
    assert why is not None and "20 new rooms a day" in why and "frees up in 2 h 24 min" in why
    wall.now += 8640.0  # one room back every 86400 / 10 s at this share
    assert again.rooms_left() == 1 and again.rooms_sentence(1) is None


async def test_a_client_never_holds_more_waiting_reads_than_its_share(venue):
    budget = VenueBudget(share=2)
    async with VenueClient(venue.url, STRANGER, budget=budget) as client:
        await client.post("lobby", "the room exists")
        waits = [asyncio.create_task(client.read("lobby", since=1, wait=10)) for _ in range(5)]
        async with asyncio.timeout(10):
            while venue.venue.slots.held_by("127.0.0.1") < 2 or sum(w.done() for w in waits) < 3:
                await asyncio.sleep(0.01)
        assert venue.venue.slots.held_by("127.0.0.1") == 2
        answered = [w.result() for w in waits if w.done()]
        assert len(answered) == 3 and all(view.wait_held is False for view in answered)
        assert budget.waiters_in_use == 2
        await client.post("lobby", "wake the two waiting reads")
        await asyncio.gather(*waits)
        assert budget.waiters_in_use == 0 and venue.venue.slots.refused == 0


async def test_a_write_that_would_create_a_room_past_the_budget_is_refused_unsigned(
        venue_factory):
    running = await venue_factory(VenueConfig(rate_limits=True))
    budget = VenueBudget(share=2)
    store = MemoryNonceStore()
    async with VenueClient(running.url, PAYER, nonces=store, budget=budget) as client:
        await client.post("lobby", "an existing room")
        budget.rooms.at_most(budget._wall(), 0.5)  # this wallet's new rooms for today spent
        with pytest.raises(RoomBudgetSpent) as refused:
            await client.post("mb-p-tclk-new", "a lock")
        assert "does not exist yet" in str(refused.value)
        assert "new rooms a day" in str(refused.value) and "frees up in" in str(refused.value)
        assert store.load(PAYER.did, "mb-p-tclk-new") is None  # no nonce spent: nothing signed
        assert running.venue.head("mb-p-tclk-new") == 0
        await client.post("lobby", "writing into a room that exists costs no room")
        assert running.venue.limits.refusals == {}
        assert math.isclose(refused.value.free_in_s, budget.room_free_in_s(1), rel_tol=0.1)


async def test_paced_writes_keep_their_nonce_order_and_all_land(venue_factory):
    running = await venue_factory(VenueConfig(rate_limits=True, rate_write=240))
    budget = VenueBudget(VenueLimits(writes_per_min=240), share=1)  # four writes a second
    async with VenueClient(running.url, PAYER, budget=budget) as client:
        await client.post("lobby", "the room exists")
        budget.writes.at_most(budget._clock(), 2.0)  # most of this minute's writes are spent
        posted = await asyncio.gather(*[client.post("lobby", f"paced line {n}")
                                        for n in range(6)])
        assert [p.replayed for p in posted] == [False] * 6  # none refused, none re-sent
        export = await client.export("lobby")
        lines = [r.text for r in export.records if r.text.startswith("paced")]
        assert lines == [f"paced line {n}" for n in range(6)]  # in the order they were asked
        assert running.venue.limits.refusals == {}


def test_the_log_says_what_the_budget_decided_once_per_request(caplog, monkeypatch):
    """A wait for a token and an optional write kept back are the budget's decisions: the log
    says each once (not every tick of the wait), under the client's name."""
    clock = Clock()
    budget = VenueBudget(share=2, clock=clock, wall=Clock())
    budget.reads.at_most(clock(), -6.0)  # overspent: a deal move waits some 7 s, in steps
    slept: list[float] = []

    async def sleep(seconds: float) -> None:  # the clock moves as the wait asks, no real time
        slept.append(seconds)
        clock.now += seconds

    async def read() -> None:
        with monkeypatch.context() as patch:
            patch.setattr(asyncio, "sleep", sleep)
            await budget.spend("read", "get /r/tclk-offers")

    with caplog.at_level("INFO", logger="tclk_tui.technocore.client"):
        asyncio.run(read())
    waits = [r.getMessage() for r in caplog.records if "waiting" in r.getMessage()]
    assert len(slept) == 2 and len(waits) == 1
    assert "get /r/tclk-offers" in waits[0] and "read token" in waits[0]
    caplog.clear()
    budget.optional_patience_s = 0.0
    budget.writes.at_most(clock(), 3.0)

    async def heartbeat() -> None:
        with traffic("optional"):
            await budget.spend("write", "post /r/mb-p-tclk-x")

    with caplog.at_level("INFO", logger="tclk_tui.technocore.client"), \
            pytest.raises(Exception, match="kept for deal moves"):
        asyncio.run(heartbeat())
    assert any("kept back" in r.getMessage() for r in caplog.records)


def test_a_write_that_made_a_room_spends_one_even_if_a_read_saw_the_room_first():
    """The venue charges a room to the write that got seq 1. A read of ours can see the new
    room between the post landing and its answer; that read must not make the room free."""
    from types import SimpleNamespace

    from tclk_tui.technocore.budget_checks import BudgetChecks
    from tclk_tui.technocore.records import VenueRecord

    budget = VenueBudget(share=2, clock=Clock(), wall=Clock())
    checks = BudgetChecks(SimpleNamespace(budget=budget), rooms=None)  # type: ignore[arg-type]

    def answer(room: str, seq: int) -> VenueRecord:
        return VenueRecord(room=room, seq=seq, ts="", timestamp_ms=0, sender="", text="",
                           nonce=None, sig=None, generation=1, verified=False)

    before = budget.rooms_left()
    checks.export_seen("mb-p-tclk-race", b'{"seq": 1}\n')  # our read, racing our own post
    checks.after_write("mb-p-tclk-race", answer("mb-p-tclk-race", 1))
    assert budget.rooms_left() == before - 1
    checks.after_write("mb-p-tclk-race", answer("mb-p-tclk-race", 2))  # a later line: free
    checks.after_write("tclk-offers", answer("tclk-offers", 7))
    assert budget.rooms_left() == before - 1
