"""Schnorr adaptor signatures over secp256k1, as the tclk/1 reference computes them.

UNAUDITED REFERENCE CRYPTOGRAPHY, kept byte-compatible with the reference so the
pre-sign -> adapt -> extract cycle interoperates; do not move real value with it.

This is full Schnorr, not BIP-340: nonces are 33-byte compressed points with no even-y
normalisation, the challenge is `e = int(sha256(R ‖ P ‖ m)) mod n` with no tag or length
prefix, and pre-signature nonces are random. Completing a pre-signature made under
`T = t·G` reveals `t` to anyone holding the pre-signature, which is what ties a PTLC claim
to its point lock.

Inputs are lenient where the reference is: scalars are `0x`-hex of any whole-byte length and
either case (zero and values >= n are refused, never reduced); points may be compressed or
uncompressed SEC1; messages are `0x`-hex or raw bytes. Every public function is total: any
malformed input gives `None` or `False`, never an exception.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping
from typing import TypedDict

from tclk_tui.protocol import secp
from tclk_tui.protocol.hexutil import bytes_to_hex, hex_to_bytes

N = secp.N


class PreSignature(TypedDict):
    """`nonce` = R̂ = r·G (compressed hex); `s` = ŝ = r + e·d mod n, e over R̂ + T."""

    nonce: str
    s: str


class Signature(TypedDict):
    """`nonce` = R = R̂ + T (compressed hex); `s` = ŝ + t mod n: a full Schnorr signature."""

    nonce: str
    s: str


Message = str | bytes | bytearray | memoryview


class _Malformed(Exception):
    """Internal: an input failed to parse. Never escapes this module."""


def _scalar(value: object) -> int:
    raw = hex_to_bytes(value)
    if not raw:
        raise _Malformed
    k = int.from_bytes(raw, "big")
    if not 0 < k < N:
        raise _Malformed
    return k


def _point(value: object) -> bytes:
    point = secp.point_from_bytes(hex_to_bytes(value))
    if point is None:
        raise _Malformed
    return point


def _message(msg: object) -> bytes:
    if isinstance(msg, bytes | bytearray | memoryview):
        return bytes(msg)
    return hex_to_bytes(msg)


def _field(obj: object, name: str) -> object:
    if not isinstance(obj, Mapping):
        raise _Malformed
    return obj[name]


def _scalar_hex(value: int) -> str:
    """`0x` + 64 hex digits. A zero result is refused: no tclk scalar is ever zero."""
    value %= N
    if value == 0:
        raise _Malformed
    return f"0x{value:064x}"


def _add(a: bytes, b: bytes) -> bytes:
    total = secp.point_add(a, b)
    if total is None:  # the point at infinity has no encoding and fails every check
        raise _Malformed
    return total


def _challenge(nonce: bytes, public_key: bytes, msg: bytes) -> int:
    return int.from_bytes(hashlib.sha256(nonce + public_key + msg).digest(), "big") % N


def _holds(s: int, nonce: bytes, public_key: bytes, e: int) -> bool:
    """s·G == nonce + e·P. A zero challenge fails, as the reference's curve library refuses
    to multiply by zero."""
    if e == 0:
        return False
    rhs = secp.point_add(nonce, secp.point_mul(public_key, e))
    return rhs is not None and hmac.compare_digest(secp.scalar_base_mult(s), rhs)


def _random_nonce() -> int:
    return secrets.randbelow(N - 1) + 1


def get_public_key(secret_key: object) -> str | None:
    """`P = d·G`, compressed hex; None if the key is malformed, zero or >= n."""
    try:
        return bytes_to_hex(secp.scalar_base_mult(_scalar(secret_key)))
    except Exception:
        return None


def pre_sign(
    secret_key: object,
    msg: Message,
    statement: object,
    *,
    _nonce: Callable[[], int] = _random_nonce,
) -> PreSignature | None:
    """Pre-sign `msg` under `statement` (T); only someone who knows `t` can complete it.

    The challenge binds the decrypted nonce R̂ + T. None on any malformed input.
    """
    try:
        d = _scalar(secret_key)
        public_key = secp.scalar_base_mult(d)
        r = _nonce()
        nonce = secp.scalar_base_mult(r)
        t_point = _point(statement)
        e = _challenge(_add(nonce, t_point), public_key, _message(msg))
        return {"nonce": bytes_to_hex(nonce), "s": _scalar_hex(r + e * d)}
    except Exception:
        return None


def verify_pre_signature(public_key: object, msg: Message, statement: object, pre: object) -> bool:
    """ŝ·G == R̂ + e·P with e = H((R̂ + T) ‖ P ‖ m). False on any malformed input."""
    try:
        p = _point(public_key)
        nonce = _point(_field(pre, "nonce"))
        t_point = _point(statement)
        e = _challenge(_add(nonce, t_point), p, _message(msg))
        return _holds(_scalar(_field(pre, "s")), nonce, p, e)
    except Exception:
        return False


def adapt(pre: object, witness: object) -> Signature | None:
    """Complete a pre-signature with `t`: R = R̂ + t·G, s = ŝ + t. None if malformed."""
    try:
        t = _scalar(witness)
        nonce = _add(_point(_field(pre, "nonce")), secp.scalar_base_mult(t))
        return {"nonce": bytes_to_hex(nonce), "s": _scalar_hex(_scalar(_field(pre, "s")) + t)}
    except Exception:
        return None


def verify_signature(public_key: object, msg: Message, sig: object) -> bool:
    """s·G == R + e·P with e = H(R ‖ P ‖ m). False on any malformed input."""
    try:
        p = _point(public_key)
        nonce = _point(_field(sig, "nonce"))
        e = _challenge(nonce, p, _message(msg))
        return _holds(_scalar(_field(sig, "s")), nonce, p, e)
    except Exception:
        return False


def extract_witness(pre: object, sig: object) -> str | None:
    """t = s − ŝ mod n, as `0x` + 64 hex; None if either scalar is malformed or they are equal.

    Only the `s` fields are read: checking that the pair belongs together is verify_*'s job.
    """
    try:
        return _scalar_hex(_scalar(_field(sig, "s")) - _scalar(_field(pre, "s")))
    except Exception:
        return None
