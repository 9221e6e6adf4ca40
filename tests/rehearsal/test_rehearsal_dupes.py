"""The duplicate filter: the copy limit per room, across senders, with its 422 body."""

from __future__ import annotations

import httpx

from tclk_tui.rehearsal.dupes import normalise
from tclk_tui.rehearsal.server import VenueConfig
from tests.rehearsal.support import Clock, Signer, VenueFactory, first_line, http, lines, say

TEXT = "the same sentence, posted again"


async def _client(
    venue_factory: VenueFactory, **options: object
) -> tuple[httpx.AsyncClient, Clock]:
    clock = Clock()
    running = await venue_factory(VenueConfig(clock=clock, **options))  # type: ignore[arg-type]
    return http(running.url), clock


async def test_the_sixth_copy_in_the_window_is_a_422(venue_factory: VenueFactory) -> None:
    client, _ = await _client(venue_factory)
    async with client:
        for _ in range(5):
            assert (await client.get(say("lobby", "bob", TEXT))).status_code == 200
        refused = await client.get(say("lobby", "bob", TEXT))
    assert refused.status_code == 422
    assert "retry-after" not in refused.headers
    body = lines(refused)
    assert body[0] == (
        "422 duplicate text: /r/lobby already holds 5 copies of this message from the last "
        "60s; more are refused until that window passes."
    )
    assert body[1].startswith("not a rate limit:")
    assert body[4].startswith("optional: add &ref=422-")


async def test_copies_count_across_senders_lanes_and_spelling(venue_factory: VenueFactory) -> None:
    client, _ = await _client(venue_factory)
    signer = Signer()
    async with client:
        await client.get(say("lobby", "ann", TEXT))
        await client.post("/r/lobby", json={"from": "bob", "text": TEXT.upper()})
        await client.get(signer.say_path("lobby", 1, TEXT.replace(" ", "  ")))
        swept = TEXT.replace(" posted", "  posted")
        raw = TEXT.replace(" posted", " \u200bposted")
        zero_width = {**signer.post_body("lobby", 2, swept), "text": raw}
        await client.post("/r/lobby", json=zero_width)
        await client.get(say("lobby", "eve", f"{TEXT} &ref=422-6a0f0c00-ab12"))
        refused = await client.post("/r/lobby", json=signer.post_body("lobby", 3, TEXT))
        other = await client.post("/r/lobby", json=signer.post_body("lobby", 4, TEXT + " x"))
    assert refused.status_code == 422
    assert other.status_code == 200


async def test_rooms_count_separately(venue_factory: VenueFactory) -> None:
    client, _ = await _client(venue_factory, dupe_max_copies=1)
    async with client:
        assert (await client.get(say("one", "bob", TEXT))).status_code == 200
        assert (await client.get(say("two", "bob", TEXT))).status_code == 200
        assert (await client.get(say("one", "bob", TEXT))).status_code == 422


async def test_short_texts_are_exempt(venue_factory: VenueFactory) -> None:
    client, _ = await _client(venue_factory, dupe_max_copies=1)
    async with client:
        statuses = [(await client.get(say("lobby", "bob", "ok"))).status_code for _ in range(4)]
    assert statuses == [200] * 4


async def test_the_text_lands_again_once_the_window_passes(venue_factory: VenueFactory) -> None:
    client, clock = await _client(venue_factory, dupe_max_copies=2)
    async with client:
        await client.get(say("lobby", "bob", TEXT))
        clock.advance(30)
        await client.get(say("lobby", "bob", TEXT))
        clock.advance(20)
        assert (await client.get(say("lobby", "bob", TEXT))).status_code == 422
        clock.advance(11)
        assert (await client.get(say("lobby", "bob", TEXT))).status_code == 200


async def test_refusals_do_not_extend_the_window(venue_factory: VenueFactory) -> None:
    client, clock = await _client(venue_factory, dupe_max_copies=1)
    async with client:
        await client.get(say("lobby", "bob", TEXT))
        for _ in range(3):
            clock.advance(15)
            assert (await client.get(say("lobby", "bob", TEXT))).status_code == 422
        clock.advance(16)
        assert (await client.get(say("lobby", "bob", TEXT))).status_code == 200


async def test_a_zero_window_turns_the_filter_off(venue_factory: VenueFactory) -> None:
    client, _ = await _client(venue_factory, dupe_filter_seconds=0)
    async with client:
        statuses = [(await client.get(say("lobby", "bob", TEXT))).status_code for _ in range(8)]
    assert statuses == [200] * 8


async def test_a_store_refusal_is_not_counted(venue_factory: VenueFactory) -> None:
    client, _ = await _client(venue_factory, dupe_max_copies=1)
    async with client:
        bad_nick = await client.get(say("lobby", "Bob", TEXT))
        assert bad_nick.status_code == 400
        assert (await client.get(say("lobby", "bob", TEXT))).status_code == 200


async def test_the_mailbox_gate_runs_before_the_filter(venue_factory: VenueFactory) -> None:
    client, _ = await _client(venue_factory, dupe_max_copies=1)
    async with client:
        signer = Signer()
        await client.post("/r/mb-box", json=signer.post_body("mb-box", 1, TEXT))
        unsigned = await client.post("/r/mb-box", json={"from": "bob", "text": TEXT})
    assert first_line(unsigned).startswith("403 /r/mb-box is a mailbox")


def test_normalisation_folds_case_space_compatibility_and_ref() -> None:
    assert normalise("  Ｈｅｌｌｏ\tWORLD\u200b  &ref=422-6a0f0c00-ab12 ") == "hello world"
