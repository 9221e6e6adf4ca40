"""Hash locks, point locks, the secret checks the machine and rails share, and deadline policy.

A hash lock is `sha256(preimage)`; a point lock is `Y = y·G` for a scalar witness `y` in
[1, n), never reduced, so a witness the chain would refuse is refused here too. Every `verify_*`
and `is_valid_*` function is total: malformed input is `False`, never an exception, because
statements and secrets arrive from other agents.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tclk_tui.protocol import secp
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.hexutil import HEX32_RE, HEX33_RE, bytes_to_hex, hex_to_bytes, is_hex

SECP256K1_N = secp.N
"""The secp256k1 group order; witnesses are scalars in [1, SECP256K1_N)."""

MAX_SAFE_INTEGER = 2**53 - 1

POINT_LOCK_DRAWS = 8
"""A draw outside [1, n) has probability below 2^-128; eight in a row means a broken CSPRNG."""

RandBytes = Callable[[int], bytes]


@dataclass(frozen=True, slots=True, repr=False)
class HashLock:
    """`hash` is safe to publish; `preimage` is the claim and stays local until then."""

    preimage: str
    hash: str

    def __repr__(self) -> str:
        return f"HashLock(hash={self.hash!r}, preimage=<redacted>)"


@dataclass(frozen=True, slots=True, repr=False)
class PointLock:
    """`statement` (Y) is safe to publish; `witness` (y) stays local until the claim."""

    witness: str
    statement: str

    def __repr__(self) -> str:
        return f"PointLock(statement={self.statement!r}, witness=<redacted>)"


def _secret_bytes(value: object) -> bytes:
    """Hex text or raw bytes, as the reference accepts `string | Uint8Array`."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return hex_to_bytes(value)


def _ascii_lower(value: object) -> str | None:
    """`value.toLowerCase()` for the only strings that can ever equal our ASCII hex output."""
    if not isinstance(value, str) or not value.isascii():
        return None
    return value.lower()


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("ascii"), b.encode("ascii"))


# ── hash locks ───────────────────────────────────────────────────────────────


def hash_lock_from_preimage(preimage: str | bytes) -> HashLock:
    """The hash lock of a 32-byte preimage (0x-hex of either case, or bytes)."""
    raw = _secret_bytes(preimage)
    if len(raw) != 32:
        raise TclkError(f"tclk: hash-lock preimage must be 32 bytes, got {len(raw)}")
    return HashLock(preimage=bytes_to_hex(raw), hash=bytes_to_hex(hashlib.sha256(raw).digest()))


def generate_hash_lock(*, _randbytes: RandBytes = secrets.token_bytes) -> HashLock:
    """A fresh hash lock from 32 CSPRNG bytes."""
    return hash_lock_from_preimage(_randbytes(32))


def verify_hash_preimage(hash: str, preimage: str | bytes) -> bool:
    """True iff sha256(preimage) equals `hash` (either case on both sides)."""
    try:
        expected = _ascii_lower(hash)
        if expected is None:
            return False
        return _same(hash_lock_from_preimage(preimage).hash, expected)
    except Exception:
        return False


# ── point locks ──────────────────────────────────────────────────────────────


def _witness_scalar(raw: bytes) -> int:
    # These two messages carry no "tclk: " prefix in the reference.
    if len(raw) != 32:
        raise TclkError(f"PTLC witness must be 32 bytes, got {len(raw)}")
    value = int.from_bytes(raw, "big")
    if not 0 < value < SECP256K1_N:
        raise TclkError("PTLC witness is not a scalar in [1, n)")
    return value


def point_lock_from_witness(witness: str | bytes) -> PointLock:
    """The point lock of a 32-byte witness in [1, n) (0x-hex of either case, or bytes)."""
    raw = _secret_bytes(witness)
    statement = secp.scalar_base_mult(_witness_scalar(raw))
    return PointLock(witness=bytes_to_hex(raw), statement=bytes_to_hex(statement))


