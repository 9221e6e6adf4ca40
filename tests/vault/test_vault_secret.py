import copy
import json
import logging
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.vault import BackupTextInvalid, MasterSeed, SecretValue
from tclk_tui.vault.backup import PREFIX, backup_groups, decode_backup, encode_backup

RAW = bytes(range(32))


def test_secret_value_never_prints_its_bytes():
    secret = SecretValue(RAW)
    shown = [
        repr(secret),
        str(secret),
        f"{secret}",
        f"{secret!r}",
        "%s" % (secret,),  # noqa: UP031 - the old operator must redact too
        format(secret),
    ]
    for text in shown:
        assert RAW.hex() not in text
        assert "redacted" in text
    assert repr([secret]) == "[SecretValue(<redacted 32 bytes>)]"


def test_secret_value_stays_out_of_logs(caplog):
    secret = SecretValue(RAW)
    with caplog.at_level(logging.INFO):
        logging.getLogger("tclk.test").info("deal secret is %s", secret)
    assert RAW.hex() not in caplog.text
    assert "redacted" in caplog.text


def test_secret_value_refuses_pickle_json_and_hashing():
    secret = SecretValue(RAW)
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    with pytest.raises(TypeError):
        json.dumps({"s": secret})
    with pytest.raises(TypeError):
        hash(secret)
    with pytest.raises(AttributeError):
        secret._value = b"x"  # type: ignore[misc]


def test_secret_value_reveals_only_when_asked():
    secret = SecretValue(RAW)
    assert secret.reveal() == RAW
    assert secret.hex() == RAW.hex()
    assert len(secret) == 32
    assert copy.copy(secret) is secret and copy.deepcopy(secret) is secret


def test_secret_value_equality_is_by_content():
    assert SecretValue(RAW) == SecretValue(bytearray(RAW))
    assert SecretValue(RAW) != SecretValue(bytes(32))
    assert SecretValue(RAW) != RAW  # a wrapper never equals raw bytes


def test_secret_value_holds_bytes_only():
    with pytest.raises(TypeError):
        SecretValue(RAW.hex())  # type: ignore[arg-type]


def test_master_seed_is_32_bytes_and_redacted():
    with pytest.raises(ValueError):
        MasterSeed(bytes(31))
    seed = MasterSeed.generate()
    assert len(seed) == 32
    assert seed.hex() not in repr(seed)
    assert repr(seed) == "MasterSeed(<redacted 32 bytes>)"
    assert MasterSeed.generate() != seed


def test_fingerprint_is_stable_short_and_not_the_seed():
    seed = MasterSeed(RAW)
    assert seed.fingerprint() == MasterSeed(RAW).fingerprint()
    assert len(seed.fingerprint()) == 9
    assert seed.fingerprint().replace("-", "") not in RAW.hex()
    assert MasterSeed(bytes(32)).fingerprint() != seed.fingerprint()


@settings(max_examples=200)
@given(st.binary(min_size=32, max_size=32))
def test_backup_round_trips(raw):
    seed = MasterSeed(raw)
    text = encode_backup(seed)
    assert text.startswith(PREFIX + " ")
    assert decode_backup(text) == seed
    groups = backup_groups(seed)
    assert len(groups) == 14 and all(len(g) == 4 for g in groups)
    # Hand-copied variants: no prefix, upper case, spaces instead of dashes, lines.
    assert decode_backup(" ".join(groups).upper()) == seed
    assert decode_backup("\n".join(groups)) == seed


@settings(max_examples=200)
@given(st.binary(min_size=32, max_size=32), st.integers(0, 55), st.integers(1, 31))
def test_backup_detects_any_single_wrong_character(raw, position, delta):
    alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
    text = "".join(backup_groups(MasterSeed(raw)))
    wrong = alphabet[(alphabet.index(text[position]) + delta) % 32]
    damaged = text[:position] + wrong + text[position + 1 :]
    with pytest.raises(BackupTextInvalid) as err:
        decode_backup(damaged)
    assert damaged not in str(err.value) and text not in str(err.value)


def test_backup_accepts_look_alike_characters():
    seed = MasterSeed(bytes(32))  # encodes as zeros plus a checksum
    text = "".join(backup_groups(seed))
    assert decode_backup(text.replace("0", "o")) == seed
    ones = MasterSeed(decode_backup(text).reveal())
    assert ones == seed


def test_backup_errors_name_positions_not_characters():
    text = "".join(backup_groups(MasterSeed(RAW)))
    with pytest.raises(BackupTextInvalid, match="has 55"):
        decode_backup(text[:-1])
    with pytest.raises(BackupTextInvalid, match="character 3 ") as err:
        decode_backup(text[:2] + "u" + text[3:])
    assert text[:2] not in str(err.value)
    with pytest.raises(BackupTextInvalid):
        decode_backup(123)  # type: ignore[arg-type]
