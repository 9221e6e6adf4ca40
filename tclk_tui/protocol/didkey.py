"""did:key for Ed25519 keys: multicodec 0xed01 prefix, base58btc (Bitcoin alphabet), `z` multibase.

The venue verifies only Ed25519 did:keys, so only that multicodec is accepted here.
"""

from __future__ import annotations

import re

from tclk_tui.protocol.errors import TclkError

B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {ch: i for i, ch in enumerate(B58_ALPHABET)}
ED25519_MULTICODEC = b"\xed\x01"
DID_KEY_PREFIX = "did:key:z"
DID_RE = re.compile(r"did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}")


def b58encode(data: bytes) -> str:
    """Base58btc with leading zero bytes kept as leading `1`s."""
    zeros = len(data) - len(data.lstrip(b"\0"))
    num = int.from_bytes(data, "big")
    out = []
    while num:
        num, rem = divmod(num, 58)
        out.append(B58_ALPHABET[rem])
    return "1" * zeros + "".join(reversed(out))


def b58decode(text: str) -> bytes | None:
    """Inverse of `b58encode`; None for any character outside the alphabet."""
    num = 0
    for ch in text:
        digit = _B58_INDEX.get(ch)
        if digit is None:
            return None
        num = num * 58 + digit
    zeros = len(text) - len(text.lstrip("1"))
    body = num.to_bytes((num.bit_length() + 7) // 8, "big") if num else b""
    return b"\0" * zeros + body


def did_key_from_public_key(public_key: bytes) -> str:
    """The 56-character did:key of a 32-byte Ed25519 public key."""
    if not isinstance(public_key, bytes | bytearray) or len(public_key) != 32:
        raise TclkError("tclk: an Ed25519 public key is 32 bytes")
    return DID_KEY_PREFIX + b58encode(ED25519_MULTICODEC + bytes(public_key))


def public_key_from_did_key(did: object) -> bytes | None:
    """The 32-byte Ed25519 key inside `did`, or None when it is not an Ed25519 did:key."""
    # Every Ed25519 did:key is 56 characters; checking the shape first also keeps a hostile
    # multi-megabyte "DID" away from the quadratic base58 decoder.
    if not isinstance(did, str) or DID_RE.fullmatch(did) is None:
        return None
    raw = b58decode(did[len(DID_KEY_PREFIX):])
    if raw is None or len(raw) != 34 or raw[:2] != ED25519_MULTICODEC:
        return None
    return raw[2:]


def is_ed25519_did_key(did: object) -> bool:
    """True iff `did` is an Ed25519 did:key the venue can verify (decoded, not just shaped)."""
    return public_key_from_did_key(did) is not None


base58btc_encode = b58encode
base58btc_decode = b58decode
