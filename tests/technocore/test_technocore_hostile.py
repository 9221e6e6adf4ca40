"""A hostile or failing venue, served for real over loopback by a scripted starlette app.

These are the replies the rehearsal venue cannot be made to give: stalls, 5xx bursts, bodies that
are not JSON, 429s with a wait, records that lie. Sleeps are injected, so nothing here waits on a
clock except the stalled-server test, which uses a short client timeout.
"""

import json

import pytest
from starlette.requests import Request
from starlette.responses import Response

from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import (
    Duplicate,
    MalformedResponse,
    NonceRejected,
    RateLimited,
    ReplyLost,
    ServerError,
    VenueUnavailable,
)
from tclk_tui.technocore.follow import (
    Backoff,
    EpochChange,
    Idle,
    RecordsEvent,
    Rejected,
    RingGap,
    WaitNotHeld,
)
from tclk_tui.technocore.nonces import MemoryNonceStore, NonceAllocator
from tclk_tui.technocore.retry import RetryPolicy

from .helpers import (
    PAYEE,
    PAYER,
    Sleeps,
    export_body,
    json_reply,
    scripted,
    signed,
    text_reply,
    ts_for,
    unsigned,
    view,
)

ROOM = "tclk-offers"
READ_429 = (
    "429 rate limited: the read budget for your IP (120/min) is spent.\n"
    "retry after: 7s — the bucket refills continuously (2.0 tokens/s)\n"
)


def policy(sleeps: Sleeps, **kw) -> RetryPolicy:
    return RetryPolicy(sleep=sleeps, random=lambda: 0.5, **kw)


async def test_5xx_burst_is_retried_with_growing_jittered_delays():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.add(text_reply("503 busy\n", 503), text_reply("500 oops\n", 500),
                  text_reply("502 bad gateway\n", 502), json_reply(view(ROOM, [])))
        async with VenueClient(url, retry=policy(sleeps, attempts=4, base_delay_s=1.0,
                                                 jitter=0.5)) as client:
            result = await client.read(ROOM)
    assert result.records == () and len(venue.seen) == 4
    assert sleeps.calls == [0.75, 1.5, 3.0]  # half fixed, half jitter at random() = 0.5


async def test_5xx_retries_are_bounded():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.fallback = _always(text_reply("503 busy\n", 503))
        async with VenueClient(url, retry=policy(sleeps, attempts=3)) as client:
            with pytest.raises(ServerError) as caught:
                await client.read(ROOM)
    assert caught.value.status == 503
    assert len(venue.seen) == 3 and len(sleeps.calls) == 2


async def test_429_waits_what_the_body_says_then_retries():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.add(text_reply(READ_429, 429), json_reply(view(ROOM, [])))
        async with VenueClient(url, retry=policy(sleeps)) as client:
            await client.read(ROOM)
    assert sleeps.calls == [7.0] and len(venue.seen) == 2


async def test_429_beyond_the_budget_is_raised_without_waiting():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.add(text_reply(READ_429, 429), text_reply(READ_429, 429))
        async with VenueClient(url, retry=policy(sleeps, rate_limit_budget_s=10)) as client:
            with pytest.raises(RateLimited) as caught:
                await client.read(ROOM)
    assert caught.value.wait_s == 7.0 and caught.value.kind == "read"
    assert sleeps.calls == [7.0]  # the second 7 s would pass the 10 s budget


async def test_422_is_never_retried_with_the_same_bytes():
    sleeps = Sleeps()
    body = "422 duplicate text: /r/tclk-offers already holds 5 copies\nadd &ref=422-ab12-cd34\n"
    async with scripted() as (venue, url):
        venue.fallback = _always(text_reply(body, 422))
        async with VenueClient(url, PAYER, retry=policy(sleeps)) as client:
            with pytest.raises(Duplicate) as caught:
                await client.post(ROOM, "a sentence everyone keeps repeating")
    assert caught.value.ref == "422-ab12-cd34"
    assert len(venue.seen) == 1 and sleeps.calls == []


