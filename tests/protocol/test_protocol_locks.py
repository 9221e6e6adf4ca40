"""Hash and point locks, secret checks, statement validity and deadline policy."""

from __future__ import annotations

import dataclasses
import hashlib
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol import secp
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.locks import (
    SECP256K1_N,
    HashLock,
    PointLock,
    generate_hash_lock,
    generate_point_lock,
    hash_lock_from_preimage,
    is_valid_point_statement,
    is_valid_statement,
    point_lock_from_witness,
    validate_deadlines,
    verify_hash_preimage,
    verify_point_witness,
    verify_secret,
)

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
P11 = "0x" + "11" * 32
H11 = "0x02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc"
Y1 = "0x" + "00" * 31 + "01"
S1 = "0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
Y22 = "0x" + "22" * 32
S22 = "0x02466d7fcae563e5cb09a0d1870bb580344804617879a14949cf22285f1bae3f27"
OFF_CURVE = "0x02" + "00" * 31 + "05"  # x = 5: x³ + 7 is not a square mod p

GARBAGE = [None, 0, 1.5, True, b"", [], {}, object(), "", "0x", "0xzz", "zz", "\ud800"]


def _scalar_bytes(k: int) -> bytes:
    return k.to_bytes(32, "big")


def _uncompressed(statement: str) -> str:
    """The 65-byte SEC1 form of a compressed point, by plain modular arithmetic."""
    p = 2**256 - 2**32 - 977
    x = int(statement[4:], 16)
    y = pow((x**3 + 7) % p, (p + 1) // 4, p)
    if y % 2 != int(statement[2:4], 16) % 2:
        y = p - y
    return "0x04" + x.to_bytes(32, "big").hex() + y.to_bytes(32, "big").hex()


class Draws:
    """A scripted random source that records how much it was asked for."""

    def __init__(self, *values: bytes) -> None:
        self.values = list(values)
        self.sizes: list[int] = []

    def __call__(self, size: int) -> bytes:
        self.sizes.append(size)
        return self.values.pop(0)


# ── constants ────────────────────────────────────────────────────────────────


def test_curve_order() -> None:
    assert SECP256K1_N == N
    assert secp.N == N


# ── hash locks ───────────────────────────────────────────────────────────────


def test_hash_lock_pinned_example() -> None:
    lock = hash_lock_from_preimage(P11)
    assert lock == HashLock(preimage=P11, hash=H11)


def test_hash_lock_accepts_bytes_and_uppercase_hex() -> None:
    assert hash_lock_from_preimage(b"\x11" * 32).hash == H11
    lock = hash_lock_from_preimage("0x" + "AB" * 32)
    assert lock.preimage == "0x" + "ab" * 32
    assert lock.hash == "0x" + hashlib.sha256(b"\xab" * 32).hexdigest()


@pytest.mark.parametrize(("value", "size"), [("0x" + "11" * 31, 31), (b"\x11" * 33, 33), ("0x", 0)])
def test_hash_lock_wrong_length(value: object, size: int) -> None:
    with pytest.raises(TclkError) as info:
        hash_lock_from_preimage(value)  # type: ignore[arg-type]
    assert str(info.value) == f"tclk: hash-lock preimage must be 32 bytes, got {size}"


def test_hash_lock_bad_hex_raises_without_echo() -> None:
    with pytest.raises(TclkError) as info:
        hash_lock_from_preimage("0x" + "11" * 31 + "1")
    assert "1111" not in str(info.value)


def test_generate_hash_lock_uses_32_random_bytes() -> None:
    draws = Draws(b"\x11" * 32)
    assert generate_hash_lock(_randbytes=draws) == HashLock(preimage=P11, hash=H11)
    assert draws.sizes == [32]
    lock = generate_hash_lock()
    assert verify_hash_preimage(lock.hash, lock.preimage)
    assert generate_hash_lock().preimage != lock.preimage


def test_verify_hash_preimage() -> None:
    assert verify_hash_preimage(H11, P11)
    assert verify_hash_preimage(H11.upper().replace("0X", "0x"), P11.upper().replace("0X", "0x"))
    assert verify_hash_preimage(H11, b"\x11" * 32)
    assert not verify_hash_preimage(H11, "0x" + "12" * 32)
    assert not verify_hash_preimage(H11, "0x" + "11" * 31)
    assert not verify_hash_preimage(H11 + "\n", P11)
    assert not verify_hash_preimage("0x" + "00" * 32, P11)


@pytest.mark.parametrize("junk", GARBAGE)
def test_verify_hash_preimage_never_raises(junk: object) -> None:
    assert verify_hash_preimage(junk, P11) is False  # type: ignore[arg-type]
    assert verify_hash_preimage(H11, junk) is False  # type: ignore[arg-type]


# ── point locks ──────────────────────────────────────────────────────────────


def test_point_lock_pinned_examples() -> None:
    assert point_lock_from_witness(Y1) == PointLock(witness=Y1, statement=S1)
    assert point_lock_from_witness(Y22) == PointLock(witness=Y22, statement=S22)
    assert point_lock_from_witness(b"\x22" * 32).statement == S22
    assert point_lock_from_witness("0x" + "AB" * 32).witness == "0x" + "ab" * 32


def test_point_lock_largest_scalar() -> None:
    lock = point_lock_from_witness(_scalar_bytes(N - 1))
    # (n−1)·G = −G: same x as G, odd y.
    assert lock.statement == "0x03" + S1[4:]


@pytest.mark.parametrize("value", [0, N, N + 1, 2**256 - 1])
def test_point_lock_out_of_range_is_refused_never_reduced(value: int) -> None:
    with pytest.raises(TclkError) as info:
        point_lock_from_witness(_scalar_bytes(value))
    assert str(info.value) == "PTLC witness is not a scalar in [1, n)"


@pytest.mark.parametrize(("value", "size"), [("0x01", 1), (b"\x01" * 33, 33), ("0x", 0)])
def test_point_lock_wrong_length(value: object, size: int) -> None:
    with pytest.raises(TclkError) as info:
        point_lock_from_witness(value)  # type: ignore[arg-type]
    assert str(info.value) == f"PTLC witness must be 32 bytes, got {size}"


def test_generate_point_lock_one_bad_draw_then_good() -> None:
    draws = Draws(_scalar_bytes(N), b"\x22" * 32)
    lock = generate_point_lock(_randbytes=draws)
    assert draws.sizes == [32, 32]
    assert lock == PointLock(witness=Y22, statement=S22)


def test_generate_point_lock_skips_zero() -> None:
    draws = Draws(b"\x00" * 32, b"\x22" * 32)
    assert generate_point_lock(_randbytes=draws).statement == S22
    assert draws.sizes == [32, 32]


def test_generate_point_lock_eight_bad_draws() -> None:
    draws = Draws(*([b"\xff" * 32] * 8), b"\x22" * 32)
    with pytest.raises(TclkError, match=r"no scalar in \[1, n\)"):
        generate_point_lock(_randbytes=draws)
    assert draws.sizes == [32] * 8


def test_generate_point_lock_eighth_draw_still_counts() -> None:
    draws = Draws(*([b"\xff" * 32] * 7), b"\x22" * 32)
    assert generate_point_lock(_randbytes=draws).witness == Y22


def test_generate_point_lock_csprng_failure_propagates_at_once() -> None:
    calls = []

    def refuse(size: int) -> bytes:
        calls.append(size)
        raise OSError("no entropy")

    with pytest.raises(OSError, match="no entropy"):
        generate_point_lock(_randbytes=refuse)
    assert calls == [32]


def test_generate_point_lock_real_source() -> None:
    lock = generate_point_lock()
    assert verify_point_witness(lock.statement, lock.witness)
    assert is_valid_statement("point", lock.statement)


def test_verify_point_witness() -> None:
    assert verify_point_witness(S22, Y22)
    assert verify_point_witness(S22.upper().replace("0X", "0x"), Y22)
    assert verify_point_witness(S22, b"\x22" * 32)
    assert not verify_point_witness(S22, Y1)
    assert not verify_point_witness(S1, _scalar_bytes(N + 1))  # n + 1 is not 1
    assert not verify_point_witness(S22, "0x22")


@pytest.mark.parametrize("junk", GARBAGE)
def test_verify_point_witness_never_raises(junk: object) -> None:
    assert verify_point_witness(junk, Y22) is False  # type: ignore[arg-type]
    assert verify_point_witness(S22, junk) is False  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=N - 1))
