"""The storage contract every vault backend meets, and the in-memory one.

A backend is a small named-blob store. It deliberately has no "dump everything" call: a caller
lists names (public) and fetches one value at a time, so no code path ever holds the whole vault
in a form that could be printed or serialised by accident.
"""

from __future__ import annotations

import re
import threading
from typing import Protocol, runtime_checkable

from tclk_tui.vault.errors import InvalidEntryName
from tclk_tui.vault.secret import SecretValue

__all__ = [
    "MemoryVaultBackend",
    "VaultBackend",
    "check_profile",
    "validate_entry_name",
]

# Names are stored in clear (keyring attributes, the file's index is inside the ciphertext but the
# keyring's is not), so they are restricted to an alphabet that cannot smuggle control characters
# into a terminal and that keyring backends on every platform accept. A leading alphanumeric keeps
# the "__" prefix free for backend bookkeeping entries.
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}")


_PROFILE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_profile(profile: object) -> str:
    """Profile names become file names and keyring service names, so they are kept plain."""
    if not isinstance(profile, str) or _PROFILE_RE.fullmatch(profile) is None:
        raise ValueError(
            "profile names are 1-64 characters from A-Z a-z 0-9 _ . - starting with a letter or "
            "digit"
        )
    return profile


def validate_entry_name(name: object) -> str:
    """Return `name` if it is a legal entry name, else raise InvalidEntryName."""
    if not isinstance(name, str) or _NAME_RE.fullmatch(name) is None:
        # The rejected name is described, not echoed: a caller that swapped arguments could be
        # passing a secret where a name belongs.
        shown = f"of {len(name)} characters" if isinstance(name, str) else type(name).__name__
        raise InvalidEntryName(
            f"vault entry name ({shown}) is not allowed: use 1-200 characters from "
            "A-Z a-z 0-9 . _ : / - starting with a letter or digit"
        )
    return name


def check_value(value: object) -> SecretValue:
    """Wrap a value to store; bytes-like only, so a str secret is never encoded two ways."""
    if isinstance(value, SecretValue):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return SecretValue(value)
    raise TypeError(f"vault values are bytes, not {type(value).__name__}")


@runtime_checkable
class VaultBackend(Protocol):
    """Named secret blobs. `put` is durable when it returns; `delete` of a missing name is a no-op.

    `put` takes bytes or a SecretValue (callers that hold a SecretValue pass it as is, so the raw
    bytes never sit in their frames); `get` returns bytes, which callers wrap at once.

    `names()` may list a name whose value is gone if a process died between the two steps of a
    write; `get()` then returns None for it. The reverse (a stored value missing from `names()`)
    must never happen, because `names()` is how a backup or a migration finds what to carry.
    """

    def put(self, name: str, value: bytes | SecretValue) -> None: ...

    def get(self, name: str) -> bytes | None: ...

    def delete(self, name: str) -> None: ...

    def names(self) -> list[str]: ...

    def describe(self) -> str: ...


class MemoryVaultBackend:
    """Process-memory backend for tests and the demo's throwaway profile; forgets on exit."""

    def __init__(self, label: str = "memory") -> None:
        self._label = label
        self._values: dict[str, SecretValue] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemoryVaultBackend(label={self._label!r}, entries={len(self._values)})"

    def put(self, name: str, value: bytes | SecretValue) -> None:
        name = validate_entry_name(name)
        secret = check_value(value)
        del value
        with self._lock:
            self._values[name] = secret

    def get(self, name: str) -> bytes | None:
        name = validate_entry_name(name)
        with self._lock:
            secret = self._values.get(name)
        return None if secret is None else secret.reveal()

    def delete(self, name: str) -> None:
        name = validate_entry_name(name)
        with self._lock:
            self._values.pop(name, None)

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._values)

    def describe(self) -> str:
        return f"in-memory vault '{self._label}' (nothing survives this process)"
