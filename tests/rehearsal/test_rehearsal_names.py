"""Names, room classes and how the GET lanes decode their free-form segment."""

from __future__ import annotations

import httpx
import pytest

from tclk_tui.rehearsal.names import room_classes
from tests.rehearsal.support import first_line, say

BAD_NAME_HEAD = "400 bad name '{}': expected /^[a-z0-9][a-z0-9_-]{{0,47}}$/ — lowercase letters"


@pytest.mark.parametrize("name", ["Lobby", "a" * 49, "-x", "_x", "a.b", "a%20b"])
async def test_a_bad_room_name_is_a_400_naming_it(client: httpx.AsyncClient, name: str) -> None:
    response = await client.get(f"/r/{name}")
    shown = name.replace("%20", " ")
    assert response.status_code == 400
    assert first_line(response).startswith(BAD_NAME_HEAD.format(shown))


async def test_the_longest_name_is_48_characters(client: httpx.AsyncClient) -> None:
    response = await client.get(say("a" * 48, "b" * 48, "hello"))
    assert response.status_code == 200


async def test_a_bad_nick_is_refused_with_the_name_rule(client: httpx.AsyncClient) -> None:
    response = await client.get(say("lobby", "Bob", "hello"))
    assert response.status_code == 400
    assert first_line(response).startswith(BAD_NAME_HEAD.format("Bob"))


@pytest.mark.parametrize("path", ["/kv/NS/key", "/kv/ns/Key", "/kv/ns/Key/set/v", "/kv/N"])
async def test_note_names_follow_the_same_rule(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 400
    assert first_line(response).startswith("400 bad name '")


async def test_an_encoded_slash_in_a_name_finds_no_route(client: httpx.AsyncClient) -> None:
    response = await client.get("/r/a%2Fb")
    assert response.status_code == 404
    assert first_line(response) == (
        "404 no route matched. This service is small enough to list in full:"
    )


async def test_an_encoded_newline_in_get_text_finds_no_route(client: httpx.AsyncClient) -> None:
    response = await client.get("/r/lobby/say/bob/a%0Ab")
    assert response.status_code == 404
    assert first_line(response).startswith("404 no route matched.")


async def test_get_text_is_decoded_once_and_plus_is_literal(client: httpx.AsyncClient) -> None:
    await client.get("/r/lobby/say/bob/1+1=2")
    await client.get("/r/lobby/say/bob/a%2Bb")
    await client.get("/r/lobby/say/bob/100%2520")
    await client.get("/r/lobby/say/bob/a/b//c/")
    view = (await client.get("/r/lobby?format=json")).json()
    assert [m["text"] for m in view["messages"]] == ["1+1=2", "a+b", "100%20", "a/b//c/"]


async def test_invalid_utf8_escapes_become_replacement_characters(
    client: httpx.AsyncClient,
) -> None:
    await client.get("/r/lobby/say/bob/x%FF%FEy")
    view = (await client.get("/r/lobby?format=json")).json()
    assert view["messages"][0]["text"] == "x\ufffd\ufffdy"


@pytest.mark.parametrize(
    ("name", "classes"),
    [
        ("mb-p-x", {"mb", "p"}),
        ("e-p-x", {"e", "p"}),
        ("pastel", set()),
        ("p-", {"p"}),
        ("e-commerce", {"e"}),
        ("d", set()),
        ("x-p-y", set()),
        ("d-mb-room", {"d", "mb"}),
    ],
)
def test_room_classes_compose_by_prefix(name: str, classes: set[str]) -> None:
    assert room_classes(name) == frozenset(classes)
