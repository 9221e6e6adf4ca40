"""The single-line sweep and the size caps, which are counted after it."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.rehearsal.errors import Refusal
from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.rehearsal.venue import Venue
from tclk_tui.technocore.sweep import single_line_sweep
from tests.rehearsal.support import first_line, say

EMPTY_HEAD = "400 empty text: nothing visible was left after the single-line sweep"


async def _stored(client: httpx.AsyncClient, room: str = "lobby") -> list[str]:
    view = (await client.get(f"/r/{room}?format=json")).json()
    return [m["text"] for m in view["messages"]]


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("a\tb\rc", "a b c"),
        ("a\x00b", "a b"),
        ("a\u200bb 👨\u200d👩\u200d👧", "a b 👨 👩 👧"),
        ("hi\U000e0041\U000e0042there", "hi  there"),
        ("x\u2028y\u2029z", "x y z"),
        ("abc\u202edef", "abc def"),
        ("ok\ufe0fgo\u3164x\U000e0100y", "ok go x y"),
        ("héllo wörld — 日本語 🎉 Ω", "héllo wörld — 日本語 🎉 Ω"),
        ("  padded\n", "padded"),
        ("keep\u00a0inner\u3000spaces", "keep\u00a0inner\u3000spaces"),
    ],
)
async def test_post_text_is_swept_to_one_line(
    client: httpx.AsyncClient, sent: str, stored: str
) -> None:
    response = await client.post("/r/lobby", json={"from": "bob", "text": sent})
    assert response.status_code == 200
    assert await _stored(client) == [stored]


async def test_get_text_is_swept_too(client: httpx.AsyncClient) -> None:
    await client.get("/r/lobby/say/bob/a%09b%0Dc%00d%7Fe%C2%85f")
    assert await _stored(client) == ["a b c d e f"]


@pytest.mark.parametrize("text", ["   ", "\u200b\u200d", "\t\r"])
async def test_text_with_nothing_visible_left_is_a_400(
    client: httpx.AsyncClient, text: str
) -> None:
    response = await client.post("/r/lobby", json={"from": "bob", "text": text})
    assert response.status_code == 400
    assert first_line(response).startswith(EMPTY_HEAD)


async def test_messages_cap_at_4096_code_points_after_the_sweep(
    client: httpx.AsyncClient,
) -> None:
    ok = await client.post("/r/lobby", json={"from": "bob", "text": " " * 10 + "x" * 4096 + " "})
    emoji = await client.post("/r/lobby", json={"from": "bob", "text": "🎉" * 4096})
    over = await client.post("/r/lobby", json={"from": "bob", "text": "x" * 4097})
    assert (ok.status_code, emoji.status_code) == (200, 200)
    assert over.status_code == 400
    assert first_line(over).startswith("400 text too long: 4097 characters, and the limit is 4096.")


async def test_the_get_lane_has_the_same_cap(client: httpx.AsyncClient) -> None:
    assert (await client.get(say("lobby", "bob", "y" * 4096))).status_code == 200
    over = await client.get(say("lobby", "bob", "y" * 4097))
    assert over.status_code == 400
    assert first_line(over).startswith("400 text too long: 4097 characters")


async def test_notes_cap_at_8192_and_are_swept(client: httpx.AsyncClient) -> None:
    ok = await client.post("/kv/ns/big", json={"value": "€" * 8192})
    over = await client.post("/kv/ns/big", json={"value": "€" * 8193})
    assert ok.status_code == 200
    assert over.status_code == 400
    assert first_line(over).startswith("400 text too long: 8193 characters, and the limit is 8192.")
    await client.post("/kv/ns/line", json={"value": "two\nlines"})
    assert (await client.get("/kv/ns/line")).text.split("\n")[2] == "two lines"


async def test_the_server_never_normalises(client: httpx.AsyncClient) -> None:
    await client.post("/r/lobby", json={"from": "bob", "text": "Vi\u1ec7t"})
    await client.post("/r/lobby", json={"from": "bob", "text": "Vie\u0323\u0302t"})
    assert await _stored(client) == ["Vi\u1ec7t", "Vie\u0323\u0302t"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_the_model_stores_exactly_the_sweep_of_any_text(text: str) -> None:
    venue = Venue()
    expected = single_line_sweep(text)
    try:
        record = venue.write_message("lobby", text, client="t", nick="bob")
    except Refusal as refusal:
        assert expected == ""
        assert refusal.body.startswith(EMPTY_HEAD)
        return
    assert record["text"] == expected


async def test_a_message_is_stored_once_whatever_its_content(venue: RunningVenue) -> None:
    model = venue.venue
    model.write_message("lobby", "one\ntwo", client="t", nick="bob")
    body, _ = model.export("lobby")
    assert body.count(b"\n") == 1
