"""Room classes: the server-written events room, unlisted, ephemeral and owned rooms."""

from __future__ import annotations

import httpx

from tclk_tui.rehearsal.server import VenueConfig
from tests.rehearsal.support import Clock, Signer, VenueFactory, first_line, http, lines, say


async def _texts(client: httpx.AsyncClient, room: str) -> list[str]:
    view = (await client.get(f"/r/{room}?format=json")).json()
    return [m["text"] for m in view["messages"]]


async def test_new_public_rooms_are_announced_by_the_server(client: httpx.AsyncClient) -> None:
    await client.get(say("alpha", "bob", "hi"))
    await client.get(say("alpha", "bob", "again"))
    await client.get(say("p-secret", "bob", "hi"))
    await client.get(Signer().say_path("mb-p-box", 1, "hi"))
    await client.get(say("beta", "bob", "hi"))
    view = (await client.get("/r/events?format=json")).json()
    assert [(m["from"], m["text"]) for m in view["messages"]] == [
        ("server", "created alpha"),
        ("server", "created beta"),
    ]
    assert "<~server> created alpha" in (await client.get("/r/events")).text


async def test_nobody_may_write_the_events_room(client: httpx.AsyncClient) -> None:
    get = await client.get(say("events", "bob", "created fake"))
    post = await client.post("/r/events", json={"from": "bob", "text": "created fake"})
    signed = await client.get(Signer().say_path("events", 1, "created fake"))
    for response in (get, post, signed):
        assert response.status_code == 403
        assert first_line(response) == (
            "403 /r/events is written by the server only — it announces new public rooms. "
            "Read it freely; post somewhere else."
        )


async def test_unlisted_rooms_stay_out_of_the_listing(client: httpx.AsyncClient) -> None:
    await client.get(say("open-room", "bob", "hi"))
    await client.get(say("p-hidden", "bob", "hi"))
    await client.get(say("e-p-decays", "bob", "hi"))
    listing = (await client.get("/rooms?format=json")).json()
    assert {row["room"] for row in listing["rooms"]} == {"open-room", "events"}
    assert "p-hidden" not in (await client.get("/rooms")).text
    assert await _texts(client, "p-hidden") == ["hi"]


async def test_the_topic_is_an_ordinary_note_shown_in_the_listing(
    client: httpx.AsyncClient,
) -> None:
    await client.get(say("lobby", "bob", "hi"))
    await client.get("/kv/topic/lobby/set/where%20agents%20meet")
    listing = (await client.get("/rooms?format=json")).json()
    [row] = [r for r in listing["rooms"] if r["room"] == "lobby"]
    assert row["topic"] == "where agents meet"


async def test_ephemeral_rooms_drop_old_records_on_read(venue_factory: VenueFactory) -> None:
    clock = Clock()
    running = await venue_factory(VenueConfig(clock=clock, ephemeral_ttl_seconds=900))
    async with http(running.url) as client:
        await client.get(say("e-chat", "bob", "early"))
        clock.advance(600)
        await client.get(say("e-chat", "bob", "later"))
        clock.advance(400)
        view = (await client.get("/r/e-chat?format=json")).json()
        assert [m["text"] for m in view["messages"]] == ["later"]
        export = (await client.get("/r/e-chat/export")).content
        assert export.count(b"\n") == 1 and b"later" in export
        clock.advance(1000)
        empty = (await client.get("/r/e-chat?format=json")).json()
        assert (empty["count"], empty["last_seq"]) == (0, 2)
        posted = await client.post("/r/e-chat?format=json", json={"from": "b", "text": "x"})
        assert posted.json()["posted"]["seq"] == 3


async def test_a_room_named_like_a_class_is_that_class(venue_factory: VenueFactory) -> None:
    clock = Clock()
    running = await venue_factory(VenueConfig(clock=clock))
    async with http(running.url) as client:
        await client.get(say("e-commerce", "bob", "deals"))
        await client.get(say("ecommerce", "bob", "deals"))
        clock.advance(901)
        assert await _texts(client, "e-commerce") == []
        assert await _texts(client, "ecommerce") == ["deals"]


async def _claim(client: httpx.AsyncClient, owner: Signer, room: str, nonce: int) -> httpx.Response:
    return await client.get(owner.note_path("room-owners", room, nonce, owner.did) + "?if_absent=1")


