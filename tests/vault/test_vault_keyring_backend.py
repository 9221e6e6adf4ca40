import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import keyring
import keyring.backends.chainer
import keyring.backends.fail
import keyring.backends.null
import keyring.errors
import pytest

from tclk_tui.vault import (
    KeyringVaultBackend,
    MasterSeed,
    Vault,
    VaultBackend,
    VaultCorrupt,
    VaultLocked,
    VaultTimeout,
    VaultUnavailable,
    assess_keyring,
    open_vault,
    service_name,
)
from tclk_tui.vault.keyring_backend import INDEX_ENTRY
from tests.vault.contract import VaultBackendContract
from tests.vault.inproc_keyrings import (
    DictKeyring,
    FailingValueWrites,
    HangingKeyring,
    InitFailingKeyring,
    LeakyErrorKeyring,
    LockedKeyring,
)

SECRET = bytes.fromhex("a7" * 32)
REAL_SECRET_SERVICE = os.environ.get("TCLK_SECRET_SERVICE") == "1"
needs_secret_service = pytest.mark.skipif(
    not REAL_SECRET_SERVICE,
    reason="needs a real Secret Service: run inside the CI session (TCLK_SECRET_SERVICE=1)",
)


def backend(kr, profile="alice", timeout_s=5.0) -> KeyringVaultBackend:
    return KeyringVaultBackend(profile, keyring_backend=kr, timeout_s=timeout_s)


def test_round_trip_with_an_in_process_keyring():
    kr = DictKeyring()
    kb = backend(kr)
    assert isinstance(kb, VaultBackend)
    assert kb.get("master-seed") is None and kb.names() == []
    kb.put("master-seed", SECRET)
    kb.put("deal/x/1/preimage", b"\x00\x01")
    assert kb.get("master-seed") == SECRET
    assert kb.names() == ["deal/x/1/preimage", "master-seed"]
    kb.delete("master-seed")
    kb.delete("master-seed")  # deleting nothing is a no-op
    assert kb.get("master-seed") is None
    assert kb.names() == ["deal/x/1/preimage"]
    assert {svc for svc, _ in kr.entries} == {"tclk-tui:alice"}


def test_profiles_are_separate_services():
    kr = DictKeyring()
    backend(kr, "alice").put("a", b"1")
    assert backend(kr, "bob").get("a") is None
    assert backend(kr, "bob").names() == []
    assert service_name("bob") == "tclk-tui:bob"


def test_values_are_not_stored_as_raw_text():
    kr = DictKeyring()
    backend(kr).put("master-seed", SECRET)
    stored = kr.entries[("tclk-tui:alice", "master-seed")]
    assert stored.startswith("tclk1:") and SECRET.hex() not in stored


def test_index_is_written_before_the_value_and_cleared_after_it():
    kr = DictKeyring()
    kb = backend(kr)
    kb.put("a", b"1")
    sets = [u for op, u in kr.calls if op == "set"]
    assert sets == [INDEX_ENTRY, "a"]
    kr.calls.clear()
    kb.delete("a")
    writes = [(op, u) for op, u in kr.calls if op in ("set", "delete")]
    assert writes == [("delete", "a"), ("set", INDEX_ENTRY)]


def test_a_crash_between_index_and_value_never_hides_a_stored_value():
    kr = FailingValueWrites()
    kb = backend(kr)
    with pytest.raises(VaultUnavailable, match="PasswordSetError"):
        kb.put("a", SECRET)
    assert kb.names() == ["a"]  # listed
    assert kb.get("a") is None  # but honestly absent


def test_fail_backend_is_refused_with_an_explanation():
    kb = backend(keyring.backends.fail.Keyring())
    verdict = kb.assess()
    assert not verdict.usable and "fail" in verdict.reason and "SSH" in verdict.reason
    with pytest.raises(VaultUnavailable, match="no OS secret store"):
        kb.check()
    with pytest.raises(VaultUnavailable):
        kb.put("a", b"1")


def test_null_backend_is_refused():
    verdict = assess_keyring(keyring.backends.null.Keyring())
    assert not verdict.usable and "stores nothing" in verdict.reason
    with pytest.raises(VaultUnavailable):
        backend(keyring.backends.null.Keyring()).get("a")


