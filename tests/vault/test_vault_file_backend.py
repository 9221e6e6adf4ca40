import multiprocessing
import os
import stat
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.vault import (
    FileVaultBackend,
    InvalidEntryName,
    KdfParams,
    VaultBackend,
    VaultCorrupt,
    VaultLocked,
    VaultTampered,
    VaultTruncated,
    VaultUnavailable,
    WrongPassphrase,
)
from tclk_tui.vault.file_format import HEADER_LEN, MAGIC
from tests.vault.contract import VaultBackendContract

try:
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

KDF = KdfParams.minimum()
SECRET = bytes.fromhex("5e" * 32)


def make(path, passphrase="correct horse", **kw) -> FileVaultBackend:
    return FileVaultBackend(path, passphrase=lambda: passphrase, kdf=KDF, **kw)


@pytest.fixture
def vault_path(tmp_path):
    path = tmp_path / "profile.vault"
    backend = make(path)
    backend.put("master-seed", SECRET)
    backend.put("deal/x/1/preimage", b"\x01" * 32)
    return path


def test_is_a_vault_backend(tmp_path):
    assert isinstance(make(tmp_path / "v"), VaultBackend)


def test_round_trip_and_persistence(tmp_path):
    path = tmp_path / "sub" / "p.vault"
    backend = make(path)
    assert backend.get("a") is None and backend.names() == []
    backend.put("a", b"one")
    backend.put("b", b"")
    backend.put("a", b"two")
    assert backend.get("a") == b"two" and backend.get("b") == b""
    reopened = make(path)
    assert reopened.names() == ["a", "b"]
    assert reopened.get("a") == b"two"
    reopened.delete("a")
    reopened.delete("missing")
    assert make(path).names() == ["b"]


def test_file_and_directory_are_private(tmp_path):
    path = tmp_path / "new" / "p.vault"
    make(path).put("a", b"1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert make(path).info().problem is None


def test_no_plaintext_in_the_file(vault_path):
    data = vault_path.read_bytes()
    assert SECRET not in data and SECRET.hex().encode() not in data
    assert b"master-seed" not in data  # entry names are inside the ciphertext too
    assert data.startswith(MAGIC)


def test_wrong_passphrase_is_its_own_error(vault_path):
    with pytest.raises(WrongPassphrase) as err:
        make(vault_path, "wrong").get("master-seed")
    assert "wrong" not in str(err.value).replace("does not open", "")
    with pytest.raises(WrongPassphrase):
        make(vault_path, "wrong").put("x", b"1")
    assert make(vault_path).get("master-seed") == SECRET  # untouched


def test_wrong_passphrase_is_asked_again_not_cached(vault_path):
    answers = iter(["typo", "correct horse"])
    backend = FileVaultBackend(vault_path, passphrase=lambda: next(answers), kdf=KDF)
    with pytest.raises(WrongPassphrase):
        backend.unlock()
    backend.unlock()
    assert backend.get("master-seed") == SECRET


def test_passphrase_is_asked_once_per_process(tmp_path):
    asked = []

    def prompt() -> str:
        asked.append(1)
        return "pw"

    backend = FileVaultBackend(tmp_path / "v", passphrase=prompt, kdf=KDF)
    backend.unlock()
    for i in range(5):
        backend.put(f"n{i}", b"v")
        backend.get(f"n{i}")
    assert len(asked) == 1


def test_passphrase_from_a_named_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("TCLK_TEST_VAULT_PASS", "from-env")
    env_backend = FileVaultBackend(tmp_path / "v", passphrase_env="TCLK_TEST_VAULT_PASS", kdf=KDF)
    env_backend.put("a", b"1")
    assert make(tmp_path / "v", "from-env").get("a") == b"1"
    monkeypatch.delenv("TCLK_TEST_VAULT_PASS")
    with pytest.raises(VaultLocked, match="TCLK_TEST_VAULT_PASS"):
        FileVaultBackend(tmp_path / "v", passphrase_env="TCLK_TEST_VAULT_PASS").get("a")


def test_no_passphrase_source_or_failing_prompt_is_locked(tmp_path, vault_path):
    with pytest.raises(VaultLocked):
        FileVaultBackend(vault_path).get("a")

    def broken() -> str:
        raise RuntimeError("terminal closed while typing hunter2")

    with pytest.raises(VaultLocked) as err:
        FileVaultBackend(vault_path, passphrase=broken).get("a")
    assert "hunter2" not in str(err.value)
    assert err.value.__cause__ is None and err.value.__context__ is None
    with pytest.raises(VaultLocked, match="empty"):
        FileVaultBackend(tmp_path / "new", passphrase=lambda: "", kdf=KDF).put("a", b"1")


def test_passphrase_text_is_unicode_normalised(tmp_path):
    make(tmp_path / "v", "caf\u00e9").put("a", b"1")  # precomposed
    assert make(tmp_path / "v", "cafe\u0301").get("a") == b"1"  # combining accent


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0))
def test_any_truncation_is_reported_as_truncated(vault_path, cut):
    image = vault_path.read_bytes()
    damaged = vault_path.with_name("cut.vault")
    damaged.write_bytes(image[: cut % len(image)])
    with pytest.raises(VaultTruncated):
        make(damaged).get("master-seed")


