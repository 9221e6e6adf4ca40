"""Pattern 4 sealing and the signed e2e: record.

The vectors below come from the pattern's own text, computed here by a second implementation
written straight from it (step by step with `cryptography`, sharing no code with the module):
the module must produce the same bytes from the same randomness and open what that second
implementation seals.
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.technocore.e2e import (
    MAX_PLAIN_BYTES,
    Channel,
    E2EError,
    choose_record,
    decrypt_line,
    encrypt_line,
    make_record,
    new_channel,
    open_channel,
    scan_records,
    seal_channel,
    split_plain,
    x25519_public,
)
from tclk_tui.technocore.identity import MAX_TEXT_CHARS, Identity
from tclk_tui.technocore.notes import compose_did_note

ALICE = Identity.from_seed(hashlib.sha256(b"e2e alice").digest())
MALLORY = Identity.from_seed(hashlib.sha256(b"e2e mallory").digest())
STATIC = hashlib.sha256(b"alice static x25519").digest()
EPH = hashlib.sha256(b"bob ephemeral x25519").digest()
SEAL_NONCE = bytes(range(12))
K = hashlib.sha256(b"room key").digest()
ROOM = "p-9f2c81d0a4e6b357c2d1"  # the pattern's own example room name


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def feeder(*chunks: bytes):
    queue = list(chunks)

    def take(n: int) -> bytes:
        chunk = queue.pop(0)
        assert len(chunk) == n
        return chunk
    return take


# -- the second implementation, from the pattern's steps 4-7 --------------------------------


def pattern_seal(static_pub: bytes, eph_priv: bytes, nonce12: bytes, k: bytes, room: str) -> str:
    eph = X25519PrivateKey.from_private_bytes(eph_priv)
    shared = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                  info=b"technocore-e2e-v1").derive(
        eph.exchange(X25519PublicKey.from_public_bytes(static_pub)))
    sealed = AESGCM(shared).encrypt(nonce12, k + room.encode(), None)
    return f"e2e1 {b64(eph.public_key().public_bytes_raw())} {b64(nonce12)} {b64(sealed)}"


def pattern_open(static_priv: bytes, line: str) -> tuple[bytes, str]:
    _, eph_pub, nonce12, sealed = line.split(" ")
    me = X25519PrivateKey.from_private_bytes(static_priv)
    shared = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                  info=b"technocore-e2e-v1").derive(
        me.exchange(X25519PublicKey.from_public_bytes(unb64(eph_pub))))
    plain = AESGCM(shared).decrypt(unb64(nonce12), unb64(sealed), None)
    return plain[:32], plain[32:].decode()


def test_sealing_matches_the_pattern_byte_for_byte():
    static_pub = x25519_public(STATIC)
    ours = seal_channel(static_pub, Channel(ROOM, K), _randbytes=feeder(EPH, SEAL_NONCE))
    assert ours == pattern_seal(static_pub, EPH, SEAL_NONCE, K, ROOM)
    assert pattern_open(STATIC, ours) == (K, ROOM)


def test_this_wallet_opens_what_the_second_implementation_seals():
    line = pattern_seal(x25519_public(STATIC), EPH, SEAL_NONCE, K, ROOM)
    channel = open_channel(line, STATIC)
    assert (channel.key, channel.room) == (K, ROOM)
    assert "redacted" in repr(channel) and K.hex() not in repr(channel)


def test_room_lines_are_nonce_dot_ciphertext_with_no_aad():
    msg_nonce = bytes(12)
    line = encrypt_line(K, "本文。改行も\nzero\u200bwidth", _randbytes=feeder(msg_nonce))
    head, _, ct = line.partition(".")
    assert unb64(head) == msg_nonce
    assert AESGCM(K).decrypt(msg_nonce, unb64(ct), None).decode() == "本文。改行も\nzero\u200bwidth"
    other = f"{b64(msg_nonce)}.{b64(AESGCM(K).encrypt(msg_nonce, b'from them', None))}"
    assert decrypt_line(K, other) == "from them"


def test_the_pattern_budget_a_full_plaintext_stays_inside_the_cap():
    line = encrypt_line(K, "x" * MAX_PLAIN_BYTES)
    # "a full 2000-char plaintext encrypts to ~2.7 KB of base64 — inside the 4096-char cap"
    assert 2600 < len(line) < 2800 and len(line) <= MAX_TEXT_CHARS
    with pytest.raises(ValueError, match="split"):
        encrypt_line(K, "x" * (MAX_PLAIN_BYTES + 1))


def test_every_line_gets_a_fresh_nonce():
    lines = {encrypt_line(K, "same words").partition(".")[0] for _ in range(50)}
    assert len(lines) == 50
    a, b = new_channel(), new_channel()
    assert a.room != b.room and a.key != b.key and a.room.startswith("p-")


# -- the signed record --------------------------------------------------------------------


def record_note(*records: str, did: str = ALICE.did) -> str:
    return " ".join([did, "mailbox:mb-p-old", *records])


def test_record_signature_covers_the_pattern_string():
    pub = x25519_public(STATIC)
    record = make_record(ALICE, pub, "mb-p-alicebox", 7)
    token, x, mailbox, nonce, sig = record.split(" ")
    assert (token, x, mailbox, nonce) == ("e2e:", b64(pub), "mb-p-alicebox", "7")
    from nacl.signing import VerifyKey
    VerifyKey(ALICE.public_key).verify(
        f"e2e|{ALICE.did}|{x}|mb-p-alicebox|7".encode(), unb64(sig))
    chosen = choose_record(ALICE.did, record_note(record), seen_nonce=None)
    assert (chosen.x25519, chosen.mailbox, chosen.nonce) == (pub, "mb-p-alicebox", 7)


def test_the_highest_verifying_nonce_wins_and_forgeries_do_not_count():
    pub = x25519_public(STATIC)
    old = make_record(ALICE, pub, "mb-p-one", 1)
    new = make_record(ALICE, x25519_public(EPH), "mb-p-two", 2)
    forged = make_record(MALLORY, x25519_public(K), "mb-p-evil", 99).split(" ")
    forged_as_alice = " ".join(forged)  # Mallory's signature, filed in Alice's note
    chosen = choose_record(ALICE.did, record_note(old, forged_as_alice, new), seen_nonce=1)
    assert chosen.mailbox == "mb-p-two"
    scan = scan_records(ALICE.did, record_note(old, forged_as_alice, new))
    assert any("not signed by this did:key" in why for why in scan.refused)


def test_a_lower_nonce_than_seen_is_refused():
    old = make_record(ALICE, x25519_public(STATIC), "mb-p-one", 3)
    with pytest.raises(E2EError, match="lower than 5"):
        choose_record(ALICE.did, record_note(old), seen_nonce=5)


@pytest.mark.parametrize("note,reason", [
    (None, "no DID note"),
    (f"{MALLORY.did} e2e: AAAA mb-p-x 1 sig", "does not name"),
    (f"{ALICE.did} x25519:AAAA mailbox:mb-p-x", "no e2e: record"),
    (f"{ALICE.did} e2e: AAAA mb-p-x", "fewer than four"),
    (f"{ALICE.did} e2e: !!!! mb-p-x 1 sig", "base64url"),
    (f"{ALICE.did} e2e: {'A' * 43} MB 1 sig", "room name"),
    (f"{ALICE.did} e2e: {'A' * 43} mb-p-x 01 sig", "canonical"),
])
def test_bad_notes_are_refused_with_a_reason(note, reason):
    with pytest.raises(E2EError, match=reason):
        choose_record(ALICE.did, note, seen_nonce=None)


def test_rotation_replaces_the_record_in_the_note():
    first = make_record(ALICE, x25519_public(STATIC), "mb-p-one", 1)
    value = compose_did_note(ALICE.did, None, mailbox="mb-p-one", rails=["paper"], e2e=first)
    second = make_record(ALICE, x25519_public(EPH), "mb-p-two", 2)
    rotated = compose_did_note(ALICE.did, value + " delegate:x", mailbox="mb-p-two",
                               rails=["paper"], e2e=second)
    assert rotated.count("e2e:") == 1 and "delegate:x" in rotated and second in rotated
    assert choose_record(ALICE.did, rotated, seen_nonce=1).mailbox == "mb-p-two"


# -- refusals of sealed input ---------------------------------------------------------------


def test_a_sealed_line_for_another_key_does_not_open():
    line = seal_channel(x25519_public(EPH), Channel(ROOM, K))
    with pytest.raises(E2EError, match="does not open"):
        open_channel(line, STATIC)


@pytest.mark.parametrize("line", ["e2e1", "e2e1 a b", "e2e2 a b c", "e2e1 !! AA AA",
                                  f"e2e1 {'A' * 43} {'A' * 10} {'A' * 60}",
                                  f"e2e1 {'A' * 43} {'A' * 16} {'A' * 60}"])
def test_malformed_sealed_lines_are_refused(line):
    with pytest.raises(E2EError):
        open_channel(line, STATIC)


@pytest.mark.parametrize("line", ["", "nodot", "AAAA.", "!!.AA", "AAAAAAAAAAAAAAAA.AAAA"])
def test_malformed_room_lines_are_refused(line):
    with pytest.raises(E2EError):
        decrypt_line(K, line)


# -- properties -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(min_size=32, max_size=32),
       st.binary(min_size=16, max_size=16))
def test_seal_open_round_trips(static, key, room_bits):
    channel = Channel("p-" + room_bits.hex(), key)
    assert open_channel(seal_channel(x25519_public(static), channel), static) == channel


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=3000), st.binary(min_size=32, max_size=32))
def test_split_then_encrypt_round_trips_within_the_cap(text, key):
    pieces = split_plain(text)
    assert "".join(pieces) == text
    for piece in pieces:
        line = encrypt_line(key, piece)
        assert len(line) <= MAX_TEXT_CHARS and decrypt_line(key, line) == piece


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=200), st.integers(min_value=0), st.integers(1, 255))
def test_any_flipped_byte_is_rejected(text, where, mask):
    line = encrypt_line(K, text)
    nonce_b64, _, ct_b64 = line.partition(".")
    raw = bytearray(unb64(nonce_b64) + unb64(ct_b64))
    raw[where % len(raw)] ^= mask
    tampered = f"{b64(bytes(raw[:12]))}.{b64(bytes(raw[12:]))}"
    with pytest.raises(E2EError):
        decrypt_line(K, tampered)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0), st.integers(1, 255))
def test_a_tampered_sealed_line_is_rejected(where, mask):
    line = seal_channel(x25519_public(STATIC), Channel(ROOM, K))
    head, eph, nonce, sealed = line.split(" ")
    raw = bytearray(unb64(sealed))
    raw[where % len(raw)] ^= mask
    with pytest.raises(E2EError):
        open_channel(f"{head} {eph} {nonce} {b64(bytes(raw))}", STATIC)