def test_chainer_is_judged_by_its_members(monkeypatch):
    chainer = keyring.backends.chainer.ChainerBackend()
    monkeypatch.setattr(keyring.backends.chainer.ChainerBackend, "backends", [])
    assert not assess_keyring(chainer).usable
    monkeypatch.setattr(
        keyring.backends.chainer.ChainerBackend, "backends", [keyring.backends.null.Keyring()]
    )
    verdict = assess_keyring(chainer)
    assert not verdict.usable and "unsafe" in verdict.reason
    monkeypatch.setattr(keyring.backends.chainer.ChainerBackend, "backends", [DictKeyring()])
    assert assess_keyring(chainer).usable


class PlaintextFileKeyring(DictKeyring):
    """Stands in for keyrings.alt's plaintext file backend (same module path)."""


PlaintextFileKeyring.__module__ = "keyrings.alt.file"


def test_keyrings_alt_backends_are_refused():
    verdict = assess_keyring(PlaintextFileKeyring())
    assert not verdict.usable and "keyrings.alt" in verdict.reason


def test_locked_collection_is_reported_as_locked():
    kb = backend(LockedKeyring())
    with pytest.raises(VaultLocked, match="locked") as err:
        kb.get("master-seed")
    assert "gnome-keyring-daemon --unlock" in str(err.value)
    with pytest.raises(VaultLocked):
        kb.put("a", b"1")


def test_init_error_is_unavailable():
    with pytest.raises(VaultUnavailable, match="could not be opened"):
        backend(InitFailingKeyring()).get("a")


def test_a_backend_error_that_echoes_the_secret_is_not_passed_on():
    with pytest.raises(VaultUnavailable) as err:
        backend(LeakyErrorKeyring()).put("a", SECRET)
    text = str(err.value)
    assert "OSError" in text
    assert SECRET.hex() not in text and "tclk1:" not in text
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_a_hanging_keyring_times_out_and_recovers():
    kr = HangingKeyring()
    kb = backend(kr, timeout_s=0.2)
    try:
        with pytest.raises(VaultTimeout, match="did not answer"):
            kb.get("master-seed")
        assert kr.entered.is_set()
        # The stuck call still holds the keyring: the next one waits one deadline, then says so.
        with pytest.raises(VaultTimeout, match="still busy"):
            kb.get("master-seed")
    finally:
        kr.hang = False
        kr.release.set()
    kb.put("a", b"1")  # waits for the released call to finish, then proceeds
    assert kb.get("a") == b"1"


def test_hanging_keyring_timeout_is_unavailable_for_callers():
    kr = HangingKeyring()
    try:
        with pytest.raises(VaultUnavailable):
            backend(kr, timeout_s=0.05).check()
    finally:
        kr.release.set()


def test_damaged_entries_and_index_are_corrupt():
    kr = DictKeyring()
    kb = backend(kr)
    kr.entries[("tclk-tui:alice", "a")] = "not ours"
    with pytest.raises(VaultCorrupt, match="not written by tclk-tui"):
        kb.get("a")
    kr.entries[("tclk-tui:alice", "a")] = "tclk1:!!!"
    with pytest.raises(VaultCorrupt, match="base64"):
        kb.get("a")
    kr.entries[("tclk-tui:alice", INDEX_ENTRY)] = "[1, 2]"
    with pytest.raises(VaultCorrupt, match="index"):
        kb.names()


def test_default_keyring_is_the_one_keyring_selects():
    previous = keyring.get_keyring()
    chosen = DictKeyring()
    keyring.set_keyring(chosen)
    try:
        kb = KeyringVaultBackend("alice", timeout_s=5.0)
        kb.put("a", b"1")
        assert kb.keyring_backend() is chosen
        assert ("tclk-tui:alice", "a") in chosen.entries
    finally:
        keyring.set_keyring(previous)


def test_vault_facade_over_keyring_backend():
    vault = Vault(backend(DictKeyring()), profile="alice")
    vault.create_seed(MasterSeed(SECRET))
    pre = vault.derive_preimage("0x" + "11" * 32, "00112233")
    assert vault.derive_preimage("0x" + "11" * 32, "00112233") == pre
    assert SECRET.hex() not in repr(vault)


# --- against the real Secret Service (CI runs these inside a dbus session with gnome-keyring) ---


@pytest.fixture
def real_profile():
    profile = f"test-{uuid.uuid4().hex[:12]}"
    yield profile
    kb = KeyringVaultBackend(profile, timeout_s=10.0)
    for name in kb.names():
        kb.delete(name)
    keyring.get_keyring().delete_password(service_name(profile), INDEX_ENTRY)


