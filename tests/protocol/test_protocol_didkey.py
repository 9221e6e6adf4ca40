"""did:key (Ed25519) and base58btc: the RFC 8032 worked examples and round trips."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from tclk_tui.protocol.didkey import (
    B58_ALPHABET,
    DID_RE,
    b58decode,
    b58encode,
    base58btc_decode,
    base58btc_encode,
    did_key_from_public_key,
    is_ed25519_did_key,
    public_key_from_did_key,
)
from tclk_tui.protocol.errors import TclkError

RFC8032 = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "did:key:z6MkwSD8dBdqcXQzKJZQFPy2hh2izzxskndKCjdmC2dBpfME",
    ),
]


@pytest.mark.parametrize(("seed", "public", "did"), RFC8032)
def test_rfc_8032_keys_give_the_pinned_dids(seed: str, public: str, did: str) -> None:
    key = SigningKey(bytes.fromhex(seed)).verify_key
    assert bytes(key).hex() == public
    assert did_key_from_public_key(bytes.fromhex(public)) == did
    assert public_key_from_did_key(did) == bytes.fromhex(public)
    assert is_ed25519_did_key(did)
    assert DID_RE.fullmatch(did)


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"", ""),
        (b"\x00", "1"),
        (b"\x00\x00\x01", "112"),
        (b"\x01", "2"),
        (b"\x39", "z"),
        (b"\x3a", "21"),
        (b"hello world", "StV1DL6CwTryKyV"),
        (b"Hello World!", "2NEpo7TZRRrLZSi2U"),
        (b"\x00\x00\x28\x7f\xb4\xcd", "11233QC4"),
    ],
)
def test_base58btc_vectors(raw: bytes, text: str) -> None:
    assert b58encode(raw) == text
    assert b58decode(text) == raw
    assert base58btc_encode is b58encode and base58btc_decode is b58decode


@pytest.mark.parametrize("text", ["0", "O", "I", "l", "abc+", " 1", "\u0661"])
def test_base58btc_refuses_characters_outside_the_alphabet(text: str) -> None:
    assert b58decode(text) is None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_base58btc_round_trips(raw: bytes) -> None:
    text = b58encode(raw)
    assert set(text) <= set(B58_ALPHABET)
    assert b58decode(text) == raw


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_every_ed25519_key_gives_a_56_char_z6mk_did(public: bytes) -> None:
    did = did_key_from_public_key(public)
    assert len(did) == 56
    assert did.startswith("did:key:z6Mk")
    assert DID_RE.fullmatch(did)
    assert public_key_from_did_key(did) == public
    assert did_key_from_public_key(bytearray(public)) == did


@pytest.mark.parametrize("bad", [b"", b"\x00" * 31, b"\x00" * 33, "00" * 32, None, 5])
def test_public_key_must_be_32_bytes(bad: Any) -> None:
    with pytest.raises(TclkError, match="32 bytes"):
        did_key_from_public_key(bad)
    with pytest.raises(ValueError, match="32 bytes"):  # TclkError is a ValueError
        did_key_from_public_key(bad)


SECP256K1_DID = "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"
GOOD = RFC8032[0][2]


@pytest.mark.parametrize(
    "did",
    [
        None,
        5,
        b"did:key:z6Mk",
        "",
        "did:key:z",
        "did:key:z6Mk",
        GOOD[:-1],
        GOOD + "1",
        GOOD.replace("did:key:z", "did:key:Z"),
        GOOD.replace("did:key:", "did:web:"),
        " " + GOOD,
        GOOD + "\n",
        GOOD[:-1] + "0",
        GOOD[:-1] + "l",
        SECP256K1_DID,
        "did:key:z" + b58encode(b"\xed\x01" + b"\x00" * 31),  # 31-byte key
        "did:key:z" + b58encode(b"\xed\x01" + b"\x00" * 33),
        "did:key:z6Mk" + "1" * 10_000,
    ],
)
def test_not_an_ed25519_did_key(did: Any) -> None:
    assert public_key_from_did_key(did) is None
    assert not is_ed25519_did_key(did)


def test_secp256k1_multicodec_is_refused_even_when_well_formed() -> None:
    raw = b"\xe7\x01" + b"\x02" + b"\x11" * 32
    assert public_key_from_did_key("did:key:z" + b58encode(raw)) is None


def test_grammar_only_dids_decode_to_some_32_bytes() -> None:
    # `did:key:z6Mk` + 44 x `f` is the golden vectors' placeholder: it passes the frame grammar
    # and decodes, so only a signature check can tell it is nobody's key.
    placeholder = "did:key:z6Mk" + "f" * 44
    key = public_key_from_did_key(placeholder)
    assert key is not None and len(key) == 32
    assert did_key_from_public_key(key) == placeholder
