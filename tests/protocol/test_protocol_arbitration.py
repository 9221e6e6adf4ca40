"""Commit-reveal votes and unanimous (n-of-n) secret splitting."""

from __future__ import annotations

import hashlib
import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.arbitration import (
    combine_secret,
    combine_witness,
    generate_salt,
    split_secret,
    split_witness,
    verify_vote_commitment,
    vote_commitment,
)
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.locks import (
    hash_lock_from_preimage,
    point_lock_from_witness,
    verify_hash_preimage,
    verify_point_witness,
)

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
CONTRACT = "0x" + "ab" * 32
SALT = "0x" + "cd" * 32
YES = "0xb24f6482767546578130dac32e26dce085e99b1bc8a2f630a5dc141ba3c7076a"
HEX64 = re.compile(r"0x[0-9a-f]{64}")


def _expected(verdict_utf8: bytes, contract: str = CONTRACT, salt: str = SALT) -> str:
    data = (
        b"FLOP::tclk::v1|commit|" + contract.encode() + b"|" + verdict_utf8 + b"|" + salt.encode()
    )
    return "0x" + hashlib.sha256(data).hexdigest()


def _hex_scalar(k: int) -> str:
    return f"0x{k:064x}"


class Draws:
    def __init__(self, *values: bytes) -> None:
        self.values = list(values)
        self.sizes: list[int] = []

    def __call__(self, size: int) -> bytes:
        self.sizes.append(size)
        return self.values.pop(0)


# ── salts and commitments ────────────────────────────────────────────────────


def test_generate_salt() -> None:
    salt = generate_salt()
    assert HEX64.fullmatch(salt)
    assert generate_salt() != salt
    draws = Draws(b"\xcd" * 32)
    assert generate_salt(_randbytes=draws) == SALT
    assert draws.sizes == [32]


def test_vote_commitment_pinned_example() -> None:
    assert vote_commitment(CONTRACT, "yes", SALT) == YES
    assert _expected(b"yes") == YES


def test_vote_commitment_binds_contract_verdict_and_salt() -> None:
    assert vote_commitment("0x" + "ac" * 32, "yes", SALT) != YES
    assert vote_commitment(CONTRACT, "no", SALT) != YES
    assert vote_commitment(CONTRACT, "yes", "0x" + "ce" * 32) != YES


@pytest.mark.parametrize(
    "contract", ["0x" + "AB" * 32, "0x" + "ab" * 31, "ab" * 32, "0x" + "ab" * 32 + "\n", None, 5]
)
def test_vote_commitment_refuses_bad_contract_first(contract: object) -> None:
    with pytest.raises(TclkError) as info:
        vote_commitment(contract, "", "junk")  # type: ignore[arg-type]
    assert str(info.value) == "tclk: contract must be a 0x-hex contract id"


def test_vote_commitment_refuses_empty_verdict_before_salt() -> None:
    with pytest.raises(TclkError, match=r"^tclk: verdict must not be empty$"):
        vote_commitment(CONTRACT, "", "junk")


@pytest.mark.parametrize("verdict", ["yes|no", "|", "a|\n"])
def test_vote_commitment_refuses_pipe(verdict: str) -> None:
    with pytest.raises(TclkError) as info:
        vote_commitment(CONTRACT, verdict, SALT)
    assert str(info.value) == "tclk: verdict must not contain '|'"


@pytest.mark.parametrize(
    "verdict",
    [
        "yes\n",
        "y\tes",
        "yes\x7f",
        "\x00",
        "\x85",  # NEL is Cc
        "ye\u200bs",
        "ye\u200ds",
        "\u202eyes",
        "y\u00ades",
        "\ufeffyes",
        "yes\u2028",
        "yes\u2029",
        "yes\U000e0001",  # LANGUAGE TAG, an astral Cf
        "yes\udb40\udc01",  # the same, spelled as a surrogate pair
        "yes\U00013439",  # a Cf assigned after Unicode 14
    ],
)
def test_vote_commitment_refuses_characters_the_venue_rewrites(verdict: str) -> None:
    with pytest.raises(TclkError) as info:
        vote_commitment(CONTRACT, verdict, SALT)
    assert str(info.value) == "tclk: verdict must not contain characters the venue rewrites"


