"""Curve primitives and Schnorr adaptor signatures, against the reference's pinned vector."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol import adaptor, secp
from tclk_tui.protocol.adaptor import (
    adapt,
    extract_witness,
    get_public_key,
    pre_sign,
    verify_pre_signature,
    verify_signature,
)
from tclk_tui.protocol.locks import verify_point_witness

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
FIELD_P = 2**256 - 2**32 - 977
G_HEX = "0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"

SK = "0x" + "11" * 32
PK = "0x034f355bdcb7cc0af728ef3cceb9615d90684bb5b2ca5f859ab0f0b704075871aa"
T_SECRET = "0x" + "22" * 32
T_POINT = "0x02466d7fcae563e5cb09a0d1870bb580344804617879a14949cf22285f1bae3f27"
PRE = {
    "nonce": "0x02b76be01460f9e164252977ef7206772285ab7afb5c5c15840d87122d58cf46b5",
    "s": "0x1ff60845d26fd66c137b05a55f5cbae3c839f70e74d1b1cffe1285102ca4be13",
}
SIG = {
    "nonce": "0x03bfb038d1a1c7db12b55505995bcbef44a9f53dec70586c3f4ec85d1bfb9e92d1",
    "s": "0x42182a67f491f88e359d27c7817edd05ea5c193096f3d3f22034a7324ec6e035",
}
E_SIG = 0x187E3E0F484A14D943E36F7C0B74FD26DB81DBA4396BD6FB282A10546AEB1F3C
CLAIM_MESSAGES = ["0x", "0x" + "cd" * 32, b"settle inference job #42"]


def _hex_scalar(k: int) -> str:
    return f"0x{k:064x}"


def _point_hex(k: int) -> str:
    return "0x" + secp.scalar_base_mult(k).hex()


def _uncompressed(point_hex: str) -> str:
    """The 65-byte SEC1 form of a compressed point, by plain modular arithmetic."""
    x = int(point_hex[4:], 16)
    y = pow((x**3 + 7) % FIELD_P, (FIELD_P + 1) // 4, FIELD_P)
    if y % 2 != int(point_hex[2:4], 16) % 2:
        y = FIELD_P - y
    return "0x04" + x.to_bytes(32, "big").hex() + y.to_bytes(32, "big").hex()


def _negate(point_hex: str) -> str:
    prefix = "03" if point_hex[2:4] == "02" else "02"
    return "0x" + prefix + point_hex[4:]


def _upper(hex_text: str) -> str:
    return "0x" + hex_text[2:].upper()


# ── curve primitives (secp.py) ───────────────────────────────────────────────


def test_curve_constants() -> None:
    assert secp.N == N
    assert "0x" + secp.G.hex() == G_HEX
    assert secp.scalar_base_mult(1) == secp.G


@pytest.mark.parametrize("k", [0, N, N + 1, -1, True, 1.0, "1"])
def test_scalar_base_mult_refuses_non_scalars(k: object) -> None:
    with pytest.raises(ValueError, match="scalar"):
        secp.scalar_base_mult(k)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scalar"):
        secp.point_mul(secp.G, k)  # type: ignore[arg-type]


def test_point_add_to_infinity_is_none() -> None:
    a = secp.scalar_base_mult(5)
    assert secp.point_add(a, secp.scalar_base_mult(N - 5)) is None
    assert secp.point_add(secp.G, bytes.fromhex(_negate(G_HEX)[2:])) is None


def test_point_add_doubles() -> None:
    a = secp.scalar_base_mult(7)
    assert secp.point_add(a, a) == secp.scalar_base_mult(14)


def test_point_add_refuses_non_points() -> None:
    assert secp.point_add(secp.G, b"\x02" + b"\x00" * 31 + b"\x05") is None
    assert secp.point_add(b"", secp.G) is None
    assert secp.point_add("0x02", secp.G) is None  # type: ignore[arg-type]


def test_point_from_bytes_encodings() -> None:
    g = secp.G
    full = bytes.fromhex(_uncompressed(G_HEX)[2:])
    assert secp.point_from_bytes(g) == g
    assert secp.point_from_bytes(bytearray(g)) == g
    assert secp.point_from_bytes(memoryview(full)) == g
    assert secp.compress(full) == g
    # The "hybrid" 06/07 forms libsecp256k1 would parse are not SEC1 points for tclk.
    assert secp.point_from_bytes(b"\x06" + full[1:]) is None
    assert secp.point_from_bytes(b"\x07" + full[1:]) is None
    assert secp.point_from_bytes(b"\x04" + g[1:]) is None  # 33 bytes with an 04 prefix
    assert secp.point_from_bytes(b"\x02" + full[1:]) is None  # 65 bytes with an 02 prefix
    assert secp.point_from_bytes(b"\x00") is None  # the point at infinity
    assert secp.point_from_bytes(b"\x02" + b"\x00" * 31 + b"\x05") is None  # off curve
    assert secp.point_from_bytes(b"\x02" + (FIELD_P + 1).to_bytes(32, "big")) is None  # x ≥ p
    assert secp.point_from_bytes(g.hex()) is None
    assert secp.point_from_bytes(None) is None


def test_is_compressed_point() -> None:
    assert secp.is_compressed_point(secp.G)
    assert not secp.is_compressed_point(bytes.fromhex(_uncompressed(G_HEX)[2:]))
    assert not secp.is_compressed_point(b"\x03" + b"\x00" * 31 + b"\x05")
    assert not secp.is_compressed_point(G_HEX)


def test_compress_and_point_mul_refuse_non_points() -> None:
    with pytest.raises(ValueError, match="point"):
        secp.compress(b"\x04" + secp.G[1:])
    with pytest.raises(ValueError, match="point"):
        secp.point_mul(b"\x02" + b"\x00" * 31 + b"\x05", 2)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=N - 1), st.integers(min_value=1, max_value=N - 1))
def test_point_arithmetic_is_scalar_arithmetic(a: int, b: int) -> None:
    pa = secp.scalar_base_mult(a)
    total = secp.point_add(pa, secp.scalar_base_mult(b))
    if (a + b) % N == 0:
        assert total is None
    else:
        assert total == secp.scalar_base_mult((a + b) % N)
    assert secp.point_mul(pa, b) == secp.scalar_base_mult(a * b % N)


# ── the reference's deterministic vector ─────────────────────────────────────


def test_public_keys() -> None:
    assert get_public_key(SK) == PK
    assert get_public_key(T_SECRET) == T_POINT
    assert get_public_key(_upper(SK)) == PK


def test_reference_pre_signature_verifies() -> None:
    assert verify_pre_signature(PK, "0x", T_POINT, PRE)
    assert verify_pre_signature(PK, b"", T_POINT, PRE)
    assert verify_pre_signature(
        _upper(PK), "0x", _upper(T_POINT), {k: _upper(v) for k, v in PRE.items()}
    )
    assert verify_pre_signature(_uncompressed(PK), "0x", _uncompressed(T_POINT), PRE)
    assert verify_pre_signature(PK, "0x", T_POINT, {**PRE, "nonce": _uncompressed(PRE["nonce"])})


def test_reference_adapt_and_extract() -> None:
    assert adapt(PRE, T_SECRET) == SIG
    assert adapt({**PRE, "nonce": _uncompressed(PRE["nonce"])}, _upper(T_SECRET)) == SIG
    assert verify_signature(PK, "0x", SIG)
    assert verify_signature(PK, b"", SIG)
    assert extract_witness(PRE, SIG) == T_SECRET
    assert verify_point_witness(T_POINT, extract_witness(PRE, SIG))  # type: ignore[arg-type]


def test_reference_challenge() -> None:
    data = bytes.fromhex(SIG["nonce"][2:] + PK[2:])
    assert int.from_bytes(hashlib.sha256(data).digest(), "big") % N == E_SIG
    assert adaptor._challenge(bytes.fromhex(SIG["nonce"][2:]), bytes.fromhex(PK[2:]), b"") == E_SIG


def test_short_scalar_spellings() -> None:
    assert get_public_key("0x01") == G_HEX
    assert get_public_key("0x00" + "11" * 32) == PK  # 33 bytes with a leading zero
    assert verify_signature(PK, "0x", {**SIG, "s": "0x00" + SIG["s"][2:]})
    assert extract_witness({"s": "0x01"}, {"s": "0x03"}) == _hex_scalar(2)


# ── pinned fail-closed cases ─────────────────────────────────────────────────


@pytest.mark.parametrize(
    "sk", ["0xzz", "0x" + "00" * 32, _hex_scalar(N + 1), _hex_scalar(N), "0x", ""]
)
def test_get_public_key_refuses(sk: str) -> None:
    assert get_public_key(sk) is None


def test_pre_sign_refuses_malformed_inputs() -> None:
    assert pre_sign(SK, "0x", "0xnot-a-point") is None
    assert pre_sign("0x00", "0x", T_POINT) is None
    assert pre_sign(SK, "not hex", T_POINT) is None
    assert pre_sign(SK, "0x", "0x02" + "00" * 31 + "05") is None


def test_adapt_refuses_malformed_inputs() -> None:
    assert adapt(PRE, "0x" + "00" * 32) is None
    assert adapt({"nonce": "0xbad", "s": PRE["s"]}, T_SECRET) is None
    assert adapt(PRE, _hex_scalar(N + 1)) is None
    assert adapt({**PRE, "s": _hex_scalar(N)}, T_SECRET) is None
    assert adapt({"s": PRE["s"]}, T_SECRET) is None


def test_extract_witness_refuses() -> None:
    assert extract_witness({"s": "0xzz"}, SIG) is None
    assert extract_witness(PRE, {"nonce": PRE["nonce"], "s": PRE["s"]}) is None
    assert extract_witness(PRE, {"s": _hex_scalar(N)}) is None


def test_pre_signature_is_not_a_signature() -> None:
    assert not verify_signature(PK, "0x", PRE)


def test_wrong_witness_gives_a_signature_that_fails() -> None:
    bad = adapt(PRE, "0x" + "23" * 32)
    assert bad is not None
    assert not verify_signature(PK, "0x", bad)


def test_pre_signature_is_bound_to_message_key_and_statement() -> None:
    assert not verify_pre_signature(PK, "0x00", T_POINT, PRE)
    assert not verify_pre_signature(get_public_key("0x" + "12" * 32), "0x", T_POINT, PRE)
    assert not verify_pre_signature(PK, "0x", G_HEX, PRE)
    assert not verify_signature(PK, "0x00", SIG)


@pytest.mark.parametrize("s", [_hex_scalar(N), _hex_scalar(N + 1), "0x" + "00" * 32, "0x", "0xzz"])
def test_scalar_out_of_range_fails_verification(s: str) -> None:
    assert not verify_pre_signature(PK, "0x", T_POINT, {**PRE, "s": s})
    assert not verify_signature(PK, "0x", {**SIG, "s": s})


def test_hybrid_point_encodings_are_refused() -> None:
    hybrid = "0x06" + _uncompressed(PK)[4:]
    if int(PK[2:4], 16) == 3:
        hybrid = "0x07" + _uncompressed(PK)[4:]
    assert not verify_signature(hybrid, "0x", SIG)


# ── points at infinity ───────────────────────────────────────────────────────


def test_pre_sign_nonce_cancelling_the_statement_fails_closed() -> None:
    r = 12345
    statement = _point_hex(N - r)  # R̂ + T is the point at infinity
    assert pre_sign(SK, "0x", statement, _nonce=lambda: r) is None


def test_pre_sign_with_injected_nonce_is_reproducible() -> None:
    first = pre_sign(SK, "0x", T_POINT, _nonce=lambda: 777)
    assert first == pre_sign(SK, "0x", T_POINT, _nonce=lambda: 777)
    assert first is not None
    assert first["nonce"] == _point_hex(777)
    assert verify_pre_signature(PK, "0x", T_POINT, first)


def test_pre_sign_refuses_a_bad_nonce_source() -> None:
    assert pre_sign(SK, "0x", T_POINT, _nonce=lambda: 0) is None
    assert pre_sign(SK, "0x", T_POINT, _nonce=lambda: N) is None

    def broken() -> int:
        raise OSError("no entropy")

    assert pre_sign(SK, "0x", T_POINT, _nonce=broken) is None


def test_verify_pre_signature_with_nonce_cancelling_statement_is_false() -> None:
    assert not verify_pre_signature(PK, "0x", T_POINT, {"nonce": _negate(T_POINT), "s": PRE["s"]})


def test_adapt_to_infinity_is_none() -> None:
    assert adapt({"nonce": _negate(T_POINT), "s": PRE["s"]}, T_SECRET) is None


def test_adapt_to_a_zero_scalar_is_none() -> None:
    # ŝ + t ≡ 0 (mod n) cannot verify; no zero scalar ever leaves this module.
    t = int(T_SECRET, 16)
    assert adapt({"nonce": PRE["nonce"], "s": _hex_scalar(N - t)}, T_SECRET) is None


# ── properties ───────────────────────────────────────────────────────────────

SCALARS = st.integers(min_value=1, max_value=N - 1)
MESSAGES = st.one_of(
    st.binary(max_size=64),
    st.binary(max_size=64).map(lambda b: "0x" + b.hex()),
    st.binary(max_size=64).map(lambda b: "0x" + b.hex().upper()),
)


@settings(max_examples=60, deadline=None)
@given(SCALARS, SCALARS, MESSAGES)
def test_full_cycle_returns_the_witness(d: int, t: int, msg: str | bytes) -> None:
    sk, witness = _hex_scalar(d), _hex_scalar(t)
    public_key, statement = get_public_key(sk), get_public_key(witness)
    assert public_key is not None and statement is not None
    pre = pre_sign(sk, msg, statement)
    assert pre is not None
    assert len(pre["nonce"]) == 68 and pre["nonce"] == pre["nonce"].lower()
    assert len(pre["s"]) == 66 and pre["s"] == pre["s"].lower()
    assert verify_pre_signature(public_key, msg, statement, pre)
    assert not verify_signature(public_key, msg, pre)
    sig = adapt(pre, witness)
    assert sig is not None
    assert verify_signature(public_key, msg, sig)
    assert extract_witness(pre, sig) == witness
    assert verify_point_witness(statement, extract_witness(pre, sig))  # type: ignore[arg-type]


def test_claim_messages_of_the_reference_tests() -> None:
    for msg in CLAIM_MESSAGES:
        pre = pre_sign(SK, msg, T_POINT)
        assert pre is not None and verify_pre_signature(PK, msg, T_POINT, pre)
        sig = adapt(pre, T_SECRET)
        assert sig is not None and verify_signature(PK, msg, sig)
        assert extract_witness(pre, sig) == T_SECRET


def test_pre_sign_nonces_are_random() -> None:
    assert pre_sign(SK, "0x", T_POINT) != pre_sign(SK, "0x", T_POINT)


JUNK_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=80),
    st.binary(max_size=80),
    st.binary(max_size=70).map(lambda b: "0x" + b.hex()),
    st.sampled_from([PK, T_POINT, SK, T_SECRET, PRE["nonce"], PRE["s"], "0x", "0x00"]),
)
JUNK = st.recursive(
    JUNK_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["nonce", "s", "x"]), inner, max_size=3),
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(JUNK, JUNK, JUNK, JUNK)
def test_garbage_never_raises(a: Any, b: Any, c: Any, d: Any) -> None:
    assert get_public_key(a) is None or isinstance(get_public_key(a), str)
    assert pre_sign(a, b, c) is None or isinstance(pre_sign(a, b, c), dict)
    assert isinstance(verify_pre_signature(a, b, c, d), bool)
    assert adapt(a, b) is None or isinstance(adapt(a, b), dict)
    assert isinstance(verify_signature(a, b, c), bool)
    assert extract_witness(a, b) is None or isinstance(extract_witness(a, b), str)


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=1, max_size=66))
def test_random_bytes_as_points_never_raise(raw: bytes) -> None:
    text = "0x" + raw.hex()
    assert isinstance(verify_signature(text, "0x", SIG), bool)
    assert isinstance(verify_pre_signature(PK, "0x", text, PRE), bool)
    assert adapt({"nonce": text, "s": PRE["s"]}, T_SECRET) is None or secp.point_from_bytes(raw)