async def test_stalled_server_times_out_as_unavailable():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.fallback = venue.stall
        async with VenueClient(url, retry=policy(sleeps, attempts=2), timeout_s=0.2) as client:
            with pytest.raises(VenueUnavailable, match="no answer"):
                await client.read(ROOM)
    assert len(venue.seen) == 2 and len(sleeps.calls) == 1


async def test_connection_refused_is_unavailable():
    sleeps = Sleeps()
    async with scripted() as (_venue, url):
        pass  # server gone: the port now refuses connections
    async with VenueClient(url, retry=policy(sleeps, attempts=2)) as client:
        with pytest.raises(VenueUnavailable, match="unreachable"):
            await client.read(ROOM)


async def test_malformed_json_body_is_retried_then_refused():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.fallback = _always(Response(b'{"room": "tclk-offers", "messages": [',
                                          media_type="application/json"))
        async with VenueClient(url, retry=policy(sleeps, attempts=2)) as client:
            with pytest.raises(MalformedResponse, match="not JSON"):
                await client.read(ROOM)


async def test_oversized_reply_is_cut_off():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.fallback = _always(json_reply(view(ROOM, [unsigned("bob", 1, "x" * 4000)])))
        async with VenueClient(url, retry=policy(sleeps, attempts=1)) as client:
            client_cap = 1000
            with pytest.raises(MalformedResponse, match="exceeds"):
                await client._request("GET", f"/r/{ROOM}", what="read", cap=client_cap)


async def test_hostile_records_are_reported_and_the_rest_delivered():
    messages = [
        signed(PAYER, ROOM, 1, "tclk1 good line"),
        signed(PAYEE, ROOM, 2, "tclk1 forged", nonce=5) | {"text": "tclk1 rewritten"},
        signed(PAYER, ROOM, 3, "signed for lobby", sign_room="lobby"),
        {k: v for k, v in signed(PAYER, ROOM, 4, "no sig").items() if k != "sig"},
        unsigned("bob", 5, "just chatting, not a tclk line"),
        unsigned("eve", 6, "x" * 5000),
        unsigned("eve", 7, "line one\nline two"),
        unsigned("eve", 8, "bell\x07 and \x1b[31m escape"),
        {"seq": 9, "ts": "yesterday", "from": "eve", "text": "bad time"},
        ["not", "an", "object"],
    ]
    async with scripted() as (venue, url):
        venue.fallback = _always(json_reply(view(ROOM, messages, last_seq=10)))
        async with VenueClient(url) as client:
            result = await client.read(ROOM, since=0)
    assert [r.seq for r in result.records] == [1, 4, 5]
    assert [r.verified for r in result.records] == [True, False, False]
    reasons = {m.seq: m.reason for m in result.malformed}
    assert reasons[2] == "record signature does not verify"
    assert reasons[3] == "record signature does not verify"
    assert "4096" in reasons[6]
    assert "sweep" in reasons[7] and "sweep" in reasons[8]
    assert "RFC 3339" in reasons[9]
    assert reasons[None] == "record is not a JSON object"


async def test_answer_for_another_room_is_refused():
    async with scripted() as (venue, url):
        venue.fallback = _always(json_reply(view("lobby", [])))
        async with VenueClient(url, retry=policy(Sleeps(), attempts=1)) as client:
            with pytest.raises(MalformedResponse, match="another room"):
                await client.read(ROOM)


# -- signed writes against a venue that loses answers ---------------------------------------


def _record_from_post(body: bytes, room: str, seq: int) -> dict:
    sent = json.loads(body)
    return {"seq": seq, "ts": ts_for(seq), "from": sent["did"], "text": sent["text"],
            "nonce": int(sent["nonce"]), "sig": sent["sig"]}


