import keyring.backends.fail
import pytest

from tclk_tui.vault import (
    FileVaultBackend,
    KdfParams,
    KeyringVaultBackend,
    VaultLocked,
    VaultTimeout,
    VaultUnavailable,
    WrongPassphrase,
    doctor,
    open_vault,
    vault_file_path,
)
from tests.vault.inproc_keyrings import DictKeyring, HangingKeyring, LockedKeyring

KDF = KdfParams.minimum()


def pw(text: str = "pass phrase"):
    return lambda: text


def test_auto_prefers_a_usable_keyring(tmp_path):
    vault = open_vault("alice", tmp_path, keyring_backend=DictKeyring(), passphrase=pw(), kdf=KDF)
    assert isinstance(vault.backend, KeyringVaultBackend)
    assert not vault_file_path("alice", tmp_path).exists()


def test_auto_falls_back_to_the_file_when_the_keyring_fails(tmp_path):
    vault = open_vault(
        "alice",
        tmp_path,
        keyring_backend=keyring.backends.fail.Keyring(),
        passphrase=pw(),
        kdf=KDF,
    )
    assert isinstance(vault.backend, FileVaultBackend)
    vault.create_seed()
    assert vault_file_path("alice", tmp_path).exists()


def test_auto_refuses_when_there_is_no_safe_place(tmp_path):
    with pytest.raises(VaultUnavailable) as err:
        open_vault("alice", tmp_path, keyring_backend=keyring.backends.fail.Keyring())
    message = str(err.value)
    assert "no OS secret store" in message and "passphrase" in message
    assert "plain text" in message
    assert list(tmp_path.iterdir()) == []  # nothing written anywhere


def test_an_existing_file_wins_over_a_usable_keyring(tmp_path):
    first = open_vault("alice", tmp_path, "file", pw(), kdf=KDF)
    fingerprint = first.create_seed()
    kr = DictKeyring()
    again = open_vault("alice", tmp_path, passphrase=pw(), keyring_backend=kr, kdf=KDF)
    assert isinstance(again.backend, FileVaultBackend)
    assert again.seed_fingerprint() == fingerprint
    assert kr.calls == []  # the keyring was not even asked


def test_existing_file_without_passphrase_source_is_locked(tmp_path):
    open_vault("alice", tmp_path, "file", pw(), kdf=KDF).create_seed()
    with pytest.raises(VaultLocked, match="passphrase"):
        open_vault("alice", tmp_path, keyring_backend=DictKeyring())


def test_open_checks_the_passphrase_up_front(tmp_path):
    open_vault("alice", tmp_path, "file", pw("right"), kdf=KDF).create_seed()
    with pytest.raises(WrongPassphrase):
        open_vault("alice", tmp_path, "file", pw("wrong"), kdf=KDF)
    lazy = open_vault("alice", tmp_path, "file", pw("wrong"), kdf=KDF, unlock=False)
    with pytest.raises(WrongPassphrase):
        lazy.has_seed()


def test_prefer_keyring_reports_the_keyrings_own_failure(tmp_path):
    with pytest.raises(VaultUnavailable, match="fail"):
        open_vault("a", tmp_path, "keyring", keyring_backend=keyring.backends.fail.Keyring())
    with pytest.raises(VaultLocked):
        open_vault("a", tmp_path, "keyring", keyring_backend=LockedKeyring())
    kr = HangingKeyring()
    try:
        with pytest.raises(VaultTimeout):
            open_vault("a", tmp_path, "keyring", keyring_backend=kr, keyring_timeout_s=0.05)
    finally:
        kr.release.set()


def test_prefer_file_needs_a_passphrase_source(tmp_path):
    with pytest.raises(VaultLocked, match="no passphrase source"):
        open_vault("a", tmp_path, "file", keyring_backend=DictKeyring())


def test_prefer_file_with_an_env_var(tmp_path, monkeypatch):
    monkeypatch.setenv("TCLK_TEST_PASS", "env pass")
    vault = open_vault("a", tmp_path, "file", passphrase_env="TCLK_TEST_PASS", kdf=KDF)
    vault.create_seed()
    assert isinstance(vault.backend, FileVaultBackend)


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        open_vault("../evil", tmp_path, keyring_backend=DictKeyring())
    with pytest.raises(ValueError):
        open_vault("a", tmp_path, "plaintext", keyring_backend=DictKeyring())  # type: ignore[arg-type]


def test_doctor_explains_a_missing_keyring_without_asking_anything(tmp_path):
    asked = []
    report = doctor(
        "alice",
        tmp_path,
        passphrase=lambda: asked.append(1) or "x",
        keyring_backend=keyring.backends.fail.Keyring(),
    )
    assert asked == []
    assert report.active == "file"
    assert report.keyring_backend == "keyring.backends.fail.Keyring"
    assert not report.keyring_usable and "fail" in report.keyring_detail
    assert report.file_path == str(vault_file_path("alice", tmp_path))
    assert not report.file_exists
    assert report.passphrase_source == "prompt (callable)"
    text = "\n".join(report.lines())
    assert "active backend   file" in text and "absent" in text
    assert report.to_dict()["active"] == "file"


def test_doctor_refusal_and_keyring_choice(tmp_path):
    refused = doctor("alice", tmp_path, keyring_backend=keyring.backends.fail.Keyring())
    assert refused.active is None
    assert "NONE" in "\n".join(refused.lines())
    chosen = doctor("alice", tmp_path, keyring_backend=DictKeyring())
    assert chosen.active == "keyring" and chosen.keyring_has_entries is False


def test_doctor_warns_about_both_stores_and_env_passphrases(tmp_path, monkeypatch):
    open_vault("alice", tmp_path, "file", pw(), kdf=KDF).create_seed()
    kr = DictKeyring()
    KeyringVaultBackend("alice", keyring_backend=kr).put("master-seed", b"\x01" * 32)
    monkeypatch.setenv("TCLK_TEST_PASS", "x")
    report = doctor("alice", tmp_path, passphrase_env="TCLK_TEST_PASS", keyring_backend=kr)
    assert report.active == "file" and report.file_exists
    assert "argon2id" in report.file_detail and "0600" in report.file_detail
    assert any("both a vault file and keyring entries" in w for w in report.warnings)
    assert any("environment variable" in w for w in report.warnings)
    assert report.passphrase_source == "environment variable TCLK_TEST_PASS (set)"


def test_doctor_reports_a_damaged_file_and_a_locked_keyring(tmp_path):
    path = vault_file_path("alice", tmp_path)
    path.write_bytes(b"garbage")
    report = doctor("alice", tmp_path, keyring_backend=LockedKeyring())
    assert any("magic" in w for w in report.warnings)
    assert not report.keyring_usable and "locked" in report.keyring_detail


def test_doctor_survives_a_hanging_keyring(tmp_path):
    kr = HangingKeyring()
    try:
        report = doctor("alice", tmp_path, keyring_backend=kr, keyring_timeout_s=0.05)
    finally:
        kr.release.set()
    assert not report.keyring_usable and "did not answer" in report.keyring_detail
