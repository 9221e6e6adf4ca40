"""The signed lane: both shapes, the check order, the nonce rule and what gets stored."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from nacl.signing import VerifyKey

from tclk_tui.protocol.didkey import b58encode, public_key_from_did_key
from tests.rehearsal.support import SEED_1, SEED_2, Signer, first_line, lines

ROOM = "tclk-offers"
RFC1_DID = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
RFC1_SIG = "3i1ecaJ3TnVgSblppswbkWg0NY8C9dsJNUacz4bK2iRwznMIECyjqo-Fej5FsgO7bQb38rdIkb3rnzAksL8_Cw"
SIG_HEAD = "400 bad signature encoding: 86 base64url characters ending AQgw"


async def _messages(client: httpx.AsyncClient, room: str = ROOM) -> list[dict[str, object]]:
    return (await client.get(f"/r/{room}?format=json")).json()["messages"]


async def test_the_reference_vector_is_accepted_and_stored_with_sig(
    client: httpx.AsyncClient,
) -> None:
    signer = Signer(SEED_1)
    assert signer.did == RFC1_DID
    assert signer.message_sig(ROOM, 1, "hello") == RFC1_SIG
    response = await client.get(signer.say_path(ROOM, 1, "hello"))
    assert response.status_code == 200
    [record] = await _messages(client)
    assert record["from"] == RFC1_DID
    assert record["text"] == "hello"
    assert record["nonce"] == 1
    assert record["sig"] == RFC1_SIG
    assert list(record) == ["seq", "ts", "from", "text", "nonce", "sig"]


async def test_the_text_view_shows_a_verified_writer_abbreviated(
    client: httpx.AsyncClient,
) -> None:
    signer = Signer(SEED_1)
    response = await client.get(signer.say_path(ROOM, 1, "hello"))
    assert "<z6Mk…MMsw> hello" in response.text
    await client.get("/r/tclk-offers/say/bob/hi")
    assert "<~bob> hi" in (await client.get(f"/r/{ROOM}")).text


async def test_the_post_lane_signs_the_same_way_and_ignores_from(
    client: httpx.AsyncClient,
) -> None:
    signer = Signer()
    body = {**signer.post_body(ROOM, 7, "hello over post"), "from": "mallory"}
    response = await client.post(f"/r/{ROOM}?format=json", json=body)
    assert response.status_code == 200
    posted = response.json()["posted"]
    assert (posted["from"], posted["nonce"]) == (signer.did, 7)


async def test_the_signature_covers_the_swept_text(client: httpx.AsyncClient) -> None:
    signer = Signer()
    raw = "a\tb"
    refused = await client.post(f"/r/{ROOM}", json={**signer.post_body(ROOM, 1, raw)})
    assert refused.status_code == 403
    assert lines(refused)[:3] == [
        f"403 signature does not verify for {signer.did}.",
        "it must cover exactly this string, UTF-8, Ed25519, base64url:",
        f"{ROOM}|1|a b",
    ]
    body = {**signer.post_body(ROOM, 1, "a b"), "text": raw}
    assert (await client.post(f"/r/{ROOM}", json=body)).status_code == 200
    assert (await _messages(client))[0]["text"] == "a b"


async def test_a_signature_for_another_room_does_not_verify(client: httpx.AsyncClient) -> None:
    signer = Signer()
    sig = signer.message_sig("elsewhere", 1, "hello")
    response = await client.get(signer.say_path(ROOM, 1, "hello", sig=sig))
    assert response.status_code == 403
    assert first_line(response) == f"403 signature does not verify for {signer.did}."


@pytest.mark.parametrize("nonce", ["12a", "1.5", "1" * 20, "-1", "٣"])
async def test_a_malformed_nonce_is_a_400_naming_it(client: httpx.AsyncClient, nonce: str) -> None:
    signer = Signer()
    response = await client.post(f"/r/{ROOM}", json={**signer.post_body(ROOM, nonce, "x")})
    assert response.status_code == 400
    assert first_line(response) == f"400 nonce must be 1-19 digits, got {nonce!r}"


async def test_a_missing_nonce_is_the_empty_nonce(client: httpx.AsyncClient) -> None:
    signer = Signer()
    body = signer.post_body(ROOM, 1, "x")
    del body["nonce"]
    response = await client.post(f"/r/{ROOM}", json=body)
    assert first_line(response) == "400 nonce must be 1-19 digits, got ''"


@pytest.mark.parametrize(
    ("did", "head"),
    [
        ("did:web:example.com", "400 bad did:key: expected did:key:z6Mk..."),
        ("did:key:z6Mk", "400 bad did:key: expected 48 multibase characters starting 'z', got 4"),
        ("did:key:z6Mk" + "0" * 44, "400 bad did:key: '0' is not base58btc"),
        (
            "did:key:z" + b58encode(b"\xed\x02" + bytes(range(32))),
            "400 bad did:key: only ed25519-pub (z6Mk...) keys are accepted",
        ),
    ],
)
async def test_a_bad_did_is_a_400(client: httpx.AsyncClient, did: str, head: str) -> None:
    signer = Signer()
    body = {**signer.post_body(ROOM, 1, "x"), "did": did}
    response = await client.post(f"/r/{ROOM}", json=body)
    assert response.status_code == 400
    assert first_line(response) == head


async def test_a_padded_signature_is_a_400(client: httpx.AsyncClient) -> None:
    signer = Signer()
    padded = signer.message_sig(ROOM, 1, "x") + "=="
    response = await client.get(signer.say_path(ROOM, 1, "x", sig=padded))
    assert response.status_code == 400
    assert first_line(response) == SIG_HEAD


async def test_a_non_canonical_last_character_is_a_400(client: httpx.AsyncClient) -> None:
    signer = Signer()
    sig = signer.message_sig(ROOM, 1, "x")
    bent = sig[:-1] + {"A": "B", "Q": "R", "g": "h", "w": "x"}[sig[-1]]
    assert base64.urlsafe_b64decode(bent + "==") == base64.urlsafe_b64decode(sig + "==")
    response = await client.get(signer.say_path(ROOM, 1, "x", sig=bent))
    assert response.status_code == 400
    assert first_line(response) == SIG_HEAD


async def test_checks_run_nonce_then_did_then_signature(client: httpx.AsyncClient) -> None:
    body = {"did": "did:web:x", "sig": "short", "nonce": "x", "text": "t"}
    response = await client.post(f"/r/{ROOM}", json=body)
    assert first_line(response).startswith("400 nonce must be")
    body["nonce"] = "1"
    response = await client.post(f"/r/{ROOM}", json=body)
    assert first_line(response).startswith("400 bad did:key")


async def test_a_replayed_or_lower_nonce_is_a_400(client: httpx.AsyncClient) -> None:
    signer = Signer()
    path = signer.say_path(ROOM, 5, "first")
    assert (await client.get(path)).status_code == 200
    replay = await client.get(path)
    assert replay.status_code == 400
    assert first_line(replay) == (
        f"400 nonce 5 is not greater than 5, the last one this key used in /r/{ROOM} — a "
        "signed URL is single-use, so count up"
    )
    lower = await client.get(signer.say_path(ROOM, 4, "second"))
    assert first_line(lower).startswith("400 nonce 4 is not greater than 5,")
    assert (await client.get(signer.say_path(ROOM, 6, "third"))).status_code == 200


async def test_nonces_are_per_key_and_per_room(client: httpx.AsyncClient) -> None:
    alice, bob = Signer(SEED_1), Signer(SEED_2)
    assert (await client.get(alice.say_path(ROOM, 10, "a"))).status_code == 200
    assert (await client.get(bob.say_path(ROOM, 0, "b"))).status_code == 200
    assert (await client.get(alice.say_path("other", 1, "c"))).status_code == 200


async def test_the_first_nonce_of_a_key_may_be_zero(client: httpx.AsyncClient) -> None:
    response = await client.get(Signer().say_path(ROOM, 0, "zero"))
    assert response.status_code == 200


async def test_a_post_nonce_must_be_a_json_string(client: httpx.AsyncClient) -> None:
    signer = Signer()
    body: dict[str, object] = {**signer.post_body(ROOM, 7, "x"), "nonce": 7}
    response = await client.post(f"/r/{ROOM}", json=body)
    assert response.status_code == 400
    assert first_line(response) == "400 bad nonce: must be a string"


@pytest.mark.parametrize("field", ["did", "sig", "text", "from"])
async def test_every_post_field_must_be_a_string(client: httpx.AsyncClient, field: str) -> None:
    signer = Signer()
    body: dict[str, object] = {**signer.post_body(ROOM, 7, "x"), field: 1}
    response = await client.post(f"/r/{ROOM}", json=body)
    assert first_line(response) == f"400 bad {field}: must be a string"


async def test_leading_zeros_are_signed_as_sent_and_stored_as_the_integer(
    client: httpx.AsyncClient,
) -> None:
    signer = Signer()
    assert (await client.get(signer.say_path(ROOM, "000123", "zeros"))).status_code == 200
    [record] = await _messages(client)
    assert record["nonce"] == 123


async def test_a_19_digit_nonce_is_kept_exact(client: httpx.AsyncClient) -> None:
    signer = Signer()
    nonce = "9" * 19
    assert (await client.get(signer.say_path(ROOM, nonce, "big"))).status_code == 200
    export = (await client.get(f"/r/{ROOM}/export")).content
    assert b'"nonce":9999999999999999999,' in export
    record = json.loads(export)
    assert record["nonce"] == int(nonce)


async def test_an_exported_signed_line_re_verifies_offline(client: httpx.AsyncClient) -> None:
    signer = Signer()
    text = "préavis — 日本 🎉"
    assert (await client.post(f"/r/{ROOM}", json=signer.post_body(ROOM, 42, text))).is_success
    record = json.loads((await client.get(f"/r/{ROOM}/export")).content)
    key = public_key_from_did_key(record["from"])
    assert key is not None
    payload = f"{ROOM}|{record['nonce']}|{record['text']}".encode()
    signature = base64.urlsafe_b64decode(record["sig"] + "==")
    VerifyKey(key).verify(payload, signature)


async def test_mailboxes_take_signed_writes_only(client: httpx.AsyncClient) -> None:
    room = "mb-p-inbox"
    unsigned_get = await client.get(f"/r/{room}/say/bob/hi")
    unsigned_post = await client.post(f"/r/{room}", json={"from": "bob", "text": "hi"})
    for response in (unsigned_get, unsigned_post):
        assert response.status_code == 403
        assert lines(response)[:2] == [
            f"403 /r/{room} is a mailbox (mb-): it takes signed writes only, so a message in "
            "it is attributable and a sender can be ignored by key.",
            f"send: GET /r/{room}/say-signed/<did:key>/<sig>/<nonce>/<text> — see /llms.txt",
        ]
    assert (await client.get(Signer().say_path(room, 1, "signed"))).status_code == 200
    footer = (await client.get(f"/r/{room}")).text
    assert f"say:  /r/{room}/say-signed/<did>/<sig>/<nonce>/<text%20url%20encoded>" in footer


async def test_a_signature_failure_wins_over_the_mailbox_gate(client: httpx.AsyncClient) -> None:
    signer = Signer()
    sig = signer.message_sig("mb-x", 1, "other text")
    response = await client.get(signer.say_path("mb-x", 1, "x", sig=sig))
    assert response.status_code == 403
    assert first_line(response).startswith("403 signature does not verify")
