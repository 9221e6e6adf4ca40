"""The encrypted vault file format (version 1): a fixed header, then one AEAD ciphertext.

Layout, big-endian, 98-byte header:

    magic      8   b"TCLK-VLT"
    version    1   1
    algorithm  1   1 = argon2id13 key derivation + XChaCha20-Poly1305-IETF
    opslimit   4   argon2id passes
    memlimit   8   argon2id memory, bytes
    salt      16   argon2id salt (fixed for the file's life, new on passphrase change)
    nonce     24   AEAD nonce (fresh random for every write)
    keycheck  16   keyed BLAKE2b of a constant under the derived key
    body_len   4   ciphertext length, tag included
    digest    16   unkeyed BLAKE2b over the 82 bytes above

The whole header is the AEAD's associated data, so no field can be edited without the body
failing authentication. The two check values exist to make failures *distinguishable*, which an
AEAD alone cannot do (a wrong key and a flipped bit look the same to Poly1305):

- `digest` catches accidental damage to the header before any key is derived, so a damaged file
  is reported as damaged rather than as a wrong passphrase, and absurd KDF costs are never run;
- `body_len` tells a truncated or extended file apart from a tampered one;
- `keycheck` tells a wrong passphrase apart from a damaged body. It gives an attacker nothing
  the ciphertext did not already give (both confirm a guessed key offline).

The plaintext is JSON `{"format": 1, "entries": {name: base64}}`.

Keys, passphrases and entry values travel as SecretValue, and every check that could fail while
plaintext is in scope *returns* its problem instead of raising: a frame that raised stays in the
traceback, and tracebacks rendered with their locals (Textual's crash screen does) would otherwise
print whatever secret bytes those frames held.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import struct
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

import nacl.bindings
import nacl.exceptions
import nacl.pwhash.argon2id as argon2id

from tclk_tui.protocol.jsondepth import too_deep
from tclk_tui.vault.errors import VaultCorrupt, VaultTampered, VaultTruncated, WrongPassphrase
from tclk_tui.vault.secret import SecretValue

MAGIC = b"TCLK-VLT"
FORMAT_VERSION = 1
ALGORITHM_ARGON2ID_XCHACHA20POLY1305 = 1

_HEAD = struct.Struct(">8sBBIQ16s24s16sI")  # everything the digest covers
_DIGEST_LEN = 16
HEADER_LEN = _HEAD.size + _DIGEST_LEN
_KEY_LEN = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_KEYBYTES
_NONCE_LEN = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
_TAG_LEN = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_ABYTES
_KEYCHECK_DOMAIN = b"tclk-tui vault key check v1"

# Bounds on costs read from a file: a header that passed its digest but asks for more than this
# was written by something else, and running it could exhaust the machine.
_MAX_OPSLIMIT = 64
_MAX_MEMLIMIT = 4 * 1024**3
_MAX_BODY = 64 * 1024**2


@dataclass(frozen=True)
class KdfParams:
    """Argon2id costs for turning a passphrase into the file key.

    Production uses `moderate()` (libsodium's OPSLIMIT_MODERATE=3 passes, MEMLIMIT_MODERATE=256
    MiB). The key is derived once per process and cached, so the cost is paid once when the
    operator unlocks the wallet, typically at the start of an SSH session: about 0.7 s on a current
    desktop core and 1-2 s on a small VPS, a pause an operator accepts once, while every offline
    guess costs an attacker the same 256 MiB and ~1 s. `interactive()` (2 passes, 64 MiB, ~0.06 s)
    is there for hosts that cannot spare 256 MiB; `sensitive()` (1 GiB) would make each unlock over
    SSH take several seconds and can fail on small machines, so it is not the default. The costs
    are stored in each file's header, so a file always opens with the costs it was written with.
    `minimum()` exists for test suites only and must never protect real secrets.
    """

    opslimit: int
    memlimit: int

    def __post_init__(self) -> None:
        if not argon2id.OPSLIMIT_MIN <= self.opslimit <= _MAX_OPSLIMIT:
            raise ValueError(f"argon2id opslimit out of range: {self.opslimit}")
        if not argon2id.MEMLIMIT_MIN <= self.memlimit <= _MAX_MEMLIMIT:
            raise ValueError(f"argon2id memlimit out of range: {self.memlimit}")

    @classmethod
    def moderate(cls) -> KdfParams:
        return cls(argon2id.OPSLIMIT_MODERATE, argon2id.MEMLIMIT_MODERATE)

    @classmethod
    def interactive(cls) -> KdfParams:
        return cls(argon2id.OPSLIMIT_INTERACTIVE, argon2id.MEMLIMIT_INTERACTIVE)

    @classmethod
    def sensitive(cls) -> KdfParams:
        return cls(argon2id.OPSLIMIT_SENSITIVE, argon2id.MEMLIMIT_SENSITIVE)

    @classmethod
    def minimum(cls) -> KdfParams:
        """Cheapest legal costs: for test suites, never for a real vault."""
        return cls(argon2id.OPSLIMIT_MIN, argon2id.MEMLIMIT_MIN)

    def describe(self) -> str:
        if self.memlimit >= 1024**2:
            return f"argon2id opslimit={self.opslimit} memlimit={self.memlimit / 1024**2:g} MiB"
        return f"argon2id opslimit={self.opslimit} memlimit={self.memlimit / 1024:g} KiB"


DEFAULT_KDF = KdfParams.moderate()


@dataclass(frozen=True)
class Header:
    """A parsed, digest-checked header. Holds no secret (salt and nonce are public)."""

    kdf: KdfParams
    salt: bytes
    nonce: bytes
    keycheck: bytes
    body_len: int
    raw: bytes

    @property
    def version(self) -> int:
        return FORMAT_VERSION


def normalize_passphrase(passphrase: str | bytes) -> tuple[SecretValue | None, str | None]:
    """NFC-normalise text passphrases so the same words typed on two systems give one key.

    Returns (passphrase, None) or (None, problem); never raises with the passphrase in scope.
    """
    if isinstance(passphrase, str):
        data = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    elif isinstance(passphrase, bytes | bytearray):
        data = bytes(passphrase)
    else:
        return None, f"a passphrase is str or bytes, not {type(passphrase).__name__}"
    if not data:
        return None, "an empty passphrase protects nothing; refusing it"
    return SecretValue(data), None


def derive_key(passphrase: SecretValue, salt: bytes, kdf: KdfParams) -> SecretValue:
    return SecretValue(
        argon2id.kdf(
            _KEY_LEN, passphrase.reveal(), salt, opslimit=kdf.opslimit, memlimit=kdf.memlimit
        )
    )


def new_salt() -> bytes:
    return secrets.token_bytes(argon2id.SALTBYTES)


def _keycheck(key: SecretValue) -> bytes:
    return hashlib.blake2b(_KEYCHECK_DOMAIN, key=key.reveal(), digest_size=16).digest()


def _digest(head: bytes) -> bytes:
    return hashlib.blake2b(head, digest_size=_DIGEST_LEN, person=b"tclk-vault-hdr").digest()


def encode_entries(entries: Mapping[str, SecretValue]) -> bytes:
    body = {
        "format": 1,
        "entries": {
            k: base64.b64encode(v.reveal()).decode("ascii") for k, v in sorted(entries.items())
        },
    }
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode("utf-8")


def decode_entries(plaintext: bytes) -> tuple[dict[str, SecretValue] | None, str | None]:
    """Parse decrypted contents into (entries, None) or (None, problem); never raises."""
    try:
        if too_deep(plaintext):
            raise RecursionError
        body = json.loads(plaintext)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None, "vault contents are not the expected JSON"
    if not isinstance(body, dict) or body.get("format") != 1:
        return None, "vault contents have an unknown layout"
    raw = body.get("entries")
    if not isinstance(raw, dict):
        return None, "vault contents have no entry table"
    entries: dict[str, SecretValue] = {}
    for name, value in raw.items():
        if not isinstance(name, str) or not isinstance(value, str):
            return None, "vault entry table holds a non-text item"
        try:
            entries[name] = SecretValue(base64.b64decode(value.encode("ascii"), validate=True))
        except (binascii.Error, UnicodeEncodeError):
            return None, f"vault entry {name[:60]!r} is not valid base64"
    return entries, None


def seal(
    entries: Mapping[str, SecretValue], key: SecretValue, salt: bytes, kdf: KdfParams
) -> bytes:
    """Encrypt `entries` under `key` into a complete file image with a fresh nonce."""
    nonce = secrets.token_bytes(_NONCE_LEN)
    image, problem = _seal(encode_entries(entries), key, salt, kdf, nonce)
    if problem is not None:
        raise VaultCorrupt(problem)
    return image


def _seal(
    plaintext: bytes, key: SecretValue, salt: bytes, kdf: KdfParams, nonce: bytes
) -> tuple[bytes, str | None]:
    body_len = len(plaintext) + _TAG_LEN
    if body_len > _MAX_BODY:
        return b"", "vault contents would exceed the 64 MiB format limit"
    head = _HEAD.pack(
        MAGIC,
        FORMAT_VERSION,
        ALGORITHM_ARGON2ID_XCHACHA20POLY1305,
        kdf.opslimit,
        kdf.memlimit,
        salt,
        nonce,
        _keycheck(key),
        body_len,
    )
    header = head + _digest(head)
    body = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(
        plaintext, header, nonce, key.reveal()
    )
    return header + body, None


def parse_header(image: bytes) -> Header:
    """Check everything that can be checked without the passphrase; raise VaultCorrupt if bad."""
    if not image:
        raise VaultTruncated("vault file is empty")
    if image[: len(MAGIC)] != MAGIC[: min(len(image), len(MAGIC))]:
        raise VaultCorrupt("not a tclk-tui vault file (bad magic)")
    if len(image) < HEADER_LEN:
        raise VaultTruncated(
            f"vault file is truncated: {len(image)} bytes, shorter than its "
            f"{HEADER_LEN}-byte header"
        )
    head, digest = image[: _HEAD.size], image[_HEAD.size : HEADER_LEN]
    (_magic, version, algorithm, opslimit, memlimit, salt, nonce, keycheck, body_len) = (
        _HEAD.unpack(head)
    )
    if version != FORMAT_VERSION:
        raise VaultCorrupt(
            f"vault file format version {version} is not supported (this build reads "
            f"version {FORMAT_VERSION})"
        )
    if not hmac.compare_digest(digest, _digest(head)):
        raise VaultTampered("vault file header is damaged (header checksum mismatch)")
    if algorithm != ALGORITHM_ARGON2ID_XCHACHA20POLY1305:
        raise VaultTampered(f"vault file names an unknown algorithm ({algorithm})")
    try:
        kdf = KdfParams(opslimit, memlimit)
    except ValueError:
        raise VaultTampered(
            "vault file asks for key-derivation costs outside safe bounds"
        ) from None
    if not _TAG_LEN <= body_len <= _MAX_BODY:
        raise VaultTampered(f"vault file declares an impossible body length ({body_len})")
    return Header(kdf, salt, nonce, keycheck, body_len, image[:HEADER_LEN])


def check_body_length(image: bytes, header: Header) -> bytes:
    body = image[HEADER_LEN:]
    if len(body) < header.body_len:
        raise VaultTruncated(
            f"vault file is truncated: body has {len(body)} of {header.body_len} bytes"
        )
    if len(body) > header.body_len:
        raise VaultTampered(
            f"vault file has {len(body) - header.body_len} unexpected trailing bytes"
        )
    return body


def key_matches(header: Header, key: SecretValue) -> bool:
    return hmac.compare_digest(_keycheck(key), header.keycheck)


def open_image(image: bytes, header: Header, key: SecretValue) -> dict[str, SecretValue]:
    """Decrypt a file image whose header is already parsed, with a candidate key."""
    body = check_body_length(image, header)
    if not key_matches(header, key):
        raise WrongPassphrase("the passphrase does not open this vault file")
    entries, problem = _open(body, header, key)
    if entries is None:
        raise VaultTampered(problem or "vault contents are damaged")
    return entries


def _open(
    body: bytes, header: Header, key: SecretValue
) -> tuple[dict[str, SecretValue] | None, str | None]:
    try:
        plaintext = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_decrypt(
            body, header.raw, header.nonce, key.reveal()
        )
    except nacl.exceptions.CryptoError:
        return None, "vault file failed authentication: its contents were damaged or altered"
    return decode_entries(plaintext)
