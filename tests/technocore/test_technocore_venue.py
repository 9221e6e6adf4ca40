"""The client against the rehearsal venue, over real HTTP on loopback."""

import asyncio
import contextlib
import json

import httpx
import pytest

from tclk_tui.protocol.naming import did_note, legacy_did_note
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import (
    Duplicate,
    NonceRejected,
    RateLimited,
    VenueUnavailable,
)
from tclk_tui.technocore.follow import (
    EpochChange,
    Idle,
    RecordsEvent,
    Rejected,
    RingGap,
    WaitNotHeld,
)
from tclk_tui.technocore.identity import Identity, verify_signed_text
from tclk_tui.technocore.nonces import MemoryNonceStore, NonceAllocator
from tclk_tui.technocore.retry import RetryPolicy

from .helpers import PAYEE, PAYER, STRANGER, Sleeps, signed

ROOM = "tclk-offers"


class Tail:
    """Runs a follower in the background; tests pull its events with a bounded wait."""

    def __init__(self, follower) -> None:
        self.follower = follower
        self.queue: asyncio.Queue = asyncio.Queue()
        self.events: list = []
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        async for event in self.follower:
            self.events.append(event)
            await self.queue.put(event)

    async def next(self, kind=object, timeout: float = 10.0):
        async with asyncio.timeout(timeout):
            while True:
                event = await self.queue.get()
                if isinstance(event, kind):
                    return event

    async def records(self, count: int, timeout: float = 10.0) -> list:
        found = []
        while len(found) < count:
            found.extend((await self.next(RecordsEvent, timeout)).records)
        return found

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def until(predicate, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def client_for(venue, identity=None, **kw):
    async with VenueClient(venue.url, identity, **kw) as client:
        yield client


# -- signed writes -------------------------------------------------------------------------


async def test_post_lane_round_trip_keeps_the_record_whole(venue):
    async with client_for(venue, PAYER) as client:
        result = await client.post(ROOM, "tclk1 hello from the post lane")
        view = await client.read(ROOM, since=0)
    assert result.seq == 1 and result.record is not None and result.record.verified
    (record,) = view.records
    assert record == result.record
    assert record.sender == PAYER.did and record.nonce == str(result.nonce)
    assert verify_signed_text(PAYER.did, ROOM, record.nonce, record.text, record.sig)
    assert view.generation == 1 and view.last_seq == 1


@pytest.mark.parametrize(
    "text",
    ["..", ".", "a/../b", "q?x=1#frag", "100% %2F %0A done", "1+1=2 & a;b=c", "héllo 日本語 🎉 Ω",
     "trailing dot."],
)
async def test_get_lane_carries_awkward_text_exactly(venue, text):
    async with client_for(venue, PAYER) as client:
        result = await client.post("lobby", text, lane="get")
        view = await client.read("lobby", since=0)
    assert result.record is not None and result.record.text == text
    assert view.records[-1].text == text and view.records[-1].verified


async def test_get_lane_refuses_text_past_the_url_budget_before_any_io(venue):
    async with client_for(venue, PAYER) as client:
        with pytest.raises(ValueError, match="POST lane"):
            await client.post("lobby", "ế" * 2000, lane="get")
        result = await client.post("lobby", "ế" * 2000)  # the POST lane carries it
        assert result.record is not None
    assert venue.venue.head("lobby") == 1


async def test_text_the_sweep_would_change_is_refused_before_any_io(venue):
    async with client_for(venue, PAYER) as client:
        with pytest.raises(ValueError, match="sweep"):
            await client.post(ROOM, "tclk1 {}\n")
    assert venue.venue.head(ROOM) == 0


async def test_nfc_and_nfd_are_different_messages(venue):
    async with client_for(venue, PAYER) as client:
        one = await client.post("lobby", "Vi\u1ec7t")
        two = await client.post("lobby", "Vie\u0323\u0302t")
    assert one.record.text != two.record.text
    assert (one.seq, two.seq) == (1, 2)


async def test_mailbox_takes_our_signed_writes(venue):
    async with client_for(venue, PAYER) as client:
        result = await client.post("mb-p-inbox-7f3a", "tclk1 for your eyes")
    assert result.record is not None and result.record.verified


async def test_reused_nonce_is_refused_with_the_last_one(venue):
    async with client_for(venue, PAYER) as client:
        first = await client.post(ROOM, "tclk1 first line", nonce=500)
        with pytest.raises(NonceRejected) as caught:
            await client.post(ROOM, "tclk1 second line", nonce=400)
    assert first.nonce == 500
    assert caught.value.last == 500 and caught.value.sent == 400


async def test_a_fresh_nonce_store_recovers_from_the_venue(venue):
    async with client_for(venue, PAYER, nonces=NonceAllocator(PAYER.did, MemoryNonceStore(),
                                                                lambda: 10**15)) as ahead:
        await ahead.post(ROOM, "tclk1 from the device with the fast clock")
    behind = NonceAllocator(PAYER.did, MemoryNonceStore(), lambda: 1000)
    async with client_for(venue, PAYER, nonces=behind) as client:
        result = await client.post(ROOM, "tclk1 from a device that lost its store")
    assert result.nonce == 10**15 + 1 and result.seq == 2


async def test_sixth_copy_is_a_duplicate_from_any_identity(venue):
    text = "the same long sentence, posted again and again"
    async with client_for(venue, PAYER) as one, client_for(venue, PAYEE) as two:
        for index in range(5):
            await (one if index % 2 else two).post("lobby", text)
        with pytest.raises(Duplicate):
            await one.post("lobby", text)
        await one.post("lobby", "ok")
        await one.post("lobby", "ok")
    assert venue.venue.head("lobby") == 7


async def test_rate_limited_write_waits_out_the_bucket(venue):
    clock = [1_750_000_000.0]
    config = venue.venue.config
    config.clock = lambda: clock[0]
    config.rate_limits = True
    config.rate_write = 2
    sleeps = Sleeps()

    async def advance(seconds: float) -> None:
        sleeps.calls.append(seconds)
        clock[0] += seconds

    async with client_for(venue, PAYER, retry=RetryPolicy(sleep=advance)) as client:
        for index in range(3):
            await client.post("lobby", f"tclk1 write number {index}")
    assert len(sleeps.calls) == 1 and sleeps.calls[0] >= 1
    assert venue.venue.head("lobby") == 3


async def test_rate_limit_past_the_budget_is_raised(venue):
    config = venue.venue.config
    config.clock = lambda: 1_750_000_000.0
    config.rate_limits = True
    config.rate_read = 1
    async with client_for(venue, retry=RetryPolicy(rate_limit_budget_s=1.0,
                                                   sleep=Sleeps())) as client:
        await client.read("lobby")
        with pytest.raises(RateLimited) as caught:
            await client.read("lobby")
    assert caught.value.kind == "read" and caught.value.wait_s > 1.0


async def test_5xx_burst_from_the_edge_is_retried(venue):
    venue.venue.faults.respond_with(503, "503 upstream busy\n", path_prefix="/r/", times=2)
    sleeps = Sleeps()
    async with client_for(venue, PAYER, retry=RetryPolicy(sleep=sleeps)) as client:
        result = await client.post(ROOM, "tclk1 through the burst")
    assert result.seq == 1 and len(sleeps.calls) == 2


async def test_stalled_venue_is_unavailable(venue):
    venue.venue.faults.stall("/r/")
    async with client_for(venue, retry=RetryPolicy(attempts=1), timeout_s=0.2) as client:
        with pytest.raises(VenueUnavailable):
            await client.read(ROOM)


# -- notes ---------------------------------------------------------------------------------


async def test_notes_read_write_and_compare_and_set(venue):
    async with client_for(venue) as client:
        assert await client.get_note("tclk-27", "68bf32b4553178") is None
        created = await client.set_note("tclk-27", "68bf32b4553178", "accepted", if_absent=True)
        assert created.ok
        again = await client.set_note("tclk-27", "68bf32b4553178", "proposed", if_absent=True)
        assert not again.ok and again.current == "accepted"
        moved = await client.set_note("tclk-27", "68bf32b4553178", "locked escrow-42",
                                      if_value="accepted")
        assert moved.ok
        lost = await client.set_note("tclk-27", "68bf32b4553178", "claimed", if_value="accepted")
        assert not lost.ok and lost.current == "locked escrow-42"
        assert await client.get_note("tclk-27", "68bf32b4553178") == "locked escrow-42"
        missing = await client.set_note("tclk-27", "ffffffffffffff", "x", if_value="y")
        assert not missing.ok and missing.current is None
        assert await client.list_notes("tclk-27") == ["68bf32b4553178"]


async def test_note_values_with_plus_and_unicode_survive(venue):
    async with client_for(venue) as client:
        for value in ("a+b", "100% sure", "Việt — 日本語", "x" * 8192):
            assert (await client.set_note("ns", "k", value)).ok
            assert await client.get_note("ns", "k") == value
        with pytest.raises(ValueError):
            await client.set_note("ns", "k", "two\nlines")
        with pytest.raises(ValueError):
            await client.set_note("ns", "k", "v", if_value="a", if_absent=True)


async def test_notes_adapter_speaks_the_rail_store_shape(venue):
    async with client_for(venue) as client:
        notes = client.notes()
        assert await notes.get("tclk-paper-27", "68bf32b4553178") is None
        assert await notes.set("tclk-paper-27", "68bf32b4553178", "v1", if_absent=True)
        assert not await notes.set("tclk-paper-27", "68bf32b4553178", "v2", if_value="nope")
        assert await notes.get("tclk-paper-27", "68bf32b4553178") == "v1"


async def test_did_note_publish_and_read(venue):
    async with client_for(venue, PAYEE) as payee, client_for(venue) as reader:
        written = await payee.publish_did_note(mailbox="mb-p-payee-inbox",
                                               rails=["x402", "flop-htlc"])
        assert written.ok
        note = await reader.read_did_note(PAYEE.did)
        assert note is not None and note.names_did and not note.legacy
        assert (note.ns, note.key) == did_note(PAYEE.did)
        assert note.mailbox == "mb-p-payee-inbox" and note.rails == ("flop-htlc", "x402")
        # Republishing only the rails keeps the mailbox and skips a no-op write.
        await payee.publish_did_note(rails=["x402", "flop-htlc"])
        again = await payee.publish_did_note(rails=["paper"])
        assert again.value == f"{PAYEE.did} tclk1:paper mailbox:mb-p-payee-inbox"


async def test_did_note_falls_back_to_the_legacy_path_and_flags_junk(venue):
    async with client_for(venue) as client:
        ns, key = legacy_did_note(PAYER.did)
        await client.set_note(ns, key, f"{PAYER.did} mailbox:mb-p-legacy tclk1:x402")
        legacy = await client.read_did_note(PAYER.did)
        assert legacy is not None and legacy.legacy and legacy.mailbox == "mb-p-legacy"
        shard_ns, shard_key = did_note(STRANGER.did)
        await client.set_note(shard_ns, shard_key, f"{PAYER.did} mailbox:mb-p-hijack")
        junk = await client.read_did_note(STRANGER.did)
        assert junk is not None and not junk.names_did
        assert await client.read_did_note(PAYEE.did) is None


async def test_concurrent_did_note_edit_is_merged_not_clobbered(venue):
    async with client_for(venue, PAYER) as client:
        ns, key = did_note(PAYER.did)
        await client.set_note(ns, key, f"{PAYER.did} x25519:AAAA")
        result = await client.publish_did_note(mailbox="mb-p-mine")
        assert result.ok
        assert await client.get_note(ns, key) == f"{PAYER.did} mailbox:mb-p-mine x25519:AAAA"


# -- reading, following, exporting ----------------------------------------------------------


async def test_follow_long_poll_wakes_on_append(venue):
    async with client_for(venue, PAYER) as writer, client_for(venue) as reader:
        tail = Tail(reader.follow(ROOM, since=await reader.cursor(ROOM)))
        try:
            await until(lambda: venue.venue.waiting(ROOM) >= 1)
            await writer.post(ROOM, "tclk1 wake up")
            (record,) = await tail.records(1)
            assert record.text == "tclk1 wake up" and record.verified
            assert tail.follower.cursor == 1
        finally:
            await tail.close()


async def test_follow_without_a_cursor_starts_with_recent_history(venue):
    async with client_for(venue, PAYER) as client:
        for index in range(3):
            await client.post(ROOM, f"tclk1 history {index}")
        tail = Tail(client.follow(ROOM))
        try:
            records = await tail.records(3)
            assert [r.seq for r in records] == [1, 2, 3]
        finally:
            await tail.close()


async def test_echo_suppression_is_by_did_never_by_nick(venue):
    async with client_for(venue, PAYER) as me, client_for(venue, PAYEE) as peer:
        await me.post(ROOM, "tclk1 mine")
        await peer.post(ROOM, "tclk1 theirs")
        async with httpx.AsyncClient() as raw:  # a stranger typing my DID as a nickname fails
            reply = await raw.get(f"{venue.url}/r/{ROOM}/say/{PAYER.did}/impostor")
            assert reply.status_code == 400
            await raw.get(f"{venue.url}/r/{ROOM}/say/payer/looks%20like%20me")
        tail = Tail(me.follow(ROOM, since=0, suppress_echoes=True))
        try:
            event = await tail.next(RecordsEvent)
            assert [r.text for r in event.records] == ["tclk1 theirs", "looks like me"]
            assert tail.follower.cursor == 3
        finally:
            await tail.close()
        unsuppressed = await me.read(ROOM, since=0)
    event = RecordsEvent(ROOM, unsuppressed.records, 3, 1, PAYER.did)
    assert [r.text for r in event.own] == ["tclk1 mine"]
    assert len(event.foreign) == 2


async def test_idle_after_a_real_wait(venue):
    async with client_for(venue) as client:
        tail = Tail(client.follow("quiet-room", since=0, wait_s=0.2))
        try:
            assert await tail.next() == Idle("quiet-room", 0)
        finally:
            await tail.close()


async def test_wait_not_held_when_the_waiter_slots_are_taken(venue):
    venue.venue.config.max_waiters_per_ip = 1
    async with client_for(venue) as first, client_for(venue, retry=RetryPolicy(
            sleep=Sleeps())) as second:
        holder = Tail(first.follow("busy-room", since=0))
        refused = None
        try:
            await until(lambda: venue.venue.waiting("busy-room") >= 1)
            refused = Tail(second.follow("busy-room", since=0))
            event = await refused.next()
            assert event == WaitNotHeld("busy-room", 10.0)
        finally:
            await holder.close()
            if refused is not None:
                await refused.close()


async def test_post_and_await_reads_the_reply_cursor_before_writing(venue):
    caller_box, callee_box = "mb-p-caller-1a2b", "mb-p-callee-3c4d"
    async with client_for(venue, PAYER) as caller, client_for(venue, PAYEE) as callee:

        async def serve_one() -> None:
            async for event in callee.follow(callee_box, since=0, suppress_echoes=True):
                if isinstance(event, RecordsEvent):
                    request = json.loads(event.records[0].text)
                    await callee.post(caller_box, json.dumps(
                        {"jsonrpc": "2.0", "id": request["id"], "result": "pong"},
                        separators=(",", ":")))
                    return

        server = asyncio.create_task(serve_one())
        await caller.post(caller_box, "an older line the caller must not mistake for a reply")
        answer = await caller.post_and_await(
            callee_box,
            '{"jsonrpc":"2.0","id":"7f3a","method":"ping"}',
            reply_room=caller_box,
            match=lambda r: '"id":"7f3a"' in r.text,
            timeout_s=10,
        )
        await server
    assert answer.reply is not None and answer.reply.sender == PAYEE.did
    assert json.loads(answer.reply.text)["result"] == "pong"


async def test_post_and_await_times_out_with_no_reply(venue):
    async with client_for(venue, PAYER) as caller:
        answer = await caller.post_and_await("mb-p-void-9", "tclk1 anyone?", timeout_s=0.3)
    assert answer.reply is None and answer.post.seq == 1


async def test_ring_gap_is_reported_when_the_export_lost_them_too(venue):
    async with client_for(venue, PAYER) as client:
        for index in range(6):
            await client.post(ROOM, f"tclk1 line {index}")
        await client.read(ROOM, since=0)
        venue.venue.force_gap(ROOM, 4)
        tail = Tail(client.follow(ROOM, since=1))
        try:
            gap = await tail.next(RingGap)
            assert (gap.expected, gap.got, gap.recovered) == (2, 5, 0)
            assert [r.seq for r in await tail.records(2)] == [5, 6]
        finally:
            await tail.close()


async def test_too_many_records_between_polls_are_fetched_from_the_export(venue):
    async with client_for(venue, PAYER) as client:
        for index in range(12):
            await client.post(ROOM, f"tclk1 burst {index}")
        tail = Tail(client.follow(ROOM, since=2, limit=5))
        try:
            records = await tail.records(10)
            assert [r.seq for r in records] == list(range(3, 13))
            assert not any(isinstance(e, RingGap) for e in tail.events)
        finally:
            await tail.close()


async def test_reaped_room_is_a_new_epoch_and_seq_continues(venue):
    async with client_for(venue, PAYER) as client:
        await client.post(ROOM, "tclk1 first life")
        tail = Tail(client.follow(ROOM, since=0))
        try:
            await tail.records(1)
            await until(lambda: venue.venue.waiting(ROOM) >= 1)
            venue.venue.reap(ROOM)
            await client.post(ROOM, "tclk1 second life")
            epoch = await tail.next(EpochChange)
            assert (epoch.old, epoch.new, epoch.rewound) == (1, 2, False)
            (record,) = await tail.records(1)
            assert record.seq == 2 and record.generation == 2
        finally:
            await tail.close()


async def test_resumed_follower_sees_a_reap_that_happened_while_it_was_away(venue):
    async with client_for(venue, PAYER) as client:
        await client.post(ROOM, "tclk1 before")
        view = await client.read(ROOM, since=0)
        venue.venue.reap(ROOM)
        await client.post(ROOM, "tclk1 after")
        tail = Tail(client.follow(ROOM, since=view.last_seq, generation=view.generation))
        try:
            assert await tail.next() == EpochChange(ROOM, 1, 2)
            (record,) = await tail.records(1)
            assert record.text == "tclk1 after" and tail.follower.generation == 2
        finally:
            await tail.close()


async def test_room_that_restarts_seq_rewinds_the_cursor(venue):
    async with client_for(venue, PAYER) as client:
        for index in range(3):
            await client.post(ROOM, f"tclk1 old {index}")
        venue.venue.reap(ROOM, reset_seq=True)
        await client.post(ROOM, "tclk1 new life")
        tail = Tail(client.follow(ROOM, since=3))
        try:
            epoch = await tail.next(EpochChange)
            assert epoch.rewound
            (record,) = await tail.records(1)
            assert (record.seq, record.text) == (1, "tclk1 new life")
        finally:
            await tail.close()


async def test_hostile_injected_records_are_rejected_by_the_follower(venue):
    model = venue.venue
    model.inject_record(ROOM, signed(PAYER, ROOM, 1, "tclk1 honest"))
    model.inject_record(ROOM, signed(PAYEE, ROOM, 2, "tclk1 for lobby", sign_room="lobby"))
    model.inject_record(ROOM, signed(PAYEE, ROOM, 3, "tclk1 x") | {"text": "tclk1 y"})
    model.inject_record(ROOM, {"seq": 4, "ts": "2026-01-01T00:00:04.000000Z", "from": "eve",
                               "text": "two\nlines"})
    model.inject_record(ROOM, {"seq": 5, "ts": "2026-01-01T00:00:05.000000Z", "from": "eve",
                               "text": "y" * 10_000})
    model.inject_record(ROOM, "not even an object")
    model.inject_record(ROOM, {"seq": 7, "ts": "2026-01-01T00:00:07.000000Z", "from": "bob",
                               "text": "not a tclk line"})
    async with client_for(venue) as client:
        tail = Tail(client.follow(ROOM, since=0))
        try:
            rejected = [await tail.next(Rejected) for _ in range(5)]
            records = await tail.records(2)
        finally:
            await tail.close()
    assert [r.seq for r in records] == [1, 7]
    assert records[0].verified and not records[1].verified
    reasons = [r.reason for r in rejected]
    assert reasons[0] == reasons[1] == "record signature does not verify"
    assert "sweep" in reasons[2] and "4096" in reasons[3]
    assert reasons[4] == "record is not a JSON object"


async def test_export_is_byte_exact_and_re_verifies(venue):
    async with client_for(venue, PAYER) as one, client_for(venue, PAYEE) as two:
        await one.post(ROOM, "tclk1 héllo 🎉")
        await two.post(ROOM, "tclk1 second", nonce=9_999_999_999_999_999_999)
        export = await one.export(ROOM)
        missing = await one.export("never-written")
    assert export.generation == 1 and export.malformed == ()
    assert [r.verified for r in export.records] == [True, True]
    assert export.records[1].nonce == "9999999999999999999"
    lines = export.raw.decode().splitlines()
    assert json.loads(lines[0])["text"] == "tclk1 héllo 🎉" and "🎉" in lines[0]
    assert lines[1].endswith(f'"nonce":9999999999999999999,"sig":"{export.records[1].sig}"}}')
    assert (missing.raw, missing.generation, missing.records) == (b"", 0, ())


async def test_export_reports_junk_lines(venue):
    venue.venue.inject_line(ROOM, "this is not json")
    async with client_for(venue, PAYER) as client:
        await client.post(ROOM, "tclk1 after the junk")
        export = await client.export(ROOM)
    assert [m.reason for m in export.malformed] == ["export line 1 is not JSON"]
    assert [r.text for r in export.records] == ["tclk1 after the junk"]


async def test_config_reports_the_deployment_knobs(venue):
    async with client_for(venue) as client:
        settings = await client.config()
    assert settings.get("dupe_max_copies") == 5
    assert settings.get("max_waiters_per_ip") == 4
    assert settings.version


async def test_anonymous_client_cannot_post(venue):
    async with client_for(venue) as client:
        with pytest.raises(ValueError, match="identity"):
            await client.post(ROOM, "hello")


async def test_client_refuses_bad_names_before_any_io(venue):
    async with client_for(venue, Identity.generate()) as client:
        for call in (client.read("Bad Room"), client.post("UPPER", "x"),
                     client.get_note("ns", "no/slash"), client.export("-x")):
            with pytest.raises(ValueError):
                await call
        with pytest.raises(ValueError, match="since"):
            await client.read(ROOM, wait=5)