def test_point_lock_property(y: int) -> None:
    lock = point_lock_from_witness(_scalar_bytes(y))
    assert lock.statement == "0x" + secp.scalar_base_mult(y).hex()
    assert verify_point_witness(lock.statement, lock.witness)
    assert is_valid_point_statement(lock.statement)
    other = y + 1 if y + 1 < N else 1
    assert not verify_point_witness(lock.statement, _scalar_bytes(other))


# ── either lock ──────────────────────────────────────────────────────────────


def test_verify_secret_by_lock_kind() -> None:
    assert verify_secret("hash", H11, P11)
    assert verify_secret("point", S22, Y22)
    assert not verify_secret("hash", S22, Y22)
    assert not verify_secret("point", H11, P11)
    assert not verify_secret("sha256", H11, P11)
    assert not verify_secret("HASH", H11, P11)
    assert not verify_secret(None, H11, P11)


@pytest.mark.parametrize("junk", GARBAGE)
def test_verify_secret_never_raises(junk: object) -> None:
    for lock in ("hash", "point", junk):
        assert verify_secret(lock, junk, junk) is False
        assert verify_secret(lock, H11, junk) is False
        assert verify_secret(lock, junk, P11) is False


def test_is_valid_statement() -> None:
    assert is_valid_statement("hash", H11)
    assert not is_valid_statement("hash", H11.upper().replace("0X", "0x"))
    assert not is_valid_statement("hash", S22)
    assert is_valid_statement("point", S22)
    assert not is_valid_statement("point", S22.upper().replace("0X", "0x"))
    assert not is_valid_statement("point", OFF_CURVE)
    assert not is_valid_statement("point", "0x04" + S22[4:])
    assert not is_valid_statement("point", H11)
    assert not is_valid_statement("other", H11)
    assert not is_valid_statement("hash", H11 + "\n")