@pytest.mark.keyring
@needs_secret_service
def test_real_secret_service_is_detected_and_usable():
    kb = KeyringVaultBackend("probe", timeout_s=10.0)
    verdict = kb.assess()
    assert verdict.usable, verdict.reason
    assert "SecretService" in verdict.name
    kb.check()


@pytest.mark.keyring
@needs_secret_service
def test_real_secret_service_round_trip(real_profile):
    kb = KeyringVaultBackend(real_profile, timeout_s=10.0)
    kb.put("master-seed", SECRET)
    kb.put("deal/x/1/preimage", b"\x02" * 32)
    again = KeyringVaultBackend(real_profile, timeout_s=10.0)
    assert again.get("master-seed") == SECRET
    assert again.names() == ["deal/x/1/preimage", "master-seed"]
    stored = keyring.get_password(service_name(real_profile), "master-seed")
    assert stored is not None and stored.startswith("tclk1:")
    again.delete("master-seed")
    assert kb.get("master-seed") is None
    assert kb.names() == ["deal/x/1/preimage"]


@pytest.mark.keyring
@needs_secret_service
def test_real_secret_service_is_chosen_by_auto_and_holds_deal_secrets(real_profile, tmp_path):
    vault = open_vault(real_profile, tmp_path, passphrase=None)
    assert isinstance(vault.backend, KeyringVaultBackend)
    vault.create_seed()
    pre = vault.derive_preimage("0x" + "22" * 32, "0011223344556677")
    reopened = open_vault(real_profile, tmp_path)
    assert reopened.derive_preimage("0x" + "22" * 32, "0011223344556677") == pre
    assert not any(tmp_path.iterdir())  # nothing written to disk by this process


LOCKED_PROBE = textwrap.dedent(
    """
    import secretstorage
    from tclk_tui.vault import KeyringVaultBackend, VaultLocked
    kb = KeyringVaultBackend("locked-probe", timeout_s=20.0)
    kb.put("a", b"1")
    bus = secretstorage.dbus_init()
    secretstorage.get_default_collection(bus).lock()
    try:
        kb.get("a")
    except VaultLocked as exc:
        print("LOCKED:", exc)
    else:
        print("NOT LOCKED")
    """
)


@pytest.mark.keyring
@needs_secret_service
def test_real_locked_collection_is_explained(tmp_path):
    # Locking the shared collection would break the other tests (there is nobody to type its
    # password), so this runs in a private D-Bus session with its own gnome-keyring, set up by
    # the same CI script.
    repo = Path(__file__).resolve().parents[2]
    script = tmp_path / "locked_probe.py"
    script.write_text(LOCKED_PROBE)
    env = dict(os.environ, TCLK_CI_TEST_CMD=f"{sys.executable} {script}")
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    result = subprocess.run(
        [
            shutil.which("dbus-run-session") or "dbus-run-session",
            "--",
            "bash",
            str(repo / ".ci" / "with-keyring"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "LOCKED:" in result.stdout, result.stdout + result.stderr[-2000:]
    assert "unlock" in result.stdout


class TestKeyringBackendContract(VaultBackendContract):
    """Over an in-process keyring: the index, the encoding and the deadlines, everywhere."""

    @pytest.fixture
    def backend(self) -> KeyringVaultBackend:
        return backend(DictKeyring(), profile="contract")

    def reopen(self, kb: KeyringVaultBackend) -> KeyringVaultBackend:
        return backend(kb.keyring_backend(), profile="contract")


@pytest.mark.keyring
@needs_secret_service
class TestSecretServiceContract(VaultBackendContract):
    """Over the session's real Secret Service, where one runs (CI: `.ci/with-keyring`)."""

    @pytest.fixture
    def backend(self):
        kb = KeyringVaultBackend(f"test-{uuid.uuid4().hex[:12]}", timeout_s=10.0)
        yield kb
        for name in kb.names():
            kb.delete(name)
        with contextlib.suppress(keyring.errors.PasswordDeleteError):  # a test wrote nothing
            keyring.get_keyring().delete_password(kb.service, INDEX_ENTRY)

    def reopen(self, kb: KeyringVaultBackend) -> KeyringVaultBackend:
        return KeyringVaultBackend(kb.service.removeprefix("tclk-tui:"), timeout_s=10.0)
