"""Small helpers for the rehearsal-venue tests: a signer, a pinned clock, body lines."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import quote

import httpx
from nacl.signing import SigningKey

from tclk_tui.protocol.didkey import did_key_from_public_key
from tclk_tui.rehearsal.runner import RunningVenue

# RFC 8032 test 1 and 2 seeds (the digest's payer and payee).
SEED_1 = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
SEED_2 = bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
T0 = 1_790_000_000.0

# What the `venue_factory` fixture hands a test: `await venue_factory(config, data_dir)`.
VenueFactory = Callable[..., Awaitable[RunningVenue]]


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


class Signer:
    """An Ed25519 did:key that signs venue payloads the way the manual says."""

    def __init__(self, seed: bytes | None = None) -> None:
        self.key = SigningKey(seed) if seed is not None else SigningKey.generate()
        self.did = did_key_from_public_key(bytes(self.key.verify_key))

    def sign(self, payload: str) -> str:
        return b64url(self.key.sign(payload.encode("utf-8")).signature)

    def message_sig(self, room: str, nonce: str | int, text: str) -> str:
        return self.sign(f"{room}|{nonce}|{text}")

    def say_path(self, room: str, nonce: str | int, text: str, sig: str | None = None) -> str:
        signature = sig if sig is not None else self.message_sig(room, nonce, text)
        return f"/r/{room}/say-signed/{self.did}/{signature}/{nonce}/{quote(text, safe='')}"

    def post_body(self, room: str, nonce: str | int, text: str) -> dict[str, str]:
        return {
            "did": self.did,
            "sig": self.message_sig(room, nonce, text),
            "nonce": str(nonce),
            "text": text,
        }

    def note_path(self, ns: str, key: str, nonce: str | int, value: str) -> str:
        sig = self.sign(f"{ns}|{key}|{nonce}|{value}")
        return f"/kv/{ns}/{key}/set-signed/{self.did}/{sig}/{nonce}/{quote(value, safe='')}"


@dataclass
class Clock:
    """A venue clock a test moves by hand."""

    now: float = T0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def say(room: str, nick: str, text: str) -> str:
    return f"/r/{room}/say/{nick}/{quote(text, safe='')}"


def first_line(response: httpx.Response) -> str:
    return response.text.split("\n", 1)[0]


def lines(response: httpx.Response) -> list[str]:
    return response.text.split("\n")


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait for a condition with bounded polling (never a fixed sleep)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.002)


def http(base_url: str, timeout: float = 20.0) -> httpx.AsyncClient:
    """A loopback client. Plain http needs no TLS context, and building the default one
    (loading the CA bundle) costs more than most of these tests."""
    return httpx.AsyncClient(base_url=base_url, timeout=timeout, verify=False)
