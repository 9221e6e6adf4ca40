"""Arbitration without new cryptography: sealed votes and n-of-n secret splitting.

None of this makes a rail enforce a verdict; it changes who holds the secret and when a vote
becomes visible. A commitment hashes the contract id (so a vote cannot be lifted into another
deal) and a 32-byte salt (verdicts come from a set of about two, so an unsalted commitment hides
nothing). Splits are unanimous only: every share is needed, and any proper subset recombines to
something that opens nothing. k-of-n is deliberately absent.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Callable, Sequence

from tclk_tui.protocol import secp
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.hexutil import HEX32_RE, bytes_to_hex
from tclk_tui.protocol.ids import TCLK_DOMAIN

RandBytes = Callable[[int], bytes]

_VENUE_REWRITES = frozenset({"Cc", "Cf", "Zl", "Zp"})
"""Unicode categories the venue rewrites to a space before storing a message."""

_LATE_FORMAT_CHARS = frozenset(range(0x13439, 0x13440))
"""Format (Cf) code points assigned after Unicode 14, the stdlib's database on Python 3.11
(Egyptian hieroglyph insertion and enclosure controls, Unicode 15). JavaScript engines know
them, so the reference refuses them."""


def _js_code_points(text: str) -> str:
    """The string as JavaScript would iterate it: surrogate pairs joined, lone ones kept."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _utf8_like_text_encoder(text: str) -> bytes:
    """UTF-8 as `TextEncoder` produces it: every lone surrogate becomes U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode()


def _rewritten_by_venue(ch: str) -> bool:
    return unicodedata.category(ch) in _VENUE_REWRITES or (
        ord(ch) in _LATE_FORMAT_CHARS and unicodedata.category(ch) == "Cn"
    )


def _require_hex32(value: object, name: str) -> bytes:
    if not isinstance(value, str) or HEX32_RE.fullmatch(value) is None:
        raise TclkError(f"tclk: {name} must be 32 bytes of 0x-hex")
    return bytes.fromhex(value[2:])


def _require_parts(parts: object) -> int:
    """`Number.isInteger(parts) && parts >= 2`: `3.0` is a whole number of parts, `True` is not."""
    if isinstance(parts, bool) or not isinstance(parts, int | float):
        raise TclkError("tclk: a split needs at least 2 parts")
    if isinstance(parts, float) and not parts.is_integer():
        raise TclkError("tclk: a split needs at least 2 parts")
    if parts < 2:
        raise TclkError("tclk: a split needs at least 2 parts")
    return int(parts)


def _share_list(shares: object) -> list[object]:
    if isinstance(shares, str | bytes | bytearray) or not isinstance(shares, Sequence):
        raise TclkError("tclk: a split needs at least 2 parts")
    items = list(shares)
    _require_parts(len(items))
    return items


def _scalar(value: object, name: str) -> int:
    raw = _require_hex32(value, name)
    k = int.from_bytes(raw, "big")
    if not 0 < k < secp.N:
        raise TclkError(f"tclk: {name} is not a scalar in [1, n)")
    return k


# ── commit-reveal voting ────────────────────────────────────────────────────


def generate_salt(*, _randbytes: RandBytes = secrets.token_bytes) -> str:
    """A fresh 32-byte salt, `0x` + 64 lowercase hex."""
    return bytes_to_hex(_randbytes(32))


def verdict_problem(verdict: object) -> str | None:
    """Why `verdict` cannot be committed to (the protocol's message), or None when it can."""
    if not isinstance(verdict, str):
        return "tclk: verdict must be a string"
    if len(verdict) == 0:
        return "tclk: verdict must not be empty"
    if "|" in verdict:
        return "tclk: verdict must not contain '|'"
    if any(_rewritten_by_venue(ch) for ch in _js_code_points(verdict)):
        return "tclk: verdict must not contain characters the venue rewrites"
    return None


def vote_commitment(contract: str, verdict: str, salt: str) -> str:
    """A juror's sealed vote: sha256 of `FLOP::tclk::v1|commit|<contract>|<verdict>|<salt>`.

    A verdict holding a character the venue rewrites would commit fine and then never reopen
    (the reveal round would bring back a different string), so it is refused here.
    """
    if not isinstance(contract, str) or HEX32_RE.fullmatch(contract) is None:
        raise TclkError("tclk: contract must be a 0x-hex contract id")
    problem = verdict_problem(verdict)
    if problem is not None:
        raise TclkError(problem)
    _require_hex32(salt, "salt")
    preimage = f"{TCLK_DOMAIN}|commit|{contract}|{verdict}|{salt}"
    return bytes_to_hex(hashlib.sha256(_utf8_like_text_encoder(preimage)).digest())


def verify_vote_commitment(commitment: str, contract: str, verdict: str, salt: str) -> bool:
    """Does a revealed (verdict, salt) open `commitment`? Malformed reveals are a mismatch."""
    try:
        if not isinstance(commitment, str) or not commitment.isascii():
            return False
        expected = vote_commitment(contract, verdict, salt)
        return hmac.compare_digest(expected.encode(), commitment.lower().encode())
    except Exception:
        return False


# ── unanimous panels ─────────────────────────────────────────────────────────


def split_secret(
    preimage: str, parts: int, *, _randbytes: RandBytes = secrets.token_bytes
) -> list[str]:
    """Split a hash-lock preimage into `parts` XOR shares; all of them are needed."""
    last = bytearray(_require_hex32(preimage, "preimage"))
    count = _require_parts(parts)
    shares: list[bytes] = []
    for _ in range(count - 1):
        share = _randbytes(32)
        if len(share) != 32:
            raise TclkError("tclk: CSPRNG returned the wrong number of bytes")
        for i in range(32):
            last[i] ^= share[i]
        shares.append(share)
    shares.append(bytes(last))
    return [bytes_to_hex(share) for share in shares]


def combine_secret(shares: Sequence[str]) -> str:
    """XOR the shares back into the preimage. Order does not matter; the result may be zero."""
    out = bytearray(32)
    for share in _share_list(shares):
        for i, byte in enumerate(_require_hex32(share, "share")):
            out[i] ^= byte
    return bytes_to_hex(out)


def split_witness(
    witness: str, parts: int, *, _randbytes: RandBytes = secrets.token_bytes
) -> list[str]:
    """Split a point-lock witness into `parts` additive shares, y = Σ yᵢ mod n.

    The same statement opens, so the rail never learns a panel was involved. A draw that
    yields a zero share resamples the whole set (probability about parts·2^-256).
    """
    y = _scalar(witness, "witness")
    count = _require_parts(parts)
    while True:
        shares = [int.from_bytes(_randbytes(32), "big") % secp.N for _ in range(count - 1)]
        shares.append((y - sum(shares)) % secp.N)
        if all(0 < share < secp.N for share in shares):
            return [f"0x{share:064x}" for share in shares]


def combine_witness(shares: Sequence[str]) -> str:
    """Sum the shares mod n back into the witness. Order does not matter."""
    total = 0
    for share in _share_list(shares):
        total = (total + _scalar(share, "share")) % secp.N
    if total == 0:
        raise TclkError("tclk: shares sum to zero, which is not a valid witness")
    return f"0x{total:064x}"
