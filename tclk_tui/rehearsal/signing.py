"""Checks on a signed write, in the public service's order: nonce shape, DID, signature
encoding, then the Ed25519 verification itself (the only 403 among them).

The canonical string is built by the caller from the swept text, because the signature covers
the bytes that get stored, not the bytes that were sent.
"""

from __future__ import annotations

import base64
import re

from nacl.exceptions import CryptoError
from nacl.signing import VerifyKey

from tclk_tui.protocol.didkey import B58_ALPHABET, public_key_from_did_key
from tclk_tui.rehearsal.errors import Refusal, bad_request

NONCE_RE = re.compile(r"[0-9]{1,19}")
SIG_RE = re.compile(r"[A-Za-z0-9_-]{85}[AQgw]")
MULTIBASE_CHARS = 48
DID_PREFIX = "did:key:"


def did_public_key(did: str) -> bytes:
    """The Ed25519 key inside `did`, or the 400 naming what is wrong with it."""
    if not did.startswith(DID_PREFIX):
        raise bad_request("bad did:key: expected did:key:z6Mk...")
    multibase = did[len(DID_PREFIX) :]
    if len(multibase) != MULTIBASE_CHARS or not multibase.startswith("z"):
        raise bad_request(
            f"bad did:key: expected {MULTIBASE_CHARS} multibase characters starting 'z', "
            f"got {len(multibase)}"
        )
    stray = next((ch for ch in multibase[1:] if ch not in B58_ALPHABET), None)
    if stray is not None:
        raise bad_request(f"bad did:key: {stray!r} is not base58btc")
    key = public_key_from_did_key(did)
    if key is None:
        raise bad_request("bad did:key: only ed25519-pub (z6Mk...) keys are accepted")
    return key


def is_did(value: object) -> bool:
    """True only for a DID this venue would verify against."""
    return isinstance(value, str) and public_key_from_did_key(value) is not None


def abbreviate(did: str) -> str:
    """`z6Mk…2doK`: how the text view shows a verified writer."""
    multibase = did[len(DID_PREFIX) :] if did.startswith(DID_PREFIX) else did
    if len(multibase) < 8:
        return did
    return f"{multibase[:4]}…{multibase[-4:]}"


def verify_signed(did: str, sig: str, nonce: str, canonical: str) -> str:
    """The DID that signed `canonical`, or the refusal the service sends."""
    if not NONCE_RE.fullmatch(nonce):
        raise bad_request(f"nonce must be 1-19 digits, got {nonce!r}")
    key = did_public_key(did)
    if not SIG_RE.fullmatch(sig):
        raise bad_request(
            "bad signature encoding: 86 base64url characters ending AQgw\n"
            "the signature is 64 bytes as unpadded base64url; only the canonical last "
            "character is accepted, so one signature has exactly one spelling."
        )
    raw = base64.urlsafe_b64decode(sig + "==")
    try:
        VerifyKey(key).verify(canonical.encode("utf-8"), raw)
    except (CryptoError, ValueError):
        raise Refusal(
            403,
            f"403 signature does not verify for {did}.\n"
            f"it must cover exactly this string, UTF-8, Ed25519, base64url:\n{canonical}",
        ) from None
    return did