def test_truncation_messages_say_truncated(vault_path):
    image = vault_path.read_bytes()
    vault_path.write_bytes(image[:-5])
    with pytest.raises(VaultTruncated, match="truncated"):
        make(vault_path).get("master-seed")
    vault_path.write_bytes(image[:40])
    with pytest.raises(VaultTruncated, match="truncated"):
        make(vault_path).get("master-seed")
    vault_path.write_bytes(b"")
    with pytest.raises(VaultTruncated, match="empty"):
        make(vault_path).get("master-seed")


def test_trailing_bytes_are_tampering(vault_path):
    vault_path.write_bytes(vault_path.read_bytes() + b"\0")
    with pytest.raises(VaultTampered, match="trailing"):
        make(vault_path).get("master-seed")


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.integers(min_value=0), bit=st.integers(0, 7))
def test_any_flipped_bit_is_refused_and_never_reads_as_wrong_passphrase(vault_path, position, bit):
    image = bytearray(vault_path.read_bytes())
    position %= len(image)
    image[position] ^= 1 << bit
    damaged = vault_path.with_name("flip.vault")
    damaged.write_bytes(bytes(image))
    expected = VaultCorrupt if position < len(MAGIC) + 1 else VaultTampered  # magic, version
    with pytest.raises(expected):
        make(damaged).get("master-seed")


def test_body_tamper_fails_authentication(vault_path):
    image = bytearray(vault_path.read_bytes())
    image[HEADER_LEN + 3] ^= 0x40
    vault_path.write_bytes(bytes(image))
    with pytest.raises(VaultTampered, match="authentication"):
        make(vault_path).get("master-seed")


def _rewrite_header(path, **changes):
    """Edit header fields and recompute the header checksum, as a deliberate attacker would."""
    from tclk_tui.vault import file_format as ff

    image = path.read_bytes()
    fields = list(ff._HEAD.unpack(image[: ff._HEAD.size]))
    names = ["magic", "version", "algorithm", "opslimit", "memlimit", "salt", "nonce", "keycheck"]
    for name, value in changes.items():
        fields[names.index(name)] = value
    head = ff._HEAD.pack(*fields)
    path.write_bytes(head + ff._digest(head) + image[ff.HEADER_LEN :])


def test_forged_header_with_recomputed_checksum_still_fails_closed(vault_path):
    _rewrite_header(vault_path, salt=bytes(16))
    with pytest.raises(WrongPassphrase):  # another salt derives another key
        make(vault_path).get("master-seed")


def test_forged_nonce_fails_authentication(vault_path):
    _rewrite_header(vault_path, nonce=bytes(24))
    with pytest.raises(VaultTampered, match="authentication"):
        make(vault_path).get("master-seed")


def test_absurd_costs_are_refused_before_running(vault_path):
    _rewrite_header(vault_path, memlimit=2**40)
    with pytest.raises(VaultTampered, match="bounds"):
        make(vault_path).get("master-seed")


