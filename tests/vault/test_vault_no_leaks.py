"""Failures render without secrets even when a traceback prints every frame's locals.

Textual's crash screen renders unhandled exceptions with `show_locals=True`; the stdlib equivalent
is `TracebackException(capture_locals=True)`, which is what these tests format.
"""

import os
import traceback

import pytest

from tclk_tui.vault import (
    BackupTextInvalid,
    FileVaultBackend,
    KdfParams,
    KeyringVaultBackend,
    MasterSeed,
    Vault,
    VaultError,
    VaultUnavailable,
    WrongPassphrase,
)
from tclk_tui.vault.backup import encode_backup
from tests.vault.inproc_keyrings import LeakyErrorKeyring

try:
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

SEED = MasterSeed(bytes.fromhex("c3" * 32))
PASSPHRASE = "correct horse battery"
OFFER = "0x" + "d0" * 32
NONCE = "0011223344556677"


def rendered(exc: BaseException) -> str:
    """The exception and the locals of every package frame it passed through (the test's own
    frames hold the secrets on purpose, so they are left out)."""
    te = traceback.TracebackException.from_exception(exc, capture_locals=True)
    parts = list(te.format_exception_only())
    seen = 0
    for frame in te.stack:
        if f"{os.sep}tclk_tui{os.sep}" in frame.filename:
            seen += 1
            parts += [f"{k}={v}" for k, v in (frame.locals or {}).items()]
    assert seen, "the failure did not pass through package code"
    return "\n".join(parts)


def forbidden(*secrets: bytes | str) -> list[str]:
    out: list[str] = []
    for secret in secrets:
        if isinstance(secret, str):
            out.append(secret)
        else:
            out += [secret.hex(), repr(secret)[2:-1][:40]]
    return out


def assert_clean(exc: BaseException, *secrets: bytes | str) -> None:
    text = rendered(exc)
    for needle in forbidden(*secrets):
        assert needle not in text, f"secret material in a rendered traceback: {needle[:12]}..."


@pytest.mark.skipif(fcntl is None, reason="POSIX file locks only")
def test_a_failed_write_of_a_derived_secret_shows_no_secret(tmp_path):
    path = tmp_path / "v"
    vault = Vault(FileVaultBackend(path, passphrase=lambda: PASSPHRASE, kdf=KdfParams.minimum()))
    vault.create_seed(SEED)
    expected = vault.derive_preimage(OFFER, "00000001").reveal()
    vault.backend._lock_timeout_s = 0.02  # type: ignore[attr-defined]
    fd = os.open(vault.backend.lock_path, os.O_RDWR)  # type: ignore[attr-defined]
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(VaultUnavailable) as err:
            vault.derive_preimage(OFFER, NONCE)
    finally:
        os.close(fd)
    new_secret = vault.derive_preimage(OFFER, NONCE).reveal()
    assert_clean(err.value, SEED.reveal(), new_secret, expected, PASSPHRASE)


def test_a_wrong_passphrase_shows_neither_passphrase_nor_key(tmp_path):
    path = tmp_path / "v"
    FileVaultBackend(path, passphrase=lambda: PASSPHRASE, kdf=KdfParams.minimum()).put(
        "master-seed", SEED
    )
    with pytest.raises(WrongPassphrase) as err:
        FileVaultBackend(path, passphrase=lambda: "guess 1").get("master-seed")
    assert_clean(err.value, SEED.reveal(), PASSPHRASE, "guess 1")


def test_a_damaged_vault_body_shows_no_plaintext(tmp_path):
    path = tmp_path / "v"
    backend = FileVaultBackend(path, passphrase=lambda: PASSPHRASE, kdf=KdfParams.minimum())
    backend.put("master-seed", SEED)
    image = bytearray(path.read_bytes())
    image[-1] ^= 1
    path.write_bytes(bytes(image))
    with pytest.raises(VaultError) as err:
        FileVaultBackend(path, passphrase=lambda: PASSPHRASE).get("master-seed")
    assert_clean(err.value, SEED.reveal(), PASSPHRASE)


def test_a_mistyped_backup_shows_no_backup_text(tmp_path):
    text = encode_backup(SEED)
    damaged = text[:-1] + ("0" if text[-1] != "0" else "1")
    vault = Vault(FileVaultBackend(tmp_path / "v", passphrase=lambda: "x"))
    with pytest.raises(BackupTextInvalid) as err:
        vault.restore_seed(damaged)
    body = damaged.split(" ", 1)[1]
    assert_clean(err.value, SEED.reveal(), body, body.replace("-", "")[:20])


def test_a_keyring_transport_error_shows_no_secret():
    kb = KeyringVaultBackend("alice", keyring_backend=LeakyErrorKeyring(), timeout_s=5)
    vault = Vault(kb)
    with pytest.raises(VaultUnavailable) as err:
        vault.create_seed(SEED)
    assert_clean(err.value, SEED.reveal())