@pytest.mark.parametrize(
    "verdict", ["はい", "нет", "✓", "si\u00a0no", "\ue000", " yes ", "\U0001f600", "a\ud800b"]
)
def test_vote_commitment_accepts_visible_text(verdict: str) -> None:
    commitment = vote_commitment(CONTRACT, verdict, SALT)
    assert HEX64.fullmatch(commitment)
    assert verify_vote_commitment(commitment, CONTRACT, verdict, SALT)


def test_non_ascii_verdict_is_hashed_as_utf8() -> None:
    assert vote_commitment(CONTRACT, "はい", SALT) == _expected("はい".encode())


def test_lone_surrogates_hash_as_replacement_characters() -> None:
    """JavaScript's TextEncoder writes U+FFFD for a lone surrogate; so does this port."""
    expected = _expected(b"a\xef\xbf\xbdb")
    assert vote_commitment(CONTRACT, "a\ud800b", SALT) == expected
    assert vote_commitment(CONTRACT, "a\udc00b", SALT) == expected
    assert vote_commitment(CONTRACT, "a\ufffdb", SALT) == expected
    assert vote_commitment(CONTRACT, "\ud800", SALT) == _expected(b"\xef\xbf\xbd")
    # Two lone highs then a pair: one U+FFFD per lone unit, the pair joined.
    assert vote_commitment(CONTRACT, "\ud800\ud800\udc00", SALT) == _expected(
        b"\xef\xbf\xbd" + "\U00010000".encode()
    )


def test_surrogate_pair_spelling_hashes_as_the_astral_character() -> None:
    assert vote_commitment(CONTRACT, "\ud83d\ude00", SALT) == vote_commitment(
        CONTRACT, "\U0001f600", SALT
    )


@pytest.mark.parametrize("salt", ["0x" + "CD" * 32, "0x" + "cd" * 31, "cd" * 32, "0x", None])
def test_vote_commitment_refuses_bad_salt(salt: object) -> None:
    with pytest.raises(TclkError) as info:
        vote_commitment(CONTRACT, "yes", salt)  # type: ignore[arg-type]
    assert str(info.value) == "tclk: salt must be 32 bytes of 0x-hex"


def test_vote_commitment_refuses_non_string_verdict() -> None:
    with pytest.raises(TclkError):
        vote_commitment(CONTRACT, 1, SALT)  # type: ignore[arg-type]


def test_verify_vote_commitment() -> None:
    assert verify_vote_commitment(YES, CONTRACT, "yes", SALT)
    assert verify_vote_commitment("0x" + YES[2:].upper(), CONTRACT, "yes", SALT)
    assert not verify_vote_commitment(YES, CONTRACT, "no", SALT)
    assert not verify_vote_commitment(YES, CONTRACT, "yes", "0x" + "ce" * 32)
    assert not verify_vote_commitment(YES, "0x" + "ac" * 32, "yes", SALT)
    assert not verify_vote_commitment(YES + "\n", CONTRACT, "yes", SALT)


@pytest.mark.parametrize(
    "args",
    [
        (None, CONTRACT, "yes", SALT),
        (YES, CONTRACT, "yes|no", SALT),
        (YES, CONTRACT, "yes\n", SALT),
        (YES, CONTRACT, "", SALT),
        (YES, "junk", "yes", SALT),
        (YES, CONTRACT, "yes", "junk"),
        (YES, CONTRACT, None, SALT),
        ("0x" + "\u212a" * 64, CONTRACT, "yes", SALT),
    ],
)
def test_verify_vote_commitment_never_raises(args: tuple[object, ...]) -> None:
    assert verify_vote_commitment(*args) is False  # type: ignore[arg-type]


