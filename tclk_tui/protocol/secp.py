"""secp256k1 points and scalars, and the only place coincurve is imported.

coincurve's maintainers warn that releases may change its API, so the dependency is pinned and
every call lives here: an upgrade touches this file and its tests, nothing else. The rest of
the protocol sees plain `bytes` (SEC1 encodings) and `int` scalars.

Curve arithmetic is libsecp256k1's (through coincurve), never hand-rolled. The point at
infinity has no SEC1 encoding here: a sum that lands on it is reported as `None`, which callers
treat as a failed check.
"""

from __future__ import annotations

from coincurve import PublicKey

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
"""The order of the secp256k1 group; scalars live in [1, N)."""

G = bytes.fromhex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
"""The generator, SEC1-compressed."""

BytesLike = bytes | bytearray | memoryview


def _parse(data: object) -> PublicKey | None:
    """Parse a compressed (02/03) or uncompressed (04) SEC1 point; None for anything else.

    libsecp256k1 also accepts the 65-byte "hybrid" forms (06/07); the reference's curve
    library does not, so the prefix is checked before parsing.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        return None
    raw = bytes(data)  # coincurve treats anything that is not `bytes` as a C pointer
    if not ((len(raw) == 33 and raw[0] in (2, 3)) or (len(raw) == 65 and raw[0] == 4)):
        return None
    try:
        return PublicKey(raw)
    except ValueError:
        return None


def _scalar_bytes(k: object) -> bytes:
    """32 big-endian bytes of a scalar in [1, N); ValueError otherwise (never reduced)."""
    if isinstance(k, bool) or not isinstance(k, int) or not 0 < k < N:
        raise ValueError("scalar is not in [1, n)")
    return k.to_bytes(32, "big")


def point_from_bytes(data: object) -> bytes | None:
    """The SEC1-compressed form of a 33- or 65-byte encoded point, or None if it is invalid."""
    point = _parse(data)
    return None if point is None else point.format(compressed=True)


def is_compressed_point(data: object) -> bool:
    """True iff `data` is 33 bytes, prefix 02/03, and x lies on the curve."""
    return (
        isinstance(data, bytes | bytearray | memoryview)
        and len(data) == 33
        and _parse(data) is not None
    )


def compress(data: BytesLike) -> bytes:
    """Re-encode a valid point as 33 compressed bytes; ValueError if it is not a point."""
    point = _parse(data)
    if point is None:
        raise ValueError("not a secp256k1 point")
    return point.format(compressed=True)


def uncompressed(data: object) -> bytes | None:
    """The 65-byte SEC1 uncompressed form (04 || x || y) of a valid point, or None."""
    point = _parse(data)
    return None if point is None else point.format(compressed=False)


def scalar_base_mult(k: int) -> bytes:
    """k·G, compressed. ValueError unless k is in [1, N)."""
    return PublicKey.from_secret(_scalar_bytes(k)).format(compressed=True)


def point_mul(data: BytesLike, k: int) -> bytes:
    """k·P, compressed. ValueError for an invalid point or a scalar outside [1, N)."""
    scalar = _scalar_bytes(k)
    point = _parse(data)
    if point is None:
        raise ValueError("not a secp256k1 point")
    return point.multiply(scalar).format(compressed=True)


def point_add(a: BytesLike, b: BytesLike) -> bytes | None:
    """A + B, compressed; None if either is not a point or the sum is the point at infinity."""
    pa = _parse(a)
    pb = _parse(b)
    if pa is None or pb is None:
        return None
    try:
        return PublicKey.combine_keys([pa, pb]).format(compressed=True)
    except ValueError:  # libsecp256k1 refuses a sum at infinity
        return None
