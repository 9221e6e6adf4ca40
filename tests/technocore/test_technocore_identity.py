import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.didkey import public_key_from_did_key
from tclk_tui.technocore.identity import (
    Identity,
    canonical_nonce,
    decode_signature,
    encode_signature,
    signing_payload,
    verify_signature,
    verify_signed_text,
)
from tclk_tui.technocore.sweep import single_line_sweep

RFC1_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC2_SEED = bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
RFC3_SEED = bytes.fromhex("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7")


def test_rfc8032_test1_did_and_signature():
    identity = Identity.from_seed(RFC1_SEED)
    assert identity.did == "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
    assert identity.public_key.hex() == (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    )
    assert identity.sign("tclk-offers", 1, "hello") == (
        "3i1ecaJ3TnVgSblppswbkWg0NY8C9dsJNUacz4bK2iRwznMIECyjqo-Fej5FsgO7bQb38rdIkb3rnzAksL8_Cw"
    )


def test_rfc8032_tests_2_and_3_dids():
    assert Identity.from_seed(RFC2_SEED).did == (
        "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT"
    )
    assert Identity.from_seed(RFC3_SEED).did == (
        "did:key:z6MkwSD8dBdqcXQzKJZQFPy2hh2izzxskndKCjdmC2dBpfME"
    )


def test_signing_payload_is_room_nonce_text_utf8():
    assert signing_payload("tclk-offers", 1, "héllo") == "tclk-offers|1|héllo".encode()
    assert signing_payload("r", "1234567890123456789", "x") == b"r|1234567890123456789|x"


@pytest.mark.parametrize(
    "text",
    ["a\nb", " leading", "trailing ", "tab\there", "zero\u200bwidth", "sep\u2028x",
     "bidi\u202eoverride", "private\ue000use", "", "\ufeffbom"],
)
def test_sign_refuses_text_the_sweep_would_change(text):
    identity = Identity.from_seed(RFC1_SEED)
    with pytest.raises(ValueError, match=r"sweep|empty"):
        identity.sign("room", 1, text)


def test_sign_refuses_text_over_the_message_cap():
    identity = Identity.from_seed(RFC1_SEED)
    identity.sign("room", 1, "x" * 4096)
    with pytest.raises(ValueError, match="4096"):
        identity.sign("room", 1, "x" * 4097)


def test_sign_keeps_unicode_the_sweep_leaves_alone():
    identity = Identity.from_seed(RFC1_SEED)
    text = "héllo wörld — 日本語 🎉 Ω"
    sig = identity.sign("room", 5, text)
    assert verify_signed_text(identity.did, "room", 5, text, sig)


@pytest.mark.parametrize("nonce", ["007", "", "1.5", "-1", "12a", "1" * 20, -1, 10**19, True])
def test_non_canonical_nonces_are_refused(nonce):
    with pytest.raises(ValueError):
        canonical_nonce(nonce)


def test_canonical_nonce_accepts_zero_and_nineteen_nines():
    assert canonical_nonce(0) == "0"
    assert canonical_nonce("9999999999999999999") == "9999999999999999999"
    assert canonical_nonce(10**19 - 1) == "9" * 19


def test_bad_room_name_refused():
    with pytest.raises(ValueError):
        signing_payload("Bad Room", 1, "x")


def test_repr_and_str_never_show_the_seed():
    identity = Identity.from_seed(RFC1_SEED)
    for text in (repr(identity), str(identity), f"{identity}"):
        assert RFC1_SEED.hex() not in text
        assert "redacted" in text
        assert identity.did in text


def test_identity_refuses_pickling():
    with pytest.raises(TypeError):
        pickle.dumps(Identity.from_seed(RFC1_SEED))


def test_seed_round_trips_explicitly():
    identity = Identity.generate()
    assert Identity.from_seed(identity.seed) == identity
    assert public_key_from_did_key(identity.did) == identity.public_key


def test_from_seed_rejects_wrong_length():
    with pytest.raises(ValueError):
        Identity.from_seed(b"\x00" * 31)


def test_decode_signature_accepts_only_the_canonical_spelling():
    sig = Identity.from_seed(RFC1_SEED).sign("tclk-offers", 1, "hello")
    assert decode_signature(sig) is not None
    # Same 64 bytes, last character with the unused low bits set: refused.
    assert sig[-1] == "w"
    assert decode_signature(sig[:-1] + "x") is None
    assert decode_signature(sig + "==") is None
    assert decode_signature(sig[:-1]) is None
    assert decode_signature(123) is None


def test_verify_signature_rejects_tampering_and_wrong_keys():
    one, two = Identity.from_seed(RFC1_SEED), Identity.from_seed(RFC2_SEED)
    sig = one.sign("room", 1, "hello")
    assert verify_signed_text(one.did, "room", 1, "hello", sig)
    assert not verify_signed_text(two.did, "room", 1, "hello", sig)
    assert not verify_signed_text(one.did, "other", 1, "hello", sig)
    assert not verify_signed_text(one.did, "room", 2, "hello", sig)
    assert not verify_signed_text(one.did, "room", 1, "hello!", sig)
    assert not verify_signature("did:key:nonsense", b"room|1|hello", sig)
    assert not verify_signed_text(one.did, "room", "01", "hello", sig)


signable = st.text(min_size=1, max_size=200).map(single_line_sweep).filter(bool)


@settings(max_examples=150, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), text=signable,
       nonce=st.integers(min_value=0, max_value=10**19 - 1))
def test_signatures_are_canonical_and_verify(seed, text, nonce):
    identity = Identity.from_seed(seed)
    sig = identity.sign("room-1", nonce, text)
    assert len(sig) == 86 and sig[-1] in "AQgw"
    assert encode_signature(decode_signature(sig)) == sig
    assert verify_signed_text(identity.did, "room-1", nonce, text, sig)
    assert not verify_signed_text(identity.did, "room-2", nonce, text, sig)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=60))
def test_sign_accepts_exactly_what_survives_the_sweep(text):
    identity = Identity.from_seed(RFC3_SEED)
    if text and single_line_sweep(text) == text:
        identity.sign("room", 1, text)
    else:
        with pytest.raises(ValueError):
            identity.sign("room", 1, text)