def test_foreign_file_and_future_version(tmp_path, vault_path):
    foreign = tmp_path / "foreign.vault"
    foreign.write_bytes(b"SQLite format 3\0" + bytes(200))
    with pytest.raises(VaultCorrupt, match="magic"):
        make(foreign).get("a")
    _rewrite_header(vault_path, version=2)
    with pytest.raises(VaultCorrupt, match="version 2"):
        make(vault_path).get("a")


def test_costs_live_in_the_header(tmp_path):
    path = tmp_path / "v"
    make(path).put("a", b"1")
    ops, mem = struct.unpack(">IQ", path.read_bytes()[10:22])
    assert (ops, mem) == (KDF.opslimit, KDF.memlimit)
    # A reader configured with other defaults still opens it with the file's costs.
    other = FileVaultBackend(path, passphrase=lambda: "correct horse", kdf=KdfParams.interactive())
    assert other.get("a") == b"1"
    assert make(path).info().kdf == KDF


def test_production_default_costs():
    from tclk_tui.vault import DEFAULT_KDF

    assert KdfParams.moderate() == DEFAULT_KDF
    assert DEFAULT_KDF.opslimit >= 3 and DEFAULT_KDF.memlimit >= 256 * 1024**2
    with pytest.raises(ValueError):
        KdfParams(0, KDF.memlimit)


def test_crash_before_rename_leaves_the_old_vault(vault_path, monkeypatch):
    before = vault_path.read_bytes()
    backend = make(vault_path)

    def crash(*_a, **_k):
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="power cut"):
        backend.put("new", b"x")
    monkeypatch.undo()
    assert vault_path.read_bytes() == before
    leftovers = [p for p in vault_path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    assert make(vault_path).get("new") is None
    assert make(vault_path).get("master-seed") == SECRET


def test_a_stale_temp_file_from_a_crashed_writer_is_harmless(vault_path):
    (vault_path.parent / f".{vault_path.name}.abc.tmp").write_bytes(b"half a vault")
    assert make(vault_path).get("master-seed") == SECRET
    make(vault_path).put("later", b"1")
    assert make(vault_path).get("later") == b"1"


@pytest.mark.skipif(fcntl is None, reason="POSIX file locks only")
def test_writer_gives_up_when_another_holds_the_lock(vault_path):
    backend = make(vault_path, lock_timeout_s=0.05)
    fd = os.open(backend.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(VaultUnavailable, match="another process"):
            backend.put("x", b"1")
        assert backend.get("master-seed") == SECRET  # readers need no lock
    finally:
        os.close(fd)
    backend.put("x", b"1")


def _writer(path: str, prefix: str, count: int, start) -> None:
    start.wait(30)
    backend = FileVaultBackend(path, passphrase=lambda: "correct horse", kdf=KDF)
    for i in range(count):
        backend.put(f"{prefix}{i}", f"{prefix}{i}".encode())


def test_concurrent_writers_in_two_processes_lose_nothing(vault_path):
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_writer, args=(str(vault_path), prefix, 15, start)) for prefix in "ab"
    ]
    for proc in procs:
        proc.start()
    start.set()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    names = make(vault_path).names()
    for prefix in "ab":
        for i in range(15):
            assert f"{prefix}{i}" in names
            assert make(vault_path).get(f"{prefix}{i}") == f"{prefix}{i}".encode()
    assert make(vault_path).get("master-seed") == SECRET


def test_names_and_values_are_checked(tmp_path):
    backend = make(tmp_path / "v")
    for bad in ["", "__index__", "a b", "x" * 201, "tab\there", "é"]:
        with pytest.raises(InvalidEntryName):
            backend.put(bad, b"1")
    with pytest.raises(TypeError):
        backend.put("a", "text")  # type: ignore[arg-type]


def test_repr_and_describe_hold_no_secret(vault_path):
    backend = make(vault_path)
    backend.get("master-seed")
    for text in (repr(backend), backend.describe(), backend.info().describe()):
        assert "correct horse" not in text and SECRET.hex() not in text
    assert "unlocked" in repr(backend)


class TestFileBackendContract(VaultBackendContract):
    @pytest.fixture
    def backend(self, tmp_path) -> FileVaultBackend:
        return make(tmp_path / "contract.vault")

    def reopen(self, backend: FileVaultBackend) -> FileVaultBackend:
        return make(backend.path)