# ── XOR splitting of a preimage ──────────────────────────────────────────────

PREIMAGE = "0x" + "11" * 32


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=2, max_value=6), st.randoms())
def test_split_secret_round_trip(raw: bytes, parts: int, rnd: object) -> None:
    preimage = "0x" + raw.hex()
    shares = split_secret(preimage, parts)
    assert len(shares) == parts
    assert all(HEX64.fullmatch(share) for share in shares)
    assert combine_secret(shares) == preimage
    shuffled = list(shares)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert combine_secret(shuffled) == preimage


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=3, max_value=6))
def test_proper_subsets_of_secret_shares_open_nothing(parts: int) -> None:
    lock = hash_lock_from_preimage(PREIMAGE)
    shares = split_secret(lock.preimage, parts)
    for size in range(2, parts):
        for subset in itertools.combinations(shares, size):
            combined = combine_secret(list(subset))
            assert combined != lock.preimage
            assert not verify_hash_preimage(lock.hash, combined)


def test_split_secret_is_xor_of_the_draws() -> None:
    draws = Draws(b"\x01" * 32, b"\x02" * 32)
    shares = split_secret(PREIMAGE, 3, _randbytes=draws)
    assert shares == ["0x" + "01" * 32, "0x" + "02" * 32, "0x" + "12" * 32]
    assert draws.sizes == [32, 32]


def test_split_secret_checks_the_preimage_first() -> None:
    with pytest.raises(TclkError) as info:
        split_secret("0x" + "11" * 31, 1)
    assert str(info.value) == "tclk: preimage must be 32 bytes of 0x-hex"
    with pytest.raises(TclkError, match="preimage must be"):
        split_secret("0x" + "AB" * 32, 2)


@pytest.mark.parametrize("parts", [1, 0, -3, 2.5, True, "3", None, float("nan"), float("inf")])
def test_split_needs_a_whole_number_of_at_least_two_parts(parts: object) -> None:
    with pytest.raises(TclkError) as info:
        split_secret(PREIMAGE, parts)  # type: ignore[arg-type]
    assert str(info.value) == "tclk: a split needs at least 2 parts"
    with pytest.raises(TclkError, match="at least 2 parts"):
        split_witness(PREIMAGE, parts)  # type: ignore[arg-type]


def test_integral_float_parts_are_accepted() -> None:
    assert len(split_secret(PREIMAGE, 3.0)) == 3  # type: ignore[arg-type]


@pytest.mark.parametrize("shares", [[], [PREIMAGE], (PREIMAGE,), PREIMAGE, None, {PREIMAGE: 1}])
def test_combine_refuses_fewer_than_two_shares(shares: object) -> None:
    with pytest.raises(TclkError, match=r"^tclk: a split needs at least 2 parts$"):
        combine_secret(shares)  # type: ignore[arg-type]
    with pytest.raises(TclkError, match=r"^tclk: a split needs at least 2 parts$"):
        combine_witness(shares)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["0x" + "11" * 31, "0x" + "AB" * 32, None, b"\x11" * 32])
def test_combine_secret_refuses_bad_shares(bad: object) -> None:
    with pytest.raises(TclkError) as info:
        combine_secret([PREIMAGE, bad])  # type: ignore[list-item]
    assert str(info.value) == "tclk: share must be 32 bytes of 0x-hex"


def test_combine_secret_may_be_zero() -> None:
    assert combine_secret([PREIMAGE, PREIMAGE]) == "0x" + "00" * 32


