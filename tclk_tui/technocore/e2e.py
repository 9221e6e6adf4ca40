"""End-to-end sealing over venue rooms: the venue's pattern 4, with its signed `e2e:` record.

The DID note is world-writable, so a bare `x25519:` token is a nickname wearing maths: a sender
seals only to the key of an `e2e:` record the recipient's did:key signed
(`e2e|<did>|<x25519_b64url>|<mailbox>|<nonce>`), takes the highest verifying nonce, and refuses
one lower than it has already used for that peer (a replayed old record would point it at a
retired key or mailbox). One delivery seals a fresh room key K and a fresh `p-` room name to that
key with a fresh ephemeral X25519 key:

    shared = HKDF-SHA256(X25519(eph, recipient_static), info="technocore-e2e-v1")
    e2e1 <eph_pub> <seal_nonce> <AESGCM(shared).encrypt(seal_nonce, K || room_name)>

and then both sides write `<msg_nonce>.<AESGCM(K).encrypt(msg_nonce, line)>` into that room, a
fresh 12-byte nonce for every line (K is long-lived: one repeated nonce leaks two plaintexts).
All base64url, unpadded. Nothing here is hand-rolled: `cryptography` does X25519, HKDF, AES-GCM.

Every parse here reads stranger-written text and fails closed with an `E2EError` that says why.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from tclk_tui.technocore.identity import (
    MAX_TEXT_CHARS,
    NONCE_RE,
    Identity,
    is_name,
    verify_signature,
)

INFO = b"technocore-e2e-v1"
SEAL_PREFIX = "e2e1"
RECORD_TOKEN = "e2e:"  # noqa: S105 (a note token, not a password)
KEY_LEN = 32
NONCE_LEN = 12
TAG_LEN = 16
MAX_PLAIN_BYTES = 2000
"""Plaintext bytes per room line: 2000 bytes seal to 2706 characters, inside the 4096 cap."""

RandBytes = Callable[[int], bytes]
_B64URL_RE = re.compile(r"[A-Za-z0-9_-]*")


class E2EError(Exception):
    """Stranger-written E2E input refused; the message says why (never echoing key bytes)."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str, what: str) -> bytes:
    if not isinstance(text, str) or not text.isascii() or _B64URL_RE.fullmatch(text) is None \
            or len(text) % 4 == 1:
        raise E2EError(f"{what} is not unpadded base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise E2EError(f"{what} is not unpadded base64url") from None


# ── keys ─────────────────────────────────────────────────────────────────────────────────────


def x25519_public(private: bytes) -> bytes:
    """The public key of a raw 32-byte X25519 private key (clamping is X25519's own)."""
    if len(private) != KEY_LEN:
        raise ValueError("an X25519 private key is 32 bytes")
    return X25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()


def _shared_key(private: X25519PrivateKey, public: bytes) -> bytes:
    try:
        peer = X25519PublicKey.from_public_bytes(public)
        shared = private.exchange(peer)
    except ValueError:
        # A low-order point gives an all-zero secret, which `cryptography` refuses.
        raise E2EError("the X25519 public key is not usable (low-order point)") from None
    return HKDF(algorithm=hashes.SHA256(), length=KEY_LEN, salt=None, info=INFO).derive(shared)


# ── the signed e2e: record ───────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class E2ERecord:
    """One `e2e:` record whose signature verified against `did`."""

    did: str
    x25519: bytes
    mailbox: str
    nonce: int

    @property
    def x25519_b64(self) -> str:
        return b64url(self.x25519)


def record_payload(did: str, x25519_b64: str, mailbox: str, nonce: int | str) -> bytes:
    """The bytes the record's signature covers: `e2e|<did>|<x25519_b64url>|<mailbox>|<nonce>`."""
    return f"e2e|{did}|{x25519_b64}|{mailbox}|{nonce}".encode()


def make_record(identity: Identity, x25519_pub: bytes, mailbox: str, nonce: int) -> str:
    """The note fragment `e2e: <x25519_b64url> <mailbox> <nonce> <sig>`, signed by identity."""
    if len(x25519_pub) != KEY_LEN:
        raise ValueError("an X25519 public key is 32 bytes")
    if not is_name(mailbox):
        raise ValueError(f"not a venue room name: {mailbox!r}")
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0 \
            or NONCE_RE.fullmatch(str(nonce)) is None:
        raise ValueError("an e2e record nonce is a non-negative integer of at most 19 digits")
    x_b64 = b64url(x25519_pub)
    sig = identity.sign_payload(record_payload(identity.did, x_b64, mailbox, nonce))
    return f"{RECORD_TOKEN} {x_b64} {mailbox} {nonce} {sig}"


@dataclass(frozen=True, slots=True)
class RecordScan:
    """Every `e2e:` record in a note: the verifying ones and the refused ones with reasons."""

    records: tuple[E2ERecord, ...]
    refused: tuple[str, ...]

    def best(self) -> E2ERecord | None:
        return max(self.records, key=lambda r: r.nonce, default=None)


def scan_records(did: str, note_value: str) -> RecordScan:
    """Parse and verify every `e2e:` record in a DID note value against `did`."""
    tokens = note_value.split()
    good: list[E2ERecord] = []
    refused: list[str] = []
    for index, token in enumerate(tokens):
        if token != RECORD_TOKEN:
            continue
        fields = tokens[index + 1:index + 5]
        if len(fields) != 4:
            refused.append("an e2e: record with fewer than four fields")
            continue
        x_b64, mailbox, nonce, sig = fields
        try:
            key = unb64url(x_b64, "the record's x25519 key")
        except E2EError as exc:
            refused.append(str(exc))
            continue
        if len(key) != KEY_LEN or b64url(key) != x_b64:
            refused.append("the record's x25519 key is not 32 bytes in canonical base64url")
        elif not is_name(mailbox):
            refused.append("the record's mailbox is not a venue room name")
        elif NONCE_RE.fullmatch(nonce) is None:
            refused.append("the record's nonce is not canonical decimal digits")
        elif not verify_signature(did, record_payload(did, x_b64, mailbox, nonce), sig):
            refused.append(f"the e2e: record with nonce {nonce} is not signed by this did:key")
        else:
            good.append(E2ERecord(did=did, x25519=key, mailbox=mailbox, nonce=int(nonce)))
    return RecordScan(records=tuple(good), refused=tuple(refused))


def choose_record(did: str, note_value: str | None, *, seen_nonce: int | None) -> E2ERecord:
    """The record to seal to: the highest verifying nonce, never below one used before."""
    if note_value is None:
        raise E2EError("the peer has published no DID note")
    tokens = note_value.split()
    if not tokens or tokens[0] != did:
        raise E2EError("the DID note at the peer's path does not name the peer's did:key")
    scan = scan_records(did, note_value)
    best = scan.best()
    if best is None:
        why = f": {scan.refused[0]}" if scan.refused else ""
        raise E2EError(f"the peer's DID note holds no e2e: record that verifies{why}")
    if seen_nonce is not None and best.nonce < seen_nonce:
        raise E2EError(f"the peer's e2e: record has nonce {best.nonce}, lower than "
                       f"{seen_nonce} already used for this peer (a replayed older record)")
    return best


# ── sealing a room key to a mailbox ─────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class Channel:
    """A private room: its name and its AES-GCM key K."""

    room: str
    key: bytes

    def __repr__(self) -> str:
        return f"Channel(room={self.room!r}, key=<redacted>)"


def new_channel(*, _randbytes: RandBytes = os.urandom) -> Channel:
    """A fresh 32-byte room key and an unguessable `p-` room name (128 random bits)."""
    return Channel(room="p-" + _randbytes(16).hex(), key=_randbytes(KEY_LEN))


def seal_channel(recipient_x25519: bytes, channel: Channel, *,
                 _randbytes: RandBytes = os.urandom) -> str:
    """The mailbox line `e2e1 <eph_pub> <seal_nonce> <sealed>` carrying K || room_name."""
    eph = X25519PrivateKey.from_private_bytes(_randbytes(KEY_LEN))
    shared = _shared_key(eph, recipient_x25519)
    seal_nonce = _randbytes(NONCE_LEN)
    sealed = AESGCM(shared).encrypt(seal_nonce, channel.key + channel.room.encode(), None)
    eph_pub = eph.public_key().public_bytes_raw()
    return f"{SEAL_PREFIX} {b64url(eph_pub)} {b64url(seal_nonce)} {b64url(sealed)}"


def is_sealed_line(line: str) -> bool:
    return line.startswith(SEAL_PREFIX + " ")


def open_channel(line: str, static_private: bytes) -> Channel:
    """Recover (K, room name) from a mailbox line sealed to our static key."""
    parts = line.split(" ")
    if len(parts) != 4 or parts[0] != SEAL_PREFIX:
        raise E2EError("not an e2e1 line of four fields")
    eph_pub = unb64url(parts[1], "the ephemeral key")
    seal_nonce = unb64url(parts[2], "the seal nonce")
    sealed = unb64url(parts[3], "the sealed key")
    if len(eph_pub) != KEY_LEN:
        raise E2EError("the ephemeral key is not 32 bytes")
    if len(seal_nonce) != NONCE_LEN:
        raise E2EError("the seal nonce is not 12 bytes")
    shared = _shared_key(X25519PrivateKey.from_private_bytes(static_private), eph_pub)
    try:
        plain = AESGCM(shared).decrypt(seal_nonce, sealed, None)
    except InvalidTag:
        raise E2EError("the sealed line does not open with this wallet's key") from None
    key, room_bytes = plain[:KEY_LEN], plain[KEY_LEN:]
    try:
        room = room_bytes.decode("ascii")
    except UnicodeDecodeError:
        raise E2EError("the sealed room name is not ASCII") from None
    if len(key) != KEY_LEN or not room.startswith("p-") or not is_name(room):
        raise E2EError("the sealed payload is not a 32-byte key and a p- room name")
    return Channel(room=room, key=key)


# ── lines in the private room ────────────────────────────────────────────────────────────────


def encrypt_line(key: bytes, plaintext: str, *, _randbytes: RandBytes = os.urandom) -> str:
    """`<msg_nonce>.<ct>` for one piece of plaintext (split long text first: `split_plain`)."""
    data = plaintext.encode("utf-8")
    if len(data) > MAX_PLAIN_BYTES:
        raise ValueError(f"a room line holds at most {MAX_PLAIN_BYTES} plaintext bytes: split "
                         "it before sealing")
    nonce = _randbytes(NONCE_LEN)
    line = f"{b64url(nonce)}.{b64url(AESGCM(key).encrypt(nonce, data, None))}"
    assert len(line) <= MAX_TEXT_CHARS
    return line


def decrypt_line(key: bytes, line: str) -> str:
    nonce_b64, dot, ct_b64 = line.partition(".")
    if not dot:
        raise E2EError("not a <nonce>.<ciphertext> line")
    nonce = unb64url(nonce_b64, "the line nonce")
    if len(nonce) != NONCE_LEN:
        raise E2EError("the line nonce is not 12 bytes")
    ct = unb64url(ct_b64, "the ciphertext")
    try:
        data = AESGCM(key).decrypt(nonce, ct, None)
    except InvalidTag:
        raise E2EError("the line does not open with the room key (tampered or not ours)") \
            from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise E2EError("the opened line is not UTF-8") from None


def split_plain(text: str, limit: int = MAX_PLAIN_BYTES) -> list[str]:
    """Split text into pieces of at most `limit` UTF-8 bytes, never inside a code point."""
    if limit < 4:
        raise ValueError("a piece must hold at least one code point")
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for ch in text:
        width = len(ch.encode("utf-8", "surrogatepass"))
        if size + width > limit:
            pieces.append("".join(current))
            current, size = [], 0
        current.append(ch)
        size += width
    if current or not pieces:
        pieces.append("".join(current))
    return pieces


__all__ = [
    "INFO",
    "MAX_PLAIN_BYTES",
    "Channel",
    "E2EError",
    "E2ERecord",
    "RecordScan",
    "b64url",
    "choose_record",
    "decrypt_line",
    "encrypt_line",
    "is_sealed_line",
    "make_record",
    "new_channel",
    "open_channel",
    "record_payload",
    "scan_records",
    "seal_channel",
    "split_plain",
    "unb64url",
    "x25519_public",
]