async def test_retried_post_that_already_landed_is_reported_once_not_twice():
    sleeps = Sleeps()
    stored: list[dict] = []

    async def lands_then_fails(request: Request) -> Response:
        stored.append(_record_from_post(await request.body(), ROOM, 1))
        return text_reply("502 upstream timed out\n", 502)

    async def replay_refused(request: Request) -> Response:
        nonce = json.loads(await request.body())["nonce"]
        return text_reply(f"400 nonce {nonce} is not greater than {nonce}, the last one this key "
                          f"used in /r/{ROOM} — a signed URL is single-use, so count up\n", 400)

    async def room(_request: Request) -> Response:
        return json_reply(view(ROOM, stored))

    async with scripted() as (venue, url):
        venue.add(lands_then_fails, replay_refused, room)
        async with VenueClient(url, PAYER, retry=policy(sleeps)) as client:
            result = await client.post(ROOM, "tclk1 exactly once")
    assert result.replayed and result.seq == 1
    assert result.record is not None and result.record.verified
    assert [s.method for s in venue.seen] == ["POST", "POST", "GET"]
    first, second = (json.loads(s.body) for s in venue.seen[:2])
    assert first == second  # the retry sent the same signed bytes


async def test_lost_nonce_state_is_recovered_from_the_venue_refusal():
    clock_ms = 1_000
    allocator = NonceAllocator(PAYER.did, MemoryNonceStore(), lambda: clock_ms)

    async def too_low(request: Request) -> Response:
        nonce = json.loads(await request.body())["nonce"]
        return text_reply(f"400 nonce {nonce} is not greater than 777777, the last one this key "
                          f"used in /r/{ROOM}\n", 400)

    async def accept(request: Request) -> Response:
        record = _record_from_post(await request.body(), ROOM, 3)
        return json_reply(view(ROOM, [record], posted=record))

    async with scripted() as (venue, url):
        venue.add(too_low, json_reply(view(ROOM, [])), accept)
        async with VenueClient(url, PAYER, allocator) as client:
            result = await client.post(ROOM, "tclk1 after a lost store")
    assert result.nonce == 777_778 and not result.replayed and result.seq == 3
    assert allocator.next(ROOM) == 777_779


async def test_explicit_nonce_below_the_venue_floor_is_raised():
    async def too_low(request: Request) -> Response:
        return text_reply("400 nonce 5 is not greater than 9, the last one\n", 400)

    async with scripted() as (venue, url):
        venue.add(too_low, json_reply(view(ROOM, [])))
        async with VenueClient(url, PAYER) as client:
            with pytest.raises(NonceRejected) as caught:
                await client.post(ROOM, "tclk1 pinned nonce", nonce=5)
    assert caught.value.last == 9


async def test_posted_record_that_differs_from_the_signed_write_is_refused():
    async def rewrite(request: Request) -> Response:
        record = _record_from_post(await request.body(), ROOM, 1)
        other = signed(PAYER, ROOM, 1, "something else", nonce=record["nonce"])
        return json_reply(view(ROOM, [other], posted=other))

    async with scripted() as (venue, url):
        venue.add(rewrite)
        async with VenueClient(url, PAYER, retry=policy(Sleeps(), attempts=1)) as client:
            with pytest.raises(MalformedResponse, match="differs"):
                await client.post(ROOM, "what I signed")


async def test_cas_write_whose_first_answer_was_lost_counts_as_won():
    body_409 = ("409 note a/b changed since you read it\n\ncurrent value follows (6 chars):\n"
                "locked\n")
    async with scripted() as (venue, url):
        venue.add(text_reply("503 busy\n", 503), text_reply(body_409, 409))
        async with VenueClient(url, retry=policy(Sleeps())) as client:
            result = await client.set_note("a", "b", "locked", if_value="accepted")
    assert result.ok


async def test_cas_loss_reports_the_current_value():
    body_409 = ("409 note a/b changed since you read it\n\ncurrent value follows (8 chars):\n"
                "claimed \n")
    async with scripted() as (venue, url):
        venue.add(text_reply(body_409.replace("claimed \n", "claimed.\n"), 409))
        async with VenueClient(url) as client:
            result = await client.set_note("a", "b", "locked", if_value="accepted")
    assert not result.ok and result.current == "claimed."


# -- following a room that misbehaves --------------------------------------------------------


async def _collect(follower, count: int) -> list:
    events = []
    async for event in follower:
        events.append(event)
        if len(events) >= count:
            break
    return events


