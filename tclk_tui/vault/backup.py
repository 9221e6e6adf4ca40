"""Seed backup text: 32 seed bytes + a 3-byte checksum as 56 Crockford base32 characters.

Written as `tclk-seed1 xxxx-xxxx-...` (14 groups of 4). Crockford's alphabet drops I, L, O and U,
and decoding maps the look-alikes (o -> 0, i/l -> 1) and ignores case, spaces and dashes, so a
text copied by hand from a screen or paper still restores. The checksum (24 bits of a keyed
BLAKE2b) catches a mistyped character with probability 1 - 2^-24, so a wrong restore fails loudly
instead of silently deriving different secrets. Error messages give positions, never characters.
"""

from __future__ import annotations

import hashlib
import hmac

from tclk_tui.vault.errors import BackupTextInvalid
from tclk_tui.vault.secret import SEED_LEN, MasterSeed

PREFIX = "tclk-seed1"
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
_DECODE = {c: i for i, c in enumerate(_ALPHABET)} | {"o": 0, "i": 1, "l": 1}
_CHECK_LEN = 3
_CHARS = (SEED_LEN + _CHECK_LEN) * 8 // 5  # 280 bits -> 56 characters
GROUP = 4


def _checksum(seed: bytes) -> bytes:
    return hashlib.blake2b(seed, digest_size=_CHECK_LEN, person=b"tclk-seed-backup").digest()


def backup_groups(seed: MasterSeed) -> list[str]:
    """The 14 four-character groups of a seed's backup text."""
    raw = seed.reveal() + _checksum(seed.reveal())
    number = int.from_bytes(raw, "big")
    chars = [_ALPHABET[(number >> (5 * (_CHARS - 1 - i))) & 31] for i in range(_CHARS)]
    text = "".join(chars)
    return [text[i : i + GROUP] for i in range(0, _CHARS, GROUP)]


def encode_backup(seed: MasterSeed) -> str:
    return f"{PREFIX} " + "-".join(backup_groups(seed))


def decode_backup(text: str) -> MasterSeed:
    """Parse a backup text (with or without its prefix); raise BackupTextInvalid if it is wrong."""
    seed, problem = parse_backup(text)
    del text  # raise with no trace of the backup text in this frame
    if seed is None:
        raise BackupTextInvalid(problem or "not a seed backup")
    return seed


def parse_backup(text: object) -> tuple[MasterSeed | None, str | None]:
    """(seed, None) or (None, problem); returns rather than raises with the text in scope."""
    if not isinstance(text, str):
        return None, "a seed backup is text"
    body = text.strip().lower()
    if body.startswith(PREFIX):
        body = body[len(PREFIX) :]
    body = "".join(ch for ch in body if ch not in " \t\r\n-:_")
    if len(body) != _CHARS:
        return None, (
            f"a seed backup has {_CHARS} characters (ignoring spaces and dashes), "
            f"this one has {len(body)}"
        )
    number = 0
    for position, ch in enumerate(body, start=1):
        digit = _DECODE.get(ch)
        if digit is None:
            return None, f"character {position} of the seed backup is not in the backup alphabet"
        number = (number << 5) | digit
    raw = number.to_bytes(SEED_LEN + _CHECK_LEN, "big")
    seed, check = raw[:SEED_LEN], raw[SEED_LEN:]
    if not hmac.compare_digest(check, _checksum(seed)):
        return None, "the seed backup's checksum does not match: a character is wrong or missing"
    return MasterSeed(seed), None
