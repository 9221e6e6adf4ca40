"""Keyring backends defined in-process through keyring's documented extension point.

Each is a real `keyring.backend.KeyringBackend` subclass. Their `priority` raises, which is how
keyring marks a backend not viable, so auto-detection never picks one of them up.
"""

from __future__ import annotations

import threading

import keyring.backend
import keyring.errors
from keyring.compat import properties


class _TestOnly(keyring.backend.KeyringBackend):
    @properties.classproperty
    def priority(cls) -> float:
        raise RuntimeError("test-only backend, never auto-selected")

    def get_password(self, service: str, username: str) -> str | None:  # pragma: no cover
        raise NotImplementedError

    def set_password(self, service: str, username: str, password: str) -> None:  # pragma: no cover
        raise NotImplementedError


class DictKeyring(_TestOnly):
    """A keyring holding entries in a dict, like an OS store that always answers."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}
        self.calls: list[tuple[str, str]] = []

    def get_password(self, service: str, username: str) -> str | None:
        self.calls.append(("get", username))
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.calls.append(("set", username))
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.calls.append(("delete", username))
        if (service, username) not in self.entries:
            raise keyring.errors.PasswordDeleteError("No such password!")
        del self.entries[(service, username)]


class FailingValueWrites(DictKeyring):
    """Stores the name index but dies writing any other entry (a crash between the two steps)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        if username != "__index__":
            raise keyring.errors.PasswordSetError("storage went away")
        super().set_password(service, username, password)


class LockedKeyring(_TestOnly):
    """Behaves as the Secret Service backend does when the unlock prompt is dismissed."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")


class InitFailingKeyring(_TestOnly):
    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.InitError("Failed to create the collection: no D-Bus.")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.InitError("Failed to create the collection: no D-Bus.")


class LeakyErrorKeyring(DictKeyring):
    """A backend whose transport error echoes its arguments, as a careless library might."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise OSError(f"transport broke while sending {password}")


class HangingKeyring(DictKeyring):
    """Blocks in get_password until released, like a keyring waiting on an invisible prompt."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Event()
        self.hang = True

    def get_password(self, service: str, username: str) -> str | None:
        if self.hang:
            self.entered.set()
            self.release.wait(60)
        return super().get_password(service, username)
