"""Vault errors.

Every message here is written by this package from fixed text plus public facts (an entry name, a
file path, a backend class name). Exceptions raised by a keyring library or a crypto binding are
never chained (`from None`): their arguments could hold whatever the caller passed in, and a
traceback printed to a terminal or a log must not be the place a secret escapes.
"""

from __future__ import annotations


class VaultError(Exception):
    """Base of every vault failure; safe to show to the operator."""


class VaultLocked(VaultError):
    """The store exists but cannot be opened now: a locked keyring, or no passphrase to hand."""


class VaultUnavailable(VaultError):
    """No usable store: no OS keyring, an unsafe keyring backend, a file lock held elsewhere."""


class PassphraseMissing(VaultLocked):
    """A vault file must be opened or created and no passphrase source gives one.

    Its own type so that a face can add how that face takes a passphrase (a prompt, a flag, a
    variable), which this package does not know.
    """


class NowhereSafe(VaultUnavailable, PassphraseMissing):
    """No usable OS keyring and no passphrase for an encrypted file: nowhere to keep secrets."""


class WeakPassphrase(VaultError):
    """A new vault file's passphrase falls short of the rule in `strength`; nothing was created."""


class VaultTimeout(VaultUnavailable):
    """The OS keyring did not answer in time (typically an unlock prompt nobody can see)."""


class VaultCorrupt(VaultError):
    """Stored data failed a structural or authenticity check; nothing was returned from it."""


class VaultTruncated(VaultCorrupt):
    """The vault file ends early (an interrupted copy, a full disk): restore it from a backup."""


class VaultTampered(VaultCorrupt):
    """The vault file is complete but its bytes were changed (bit rot or a deliberate edit)."""


class WrongPassphrase(VaultError):
    """The passphrase does not open this vault file (the file itself checks out)."""


class InvalidEntryName(VaultError, ValueError):
    """An entry name outside the allowed alphabet (names are public, values are not)."""


class SeedMissing(VaultError):
    """The vault holds no master seed yet, so nothing can be derived."""


class SeedConflict(VaultError):
    """A different master seed is already stored; replacing it needs an explicit request."""


class BackupTextInvalid(VaultError, ValueError):
    """A seed backup text that does not parse or whose checksum does not match."""