@pytest.mark.parametrize("junk", GARBAGE)
def test_is_valid_statement_never_raises(junk: object) -> None:
    assert is_valid_statement("hash", junk) is False
    assert is_valid_statement("point", junk) is False
    assert is_valid_statement(junk, H11) is False


def test_is_valid_point_statement() -> None:
    assert is_valid_point_statement(S22)
    assert is_valid_point_statement(S22.upper().replace("0X", "0x"))  # any case here
    assert is_valid_point_statement("0x03" + S22[4:])
    assert not is_valid_point_statement(OFF_CURVE)
    assert not is_valid_point_statement("0x04" + S22[4:])
    assert not is_valid_point_statement("0x05" + S22[4:])
    p = 2**256 - 2**32 - 977
    assert not is_valid_point_statement("0x02" + (p + 1).to_bytes(32, "big").hex())
    assert not is_valid_point_statement(_uncompressed(S22))
    assert not is_valid_point_statement(S22[:-1])
    assert not is_valid_point_statement(S22 + "00")
    for junk in GARBAGE:
        assert is_valid_point_statement(junk) is False


# ── deadlines ────────────────────────────────────────────────────────────────

T0 = 1_760_000_000_000
HOUR = 3_600_000
OFFER = {"claimByMs": T0 + HOUR, "refundAfterMs": T0 + 2 * HOUR}


@pytest.mark.parametrize(
    ("claim_window", "refund_gap", "expected"),
    [(HOUR, HOUR, True), (HOUR + 1, HOUR, False), (HOUR, HOUR + 1, False), (0, 1, False)],
)
def test_validate_deadlines_pinned_margins(
    claim_window: int, refund_gap: int, expected: bool
) -> None:
    assert validate_deadlines(OFFER, T0, claim_window, refund_gap) is expected


