"""Secret vault: the OS keyring or an encrypted file, and master-seed derivation of deal secrets.

Imports nothing from the package but (at most) `tclk_tui.protocol`. Nothing here ever writes a
secret to a log, a repr, an exception message or the journal.
"""

from tclk_tui.vault.backend import (
    MemoryVaultBackend,
    VaultBackend,
    check_profile,
    validate_entry_name,
)
from tclk_tui.vault.chooser import (
    DoctorReport,
    KeyringProbe,
    Prefer,
    doctor,
    open_vault,
    vault_file_path,
)
from tclk_tui.vault.errors import (
    BackupTextInvalid,
    InvalidEntryName,
    NowhereSafe,
    PassphraseMissing,
    SeedConflict,
    SeedMissing,
    VaultCorrupt,
    VaultError,
    VaultLocked,
    VaultTampered,
    VaultTimeout,
    VaultTruncated,
    VaultUnavailable,
    WeakPassphrase,
    WrongPassphrase,
)
from tclk_tui.vault.file_backend import FileVaultBackend, FileVaultInfo, PassphraseSource
from tclk_tui.vault.file_format import DEFAULT_KDF, KdfParams
from tclk_tui.vault.keyring_backend import (
    KeyringAssessment,
    KeyringVaultBackend,
    assess_keyring,
    service_name,
)
from tclk_tui.vault.secret import MasterSeed, SecretValue
from tclk_tui.vault.seed import (
    KIND_PAYMENT_KEY,
    KIND_PREIMAGE,
    KIND_WITNESS,
    MAKER_CONTEXT,
    SECP256K1_N,
    Vault,
    deal_entry_name,
)

__all__ = [
    "DEFAULT_KDF",
    "KIND_PAYMENT_KEY",
    "KIND_PREIMAGE",
    "KIND_WITNESS",
    "MAKER_CONTEXT",
    "SECP256K1_N",
    "BackupTextInvalid",
    "DoctorReport",
    "FileVaultBackend",
    "FileVaultInfo",
    "InvalidEntryName",
    "KdfParams",
    "KeyringAssessment",
    "KeyringProbe",
    "KeyringVaultBackend",
    "MasterSeed",
    "MemoryVaultBackend",
    "NowhereSafe",
    "PassphraseMissing",
    "PassphraseSource",
    "Prefer",
    "SecretValue",
    "SeedConflict",
    "SeedMissing",
    "Vault",
    "VaultBackend",
    "VaultCorrupt",
    "VaultError",
    "VaultLocked",
    "VaultTampered",
    "VaultTimeout",
    "VaultTruncated",
    "VaultUnavailable",
    "WeakPassphrase",
    "WrongPassphrase",
    "assess_keyring",
    "check_profile",
    "deal_entry_name",
    "doctor",
    "open_vault",
    "service_name",
    "validate_entry_name",
    "vault_file_path",
]