def generate_point_lock(*, _randbytes: RandBytes = secrets.token_bytes) -> PointLock:
    """A fresh point lock by rejection sampling, bounded so a broken CSPRNG fails loudly.

    Only the range test is retried: a failure of the random source itself propagates at once.
    """
    for _ in range(POINT_LOCK_DRAWS):
        draw = _randbytes(32)
        value = int.from_bytes(draw, "big")
        if value == 0 or value >= SECP256K1_N:
            continue
        return point_lock_from_witness(draw)
    raise TclkError(f"tclk: CSPRNG returned no scalar in [1, n) in {POINT_LOCK_DRAWS} draws")


def verify_point_witness(statement: str, witness: str | bytes) -> bool:
    """True iff compressed(witness·G) equals `statement` (either case on both sides)."""
    try:
        expected = _ascii_lower(statement)
        if expected is None:
            return False
        return _same(point_lock_from_witness(witness).statement, expected)
    except Exception:
        return False


def is_valid_point_statement(statement: object) -> bool:
    """A 33-byte SEC1-compressed point on the curve, as `0x`-hex of either case."""
    try:
        if not is_hex(statement):
            return False
        return secp.is_compressed_point(hex_to_bytes(statement))
    except Exception:
        return False


# ── either lock ──────────────────────────────────────────────────────────────


def verify_secret(lock: object, statement: object, secret: object) -> bool:
    """Does `secret` open `statement` under `lock`? Unknown lock kinds open nothing."""
    try:
        if lock == "hash":
            return verify_hash_preimage(statement, secret)  # type: ignore[arg-type]
        if lock == "point":
            return verify_point_witness(statement, secret)  # type: ignore[arg-type]
    except Exception:
        return False
    return False


def is_valid_statement(lock: object, statement: object) -> bool:
    """Is `statement` a well-formed wire statement for `lock` (lowercase hex only)?"""
    try:
        if not isinstance(statement, str):
            return False
        if lock == "hash":
            return HEX32_RE.fullmatch(statement) is not None
        if lock == "point":
            return HEX33_RE.fullmatch(statement) is not None and is_valid_point_statement(statement)
    except Exception:
        return False
    return False


# ── deadlines ────────────────────────────────────────────────────────────────


def _js_number(value: object) -> float | None:
    """The value as a JavaScript number would hold it, or None if it is not a number at all."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:  # an int no double can hold; JS never sees such a number
        return None


def _is_safe_integer(value: object) -> bool:
    """`Number.isSafeInteger`: an integral double (so `5.0` counts) within ±(2^53 − 1)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return value.is_integer() and abs(value) <= MAX_SAFE_INTEGER
    return False


def _finite(value: object) -> float | None:
    number = _js_number(value)
    return number if number is not None and math.isfinite(number) else None


def _offer_field(offer: object, name: str) -> object:
    if isinstance(offer, Mapping):
        return offer.get(name)
    return getattr(offer, name, None)


def validate_deadlines(
    offer: Mapping[str, object] | object,
    now_ms: float,
    min_claim_window_ms: float,
    min_refund_gap_ms: float,
) -> bool:
    """Is there room to do the work and claim, and for the rail to see the claim before refund?

    Both margins are the caller's risk tolerance; there are no defaults. Every operand is
    checked first so a malformed clock or a hand-built offer can only narrow, never widen,
    the window. Arithmetic is done in doubles, as the reference does.
    """
    try:
        claim_by = _offer_field(offer, "claimByMs")
        refund_after = _offer_field(offer, "refundAfterMs")
        if not (_is_safe_integer(claim_by) and _is_safe_integer(refund_after)):
            return False
        claim = float(claim_by)  # type: ignore[arg-type]
        refund = float(refund_after)  # type: ignore[arg-type]
        now = _finite(now_ms)
        window = _finite(min_claim_window_ms)
        gap = _finite(min_refund_gap_ms)
        if claim <= 0 or refund <= 0 or now is None or window is None or gap is None:
            return False
        if now < 0 or window < 1 or gap < 1:
            return False
        return claim - now >= window and refund - claim >= gap
    except Exception:
        return False