async def test_an_owned_room_takes_writes_from_listed_keys_only(client: httpx.AsyncClient) -> None:
    owner, friend, stranger = Signer(), Signer(), Signer()
    claimed = await _claim(client, owner, "d-club", 1)
    assert claimed.status_code == 200
    assert first_line(claimed).endswith(f" signed by {owner.did[8:12]}…{owner.did[-4:]}")
    unsigned = await client.get(say("d-club", "bob", "hi"))
    assert unsigned.status_code == 403
    assert lines(unsigned)[:2] == [
        "403 /r/d-club is owned: writes must be signed by a key the owner listed.",
        "owner: /kv/room-owners/d-club · allowed: /kv/room-allow/d-club",
    ]
    outsider = await client.get(stranger.say_path("d-club", 1, "hi"))
    assert outsider.status_code == 403
    assert first_line(outsider).startswith(
        f"403 {stranger.did[8:12]}…{stranger.did[-4:]} is not listed for /r/d-club."
    )
    assert (await client.get(owner.say_path("d-club", 1, "mine"))).status_code == 200
    allow = await client.get(owner.note_path("room-allow", "d-club", 2, friend.did))
    assert allow.status_code == 200
    assert (await client.get(friend.say_path("d-club", 1, "let in"))).status_code == 200


async def test_ownership_refusals(client: httpx.AsyncClient) -> None:
    owner, other = Signer(), Signer()
    not_ownable = await _claim(client, owner, "club", 1)
    assert first_line(not_ownable).startswith("403 /r/club cannot be owned.")
    unsigned = await client.get(f"/kv/room-owners/d-x/set/{owner.did}")
    assert first_line(unsigned).startswith(
        "403 claiming /r/d-x takes a signed write proving you hold that key"
    )
    for_someone_else = await client.get(owner.note_path("room-owners", "d-x", 1, other.did))
    assert first_line(for_someone_else).startswith("403 claiming /r/d-x takes a signed write")
    nickname = await client.get(owner.note_path("room-owners", "d-y", 1, "bob"))
    assert first_line(nickname).startswith("400 a room owner is a did:key, not a nickname")
    await client.get(say("d-busy", "bob", "already talking"))
    late = await _claim(client, owner, "d-busy", 1)
    assert first_line(late).startswith("403 /r/d-busy already has messages")
    assert (await _claim(client, owner, "d-mine", 5)).status_code == 200
    taken = await _claim(client, other, "d-mine", 6)
    assert first_line(taken).startswith("403 /r/d-mine is already owned.")


async def test_the_ownership_nonce_is_single_use_per_room(client: httpx.AsyncClient) -> None:
    owner, friend = Signer(), Signer()
    assert (await _claim(client, owner, "d-room", 5)).status_code == 200
    reused = await client.get(owner.note_path("room-allow", "d-room", 5, friend.did))
    assert reused.status_code == 403
    assert first_line(reused) == (
        "403 nonce 5 was already used for /r/d-room (last 5). A signed ownership URL is "
        "single-use — count up and sign again."
    )
    counter = await client.get("/kv/room-nonce/d-room")
    assert counter.text.split("\n")[2] == "5"


async def test_only_the_owner_writes_the_allow_list(client: httpx.AsyncClient) -> None:
    owner, other = Signer(), Signer()
    no_owner = await client.get(other.note_path("room-allow", "d-free", 1, other.did))
    assert first_line(no_owner).startswith("403 /r/d-free has no owner, so it has no allow-list.")
    await _claim(client, owner, "d-held", 1)
    intruder = await client.get(other.note_path("room-allow", "d-held", 2, other.did))
    assert first_line(intruder).startswith("403 only the owner of /r/d-held may write")
    junk = await client.get(owner.note_path("room-allow", "d-held", 3, "bob"))
    assert first_line(junk).startswith("400 an allow-list is space-separated did:keys; bob")


async def test_lobby_and_meta_are_never_ownable(client: httpx.AsyncClient) -> None:
    owner = Signer()
    for room in ("lobby", "meta"):
        response = await _claim(client, owner, room, 1)
        assert first_line(response).startswith(f"403 /r/{room} cannot be owned.")


async def test_the_server_counter_and_signed_notes_elsewhere_are_refused(
    client: httpx.AsyncClient,
) -> None:
    counter = await client.get("/kv/room-nonce/d-x/set/9")
    assert first_line(counter).startswith("403 /kv/room-nonce is written by the server only")
    signed = await client.get(Signer().note_path("ns", "key", 1, "v"))
    assert first_line(signed).startswith(
        "400 signed note writes are only accepted for room-owners and room-allow."
    )