@pytest.mark.parametrize("now", [-math.inf, -1, math.nan, math.inf, True, "1", None])
def test_validate_deadlines_bad_clock(now: object) -> None:
    assert validate_deadlines(OFFER, now, 1, 1) is False  # type: ignore[arg-type]


def test_validate_deadlines_fractional_clock_is_fine() -> None:
    assert validate_deadlines(OFFER, T0 + 0.5, HOUR - 1, HOUR)
    assert not validate_deadlines(OFFER, T0 + 0.5, HOUR, HOUR)


@pytest.mark.parametrize(
    "offer",
    [
        {"claimByMs": T0 + HOUR, "refundAfterMs": math.inf},
        {"claimByMs": 1.5, "refundAfterMs": T0 + 2 * HOUR},
        {"claimByMs": 0, "refundAfterMs": T0 + 2 * HOUR},
        {"claimByMs": -5, "refundAfterMs": T0 + 2 * HOUR},
        {"claimByMs": T0 + HOUR, "refundAfterMs": 2**53},
        {"claimByMs": True, "refundAfterMs": T0 + 2 * HOUR},
        {"claimByMs": str(T0 + HOUR), "refundAfterMs": T0 + 2 * HOUR},
        {"claimByMs": T0 + HOUR},
        {"claimByMs": math.nan, "refundAfterMs": T0 + 2 * HOUR},
        {"claimByMs": T0 + 2 * HOUR, "refundAfterMs": T0 + HOUR},  # reversed pair
        {},
        None,
        "offer",
    ],
)
def test_validate_deadlines_bad_offer(offer: object) -> None:
    assert validate_deadlines(offer, T0, 1, 1) is False


def test_validate_deadlines_integral_floats_count_as_integers() -> None:
    offer = {"claimByMs": float(T0 + HOUR), "refundAfterMs": float(T0 + 2 * HOUR)}
    assert validate_deadlines(offer, float(T0), float(HOUR), float(HOUR))


def test_validate_deadlines_largest_safe_integer() -> None:
    top = 2**53 - 1
    assert validate_deadlines({"claimByMs": top - 10, "refundAfterMs": top}, 0, 1, 10)


@pytest.mark.parametrize(
    ("window", "gap"), [(math.inf, 1), (1, math.inf), (0.5, 1), (1, 0.5), (math.nan, 1), (1, None)]
)
def test_validate_deadlines_bad_margins(window: object, gap: object) -> None:
    assert validate_deadlines(OFFER, T0, window, gap) is False  # type: ignore[arg-type]


def test_validate_deadlines_fractional_margins_above_one() -> None:
    assert validate_deadlines(OFFER, T0, 1.5, 1.5)


def test_validate_deadlines_int_beyond_any_double() -> None:
    assert validate_deadlines(OFFER, 10**400, 1, 1) is False
    assert validate_deadlines(OFFER, T0, 10**400, 1) is False


def test_validate_deadlines_reads_attributes_too() -> None:
    class Offer:
        claimByMs = T0 + HOUR
        refundAfterMs = T0 + 2 * HOUR

    assert validate_deadlines(Offer(), T0, HOUR, HOUR)


# ── secrets stay out of reprs ────────────────────────────────────────────────


def test_lock_reprs_redact_secrets() -> None:
    hash_lock = hash_lock_from_preimage(P11)
    point_lock = point_lock_from_witness(Y22)
    for text in (repr(hash_lock), str(hash_lock), f"{hash_lock}", repr([hash_lock])):
        assert "1111" not in text
        assert H11 in text
    for text in (repr(point_lock), str(point_lock), repr({"lock": point_lock})):
        assert "2222" not in text
        assert S22 in text


def test_locks_are_frozen() -> None:
    lock = hash_lock_from_preimage(P11)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lock.preimage = "0x"  # type: ignore[misc]
    point = point_lock_from_witness(Y22)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.witness = "0x"  # type: ignore[misc]