# ── additive splitting of a witness ──────────────────────────────────────────


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=N - 1), st.integers(min_value=2, max_value=6))
def test_split_witness_round_trip(y: int, parts: int) -> None:
    witness = _hex_scalar(y)
    shares = split_witness(witness, parts)
    assert len(shares) == parts
    assert all(HEX64.fullmatch(share) and 0 < int(share, 16) < N for share in shares)
    assert combine_witness(shares) == witness
    assert combine_witness(list(reversed(shares))) == witness


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=N - 1), st.integers(min_value=3, max_value=6))
def test_proper_subsets_of_witness_shares_open_nothing(y: int, parts: int) -> None:
    lock = point_lock_from_witness(_hex_scalar(y))
    shares = split_witness(lock.witness, parts)
    assert verify_point_witness(lock.statement, combine_witness(shares))
    for size in range(2, parts):
        for subset in itertools.combinations(shares, size):
            try:
                combined = combine_witness(list(subset))
            except TclkError:  # a subset summing to zero opens nothing either
                continue
            assert combined != lock.witness
            assert not verify_point_witness(lock.statement, combined)


def test_twenty_three_way_splits_are_all_valid_scalars() -> None:
    witness = point_lock_from_witness("0x" + "22" * 32).witness
    for _ in range(20):
        shares = split_witness(witness, 3)
        assert all(HEX64.fullmatch(share) and int(share, 16) > 0 for share in shares)
        assert combine_witness(shares) == witness


def test_split_witness_resamples_a_zero_share() -> None:
    y = 0x22
    draws = Draws(b"\x00" * 32, (5).to_bytes(32, "big"))
    shares = split_witness(_hex_scalar(y), 2, _randbytes=draws)
    assert shares == [_hex_scalar(5), _hex_scalar(y - 5)]
    assert draws.sizes == [32, 32]


def test_split_witness_resamples_when_the_last_share_is_zero() -> None:
    y = 0x22
    draws = Draws(y.to_bytes(32, "big"), (7).to_bytes(32, "big"))
    shares = split_witness(_hex_scalar(y), 2, _randbytes=draws)
    assert shares == [_hex_scalar(7), _hex_scalar(y - 7)]


def test_split_witness_reduces_draws_mod_n() -> None:
    draws = Draws((N + 3).to_bytes(32, "big"))
    assert split_witness(_hex_scalar(10), 2, _randbytes=draws) == [_hex_scalar(3), _hex_scalar(7)]


@pytest.mark.parametrize(
    ("witness", "message"),
    [
        ("0xzz", "tclk: witness must be 32 bytes of 0x-hex"),
        ("0x" + "22" * 31, "tclk: witness must be 32 bytes of 0x-hex"),
        ("0x" + "AB" * 32, "tclk: witness must be 32 bytes of 0x-hex"),
        ("0x" + "00" * 32, "tclk: witness is not a scalar in [1, n)"),
        (_hex_scalar(N), "tclk: witness is not a scalar in [1, n)"),
    ],
)
def test_split_witness_refuses_bad_witness_before_parts(witness: str, message: str) -> None:
    with pytest.raises(TclkError) as info:
        split_witness(witness, 1)
    assert str(info.value) == message


def test_combine_witness_pinned_sums() -> None:
    with pytest.raises(TclkError) as info:
        combine_witness([_hex_scalar(N - 1), _hex_scalar(1)])
    assert str(info.value) == "tclk: shares sum to zero, which is not a valid witness"
    assert combine_witness([_hex_scalar(N - 1), _hex_scalar(2)]) == "0x" + "00" * 31 + "01"


@pytest.mark.parametrize(
    ("share", "message"),
    [
        (_hex_scalar(N), "tclk: share is not a scalar in [1, n)"),
        ("0x" + "00" * 32, "tclk: share is not a scalar in [1, n)"),
        ("0x" + "11" * 31, "tclk: share must be 32 bytes of 0x-hex"),
        (5, "tclk: share must be 32 bytes of 0x-hex"),
    ],
)
def test_combine_witness_refuses_bad_shares(share: object, message: str) -> None:
    with pytest.raises(TclkError) as info:
        combine_witness([_hex_scalar(1), share])  # type: ignore[list-item]
    assert str(info.value) == message