async def test_follow_backs_off_through_failures_and_resumes():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.add(
            text_reply("503 busy\n", 503),
            Response(b"not json", media_type="application/json"),
            text_reply(READ_429, 429),
            json_reply(view(ROOM, [signed(PAYER, ROOM, 1, "tclk1 one")])),
        )
        async with VenueClient(url, retry=policy(sleeps, base_delay_s=1.0)) as client:
            events = await _collect(client.follow(ROOM, since=0), 4)
    assert [type(e) for e in events] == [Backoff, Backoff, Backoff, RecordsEvent]
    assert [e.delay_s for e in events[:3]] == [0.75, 1.5, 7.0]
    assert sleeps.calls == [0.75, 1.5, 7.0]
    assert events[3].records[0].text == "tclk1 one"


async def test_follow_reports_rejected_records_and_never_passes_them_on():
    messages = [signed(PAYER, ROOM, 1, "tclk1 good"),
                signed(PAYEE, ROOM, 2, "tclk1 good too") | {"sig": PAYER.sign(ROOM, 1, "x")}]
    async with scripted() as (venue, url):
        venue.add(json_reply(view(ROOM, messages)))
        async with VenueClient(url) as client:
            events = await _collect(client.follow(ROOM, since=0), 2)
    assert isinstance(events[0], Rejected) and events[0].seq == 2
    assert events[0].reason == "record signature does not verify"
    assert isinstance(events[1], RecordsEvent) and [r.seq for r in events[1].records] == [1]


async def test_follow_recovers_a_gap_from_the_export():
    all_records = [signed(PAYER, ROOM, s, f"tclk1 line {s}") for s in range(1, 8)]
    async with scripted() as (venue, url):
        venue.add(
            json_reply(view(ROOM, all_records[5:], generation=2)),  # since=2 but first_seq 6
            Response(export_body(all_records[1:]), media_type="application/x-ndjson",
                     headers={"X-Room-Generation": "2"}),
        )
        async with VenueClient(url) as client:
            follower = client.follow(ROOM, since=2)
            events = await _collect(follower, 2)
    assert isinstance(events[0], RecordsEvent) and events[0].recovered
    assert [r.seq for r in events[0].records] == [3, 4, 5]
    assert [r.seq for r in events[1].records] == [6, 7]
    assert follower.cursor == 7
    assert venue.seen[1].path == f"/r/{ROOM}/export"


async def test_follow_reports_what_the_export_no_longer_holds():
    all_records = [signed(PAYER, ROOM, s, f"tclk1 line {s}") for s in range(1, 8)]
    async with scripted() as (venue, url):
        venue.add(
            json_reply(view(ROOM, all_records[5:])),
            Response(export_body(all_records[4:]), media_type="application/x-ndjson",
                     headers={"X-Room-Generation": "1"}),
        )
        async with VenueClient(url) as client:
            events = await _collect(client.follow(ROOM, since=2), 3)
    gap, recovered, live = events
    assert gap == RingGap(ROOM, expected=3, got=6, recovered=1)
    assert gap.lost == 2
    assert [r.seq for r in recovered.records] == [5]
    assert [r.seq for r in live.records] == [6, 7]


async def test_follow_sees_a_generation_change():
    async with scripted() as (venue, url):
        venue.add(
            json_reply(view(ROOM, [signed(PAYER, ROOM, 1, "tclk1 a")], generation=1)),
            json_reply(view(ROOM, [signed(PAYER, ROOM, 2, "tclk1 b")], generation=2)),
        )
        async with VenueClient(url) as client:
            events = await _collect(client.follow(ROOM, since=0), 3)
    assert isinstance(events[0], RecordsEvent)
    assert events[1] == EpochChange(ROOM, 1, 2, rewound=False)
    assert isinstance(events[2], RecordsEvent) and events[2].generation == 2


async def test_follow_resets_the_cursor_when_seq_rewinds():
    async with scripted() as (venue, url):
        venue.add(
            json_reply(view(ROOM, [], last_seq=2, generation=None)),  # a restarted room
            json_reply(view(ROOM, [signed(PAYER, ROOM, 1, "tclk1 new life"),
                                   signed(PAYER, ROOM, 2, "tclk1 again")], generation=None)),
        )
        async with VenueClient(url) as client:
            follower = client.follow(ROOM, since=40)
            events = await _collect(follower, 2)
    assert events[0] == EpochChange(ROOM, None, None, rewound=True)
    assert [s.query.get("since") for s in venue.seen] == ["40", "0"]
    assert [r.seq for r in events[1].records] == [1, 2]


