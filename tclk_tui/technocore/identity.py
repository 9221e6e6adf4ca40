"""did:key identities and the venue's signed lane.

A signed write proves one thing: the holder of an Ed25519 key wrote exactly these bytes into this
room under this nonce. The venue verifies the signature over `<room>|<nonce>|<text>` where
`<text>` is what its single-line sweep leaves, and it stores that swept text, so a text the sweep
would change can never carry a signature that re-verifies later. Signing refuses such text rather
than quietly signing something other than what the caller handed over.
"""

from __future__ import annotations

import base64
import re
from typing import NoReturn

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from tclk_tui.protocol.didkey import did_key_from_public_key, public_key_from_did_key
from tclk_tui.technocore.sweep import survives_sweep

NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")
NONCE_RE = re.compile(r"0|[1-9][0-9]{0,18}")
SIGNATURE_RE = re.compile(r"[A-Za-z0-9_-]{85}[AQgw]")
MAX_NONCE = 10**19 - 1
MAX_TEXT_CHARS = 4096


def is_name(value: object) -> bool:
    """True for a venue name (room, nick, note namespace or key)."""
    return isinstance(value, str) and NAME_RE.fullmatch(value) is not None


def canonical_nonce(nonce: int | str) -> str:
    """The nonce as the venue compares and stores it: 1-19 digits, no leading zeros.

    The venue signs the digits as sent but stores the integer, so `007` would be accepted once
    and then never re-verify from the stored record.
    """
    if isinstance(nonce, bool):
        raise ValueError("nonce must be an integer, not a boolean")
    if isinstance(nonce, int):
        if not 0 <= nonce <= MAX_NONCE:
            raise ValueError("nonce must be between 0 and 10**19 - 1")
        return str(nonce)
    if isinstance(nonce, str) and NONCE_RE.fullmatch(nonce):
        return nonce
    raise ValueError("nonce must be canonical decimal digits (1-19, no leading zeros)")


def signing_payload(room: str, nonce: int | str, text: str) -> bytes:
    """The exact bytes a signed write covers: UTF-8 of `<room>|<nonce>|<text>`."""
    if not is_name(room):
        raise ValueError(f"not a venue room name: {room!r}")
    return f"{room}|{canonical_nonce(nonce)}|{text}".encode()


def encode_signature(signature: bytes) -> str:
    """64 signature bytes as the 86 unpadded base64url characters the venue expects."""
    if len(signature) != 64:
        raise ValueError("an Ed25519 signature is 64 bytes")
    return base64.urlsafe_b64encode(signature).decode("ascii").rstrip("=")


def decode_signature(sig: object) -> bytes | None:
    """The 64 bytes behind a canonical signature string, or None for any other string.

    Only the canonical spelling is accepted (the last character one of AQgw): sixteen strings
    decode to the same bytes, and accepting the others would make signatures malleable.
    """
    if not isinstance(sig, str) or SIGNATURE_RE.fullmatch(sig) is None:
        return None
    return base64.urlsafe_b64decode(sig + "==")


def verify_signature(did: str, payload: bytes, sig: str) -> bool:
    """True when `sig` is a canonical Ed25519 signature by `did` over `payload`. Never raises."""
    public_key = public_key_from_did_key(did)
    raw = decode_signature(sig)
    if public_key is None or raw is None:
        return False
    try:
        VerifyKey(public_key).verify(payload, raw)
    except (BadSignatureError, ValueError, TypeError):
        return False
    except Exception:  # pynacl raises its own CryptoError for keys libsodium rejects
        return False
    return True


def verify_signed_text(did: str, room: str, nonce: int | str, text: str, sig: str) -> bool:
    """Re-verify a signed record from its fields alone. Never raises."""
    try:
        payload = signing_payload(room, nonce, text)
    except (ValueError, UnicodeEncodeError):
        return False
    return verify_signature(did, payload, sig)


class Identity:
    """An Ed25519 key and its did:key. The seed never appears in repr, str or an error."""

    __slots__ = ("_did", "_key")

    def __init__(self, signing_key: SigningKey) -> None:
        if not isinstance(signing_key, SigningKey):
            raise TypeError("Identity wraps a nacl.signing.SigningKey")
        self._key = signing_key
        self._did = did_key_from_public_key(bytes(signing_key.verify_key))

    @classmethod
    def generate(cls) -> Identity:
        return cls(SigningKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        if not isinstance(seed, bytes | bytearray) or len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        return cls(SigningKey(bytes(seed)))

    @property
    def did(self) -> str:
        return self._did

    @property
    def public_key(self) -> bytes:
        return bytes(self._key.verify_key)

    @property
    def seed(self) -> bytes:
        """The 32-byte private seed. Explicit access only: keep it out of logs and storage."""
        return bytes(self._key)

    def sign_payload(self, payload: bytes) -> str:
        """Sign arbitrary bytes (for conventions beside the message lane, e.g. DID note records)."""
        return encode_signature(self._key.sign(payload).signature)

    def sign(self, room: str, nonce: int | str, text: str) -> str:
        """The signature for posting `text` into `room` under `nonce`.

        Raises ValueError when `text` is empty or would be changed by the venue's sweep, since
        the stored record could then never be re-verified.
        """
        check_signable_text(text)
        return self.sign_payload(signing_payload(room, nonce, text))

    def __repr__(self) -> str:
        return f"Identity(did={self._did!r}, seed=<redacted>)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Identity) and other._did == self._did

    def __hash__(self) -> int:
        return hash(self._did)

    def __reduce__(self) -> NoReturn:
        raise TypeError("an Identity holds a private key and is not picklable")


def check_signable_text(text: object) -> None:
    """Raise ValueError unless the venue would store `text` exactly as given."""
    if not isinstance(text, str):
        raise ValueError("text must be a string")
    if not text:
        raise ValueError("text is empty; the venue refuses an empty message")
    if not survives_sweep(text):
        raise ValueError(
            "text would be changed by the venue's single-line sweep (control, format, private-use"
            " or line-separator characters, or spaces at either end); sign and send the swept"
            " form instead"
        )
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(
            f"text is {len(text)} characters; the venue's message limit is {MAX_TEXT_CHARS}"
        )