async def test_follow_probes_for_a_rewind_on_a_venue_without_generations():
    async with scripted() as (venue, url):
        venue.add(
            json_reply(view(ROOM, [], last_seq=40, generation=None)),  # the catch-up read
            json_reply(view(ROOM, [], last_seq=40, generation=None)),  # cursor echoed back
            json_reply(view(ROOM, [], last_seq=40, generation=None)),
            json_reply(view(ROOM, [signed(PAYER, ROOM, 1, "tclk1 x")], generation=None)),
        )
        sleeps = Sleeps()
        async with VenueClient(url, retry=policy(sleeps)) as client:
            events = await _collect(client.follow(ROOM, since=40, epoch_probe_every=2), 3)
    assert [type(e) for e in events] == [Idle, Idle, EpochChange]
    assert sleeps.calls == [0.5]  # no wait_held on this venue: pause after a quiet reply
    assert events[2].rewound
    assert "wait" not in venue.seen[0].query  # a resumed follower catches up at once
    assert venue.seen[1].query["wait"] == "10"
    assert "since" not in venue.seen[3].query  # the probe is a cursor-free read


async def test_wait_not_held_sleeps_before_retrying():
    sleeps = Sleeps()
    async with scripted() as (venue, url):
        venue.add(json_reply(view(ROOM, [], last_seq=3)),
                  json_reply(view(ROOM, [], last_seq=3, wait_held=False)),
                  json_reply(view(ROOM, [], last_seq=3, wait_held=True)))
        async with VenueClient(url, retry=policy(sleeps)) as client:
            events = await _collect(client.follow(ROOM, since=3, wait_s=4), 2)
    assert events == [WaitNotHeld(ROOM, 4.0), Idle(ROOM, 3)]
    assert sleeps.calls == [4.0]
    assert [s.query.get("wait") for s in venue.seen] == [None, "4", "4"]


async def test_follow_raises_on_a_caller_error():
    async with scripted() as (venue, url):
        venue.add(text_reply("400 bad name 'x': expected /^[a-z0-9][a-z0-9_-]{0,47}$/\n", 400))
        async with VenueClient(url) as client:
            with pytest.raises(Exception, match="bad name"):
                await _collect(client.follow(ROOM, since=0), 1)


def _always(response: Response):
    async def handler(_request: Request) -> Response:
        return Response(response.body, status_code=response.status_code,
                        media_type=response.media_type)
    return handler


async def test_write_answered_in_text_is_accepted_without_a_record():
    async with scripted() as (venue, url):
        venue.add(text_reply("# room tclk-offers  messages 1  range 1..1\n", 200))
        async with VenueClient(url, PAYER) as client:
            result = await client.post(ROOM, "tclk1 text reply")
    assert result.record is None and result.seq is None and result.nonce > 0


async def test_post_and_await_raises_when_the_reply_may_have_been_dropped():
    async def accept(request: Request) -> Response:
        record = _record_from_post(await request.body(), "mb-p-callee", 1)
        return json_reply(view("mb-p-callee", [record], posted=record))

    replies = [signed(PAYEE, "mb-p-caller", s, f"reply {s}") for s in (9, 10)]
    async with scripted() as (venue, url):
        venue.add(
            json_reply(view("mb-p-caller", [], last_seq=5)),  # the cursor, read before writing
            accept,
            json_reply(view("mb-p-caller", replies)),  # since=5, but first_seq is 9
            Response(export_body(replies), media_type="application/x-ndjson",
                     headers={"X-Room-Generation": "1"}),
        )
        async with VenueClient(url, PAYER) as client:
            with pytest.raises(ReplyLost) as caught:
                await client.post_and_await("mb-p-callee", "request", reply_room="mb-p-caller",
                                            match=lambda r: r.text == "never", timeout_s=5)
    assert (caught.value.expected, caught.value.got) == (6, 9)
    assert [s.path for s in venue.seen] == ["/r/mb-p-caller", "/r/mb-p-callee", "/r/mb-p-caller",
                                            "/r/mb-p-caller/export"]
