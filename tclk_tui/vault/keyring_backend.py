"""Vault entries in the operator's OS keyring (Secret Service, macOS Keychain, Windows).

Three things about keyrings shape this module:

- They cannot list what they hold, so the entry names live in one extra entry (`__index__`).
  A write adds the name to the index *before* storing the value and a delete removes the value
  *before* the name, so after a crash the index may name a missing value but never misses a
  stored one.
- They can block indefinitely: a locked Secret Service collection raises an unlock prompt on a
  desktop the operator, logged in over SSH, cannot see. Every call therefore runs in a daemon
  worker thread with a deadline, and a call that is still stuck makes later calls wait at most
  one deadline before failing, instead of piling up threads.
- `keyring` falls back silently to backends that cannot protect anything (`fail`, `null`) or
  that keep secrets in weakly protected files (`keyrings.alt`). Those are detected and refused
  with an explanation, so the chooser can fall back to the encrypted file instead.

Values are stored as `tclk1:` + base64 because keyring APIs carry text. Values stay wrapped in
SecretValue in this module's frames and are unwrapped only inside the keyring call.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import keyring
import keyring.backend
import keyring.backends.chainer
import keyring.backends.fail
import keyring.backends.null
import keyring.errors

from tclk_tui.protocol.jsondepth import too_deep
from tclk_tui.vault.backend import check_profile, check_value, validate_entry_name
from tclk_tui.vault.errors import (
    VaultCorrupt,
    VaultError,
    VaultLocked,
    VaultTimeout,
    VaultUnavailable,
)
from tclk_tui.vault.secret import SecretValue

T = TypeVar("T")

INDEX_ENTRY = "__index__"
VALUE_PREFIX = "tclk1:"
DEFAULT_TIMEOUT_S = 15.0

_LOCKED_HELP = (
    "the OS keyring is locked and was not unlocked (no unlock prompt could be shown, or it was "
    "dismissed); unlock it (log in to the desktop session, or run `gnome-keyring-daemon --unlock` "
    "in this session) or use the encrypted vault file instead"
)


def service_name(profile: str) -> str:
    """The keyring service under which one profile's entries live."""
    return f"tclk-tui:{check_profile(profile)}"


def backend_name(kr: keyring.backend.KeyringBackend) -> str:
    cls = type(kr)
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass(frozen=True)
class KeyringAssessment:
    """Whether a keyring backend object may hold wallet secrets, and why (public facts only)."""

    name: str
    usable: bool
    reason: str


def assess_keyring(kr: keyring.backend.KeyringBackend) -> KeyringAssessment:
    """Classify a backend without calling it (calling it may block on a prompt)."""
    name = backend_name(kr)
    if isinstance(kr, keyring.backends.fail.Keyring):
        return KeyringAssessment(
            name,
            False,
            "keyring found no OS secret store (its 'fail' backend is active). On Linux this "
            "usually means no Secret Service is reachable on the session D-Bus, which is normal "
            "over SSH; start gnome-keyring or KWallet in this session, or use the encrypted file",
        )
    if isinstance(kr, keyring.backends.null.Keyring):
        return KeyringAssessment(
            name,
            False,
            "keyring is configured with its 'null' backend, which stores nothing "
            "(check keyringrc.cfg or PYTHON_KEYRING_BACKEND)",
        )
    if isinstance(kr, keyring.backends.chainer.ChainerBackend):
        members = list(kr.backends)
        if not members:
            return KeyringAssessment(
                name, False, "keyring's chainer backend has no backend to chain to"
            )
        for member in members:
            verdict = assess_keyring(member)
            if not verdict.usable:
                return KeyringAssessment(
                    name, False, f"keyring chains through an unsafe backend: {verdict.reason}"
                )
        chained = ", ".join(backend_name(m) for m in members)
        return KeyringAssessment(name, True, f"keyring chains {chained}")
    if type(kr).__module__.startswith("keyrings.alt"):
        return KeyringAssessment(
            name,
            False,
            "keyrings.alt backends keep secrets in plain or weakly protected files, not in an OS "
            "secret store; use tclk-tui's encrypted vault file instead",
        )
    return KeyringAssessment(name, True, f"OS keyring backend {name}")


class _Call:
    """One keyring call running in a worker thread."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self._fn = fn

    def run(self) -> None:
        try:
            self.result = self._fn()
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()


class KeyringVaultBackend:
    """Vault entries for one profile in the OS keyring, every call bounded by `timeout_s`.

    `keyring_backend` selects a keyring backend object explicitly; by default the one
    `keyring.get_keyring()` chooses is used, resolved inside the first timed call because
    resolution itself probes D-Bus. Thread-safe; writes to the index are serialised within this
    process (two processes adding names at the same instant can lose an index entry, which is why
    the chooser uses one backend per profile and the engine one process per profile).
    """

    def __init__(
        self,
        profile: str,
        *,
        keyring_backend: keyring.backend.KeyringBackend | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self._profile = profile
        self._service = service_name(profile)
        self._kr = keyring_backend
        self._timeout_s = timeout_s
        self._pending: _Call | None = None
        self._call_lock = threading.Lock()
        self._index_lock = threading.RLock()

    def __repr__(self) -> str:
        kr = backend_name(self._kr) if self._kr is not None else "unresolved"
        return f"KeyringVaultBackend(service={self._service!r}, keyring={kr})"

    @property
    def service(self) -> str:
        return self._service

    @property
    def timeout_s(self) -> float:
        return self._timeout_s

    def keyring_backend(self) -> keyring.backend.KeyringBackend:
        """The keyring backend object in use (resolving the default one, with the deadline)."""
        if self._kr is None:
            self._kr = self._timed(keyring.get_keyring, "finding the OS keyring")
        return self._kr

    def assess(self) -> KeyringAssessment:
        return assess_keyring(self.keyring_backend())

    def check(self) -> None:
        """Raise a VaultError explaining why this keyring cannot hold secrets now, if it cannot.

        Refuses unsafe backends without touching them, then reads the index entry (a name list,
        no secret) to prove the store answers and is unlocked.
        """
        verdict = self.assess()
        if not verdict.usable:
            raise VaultUnavailable(verdict.reason)
        self._read_index()

    def has_entries(self) -> bool:
        """Whether this profile has anything in the keyring (reads only the name index)."""
        self._require_usable()
        return bool(self._read_index())

    def describe(self) -> str:
        kr = backend_name(self._kr) if self._kr is not None else "default keyring"
        return f"OS keyring ({kr}), service '{self._service}'"

    # --- the VaultBackend contract -------------------------------------------------------------

    def get(self, name: str) -> bytes | None:
        name = validate_entry_name(name)
        self._require_usable()
        text = self._timed(lambda: self._kr_get(name), f"reading entry {name}")
        if text is None:
            return None
        value, problem = _decode_value(text)
        del text  # raise with only public data in this frame (see file_format's docstring)
        if value is None:
            raise VaultCorrupt(f"keyring entry {name} {problem}")
        return value.reveal()

    def names(self) -> list[str]:
        self._require_usable()
        return sorted(self._read_index())

    def put(self, name: str, value: bytes | SecretValue) -> None:
        name = validate_entry_name(name)
        text = _encode_value(check_value(value))
        del value
        self._require_usable()
        with self._index_lock:
            index = self._read_index()
            if name not in index:
                self._write_index(index | {name})
            self._timed(lambda: self._kr_set(name, text), f"storing entry {name}")

    def delete(self, name: str) -> None:
        name = validate_entry_name(name)
        self._require_usable()
        with self._index_lock:
            self._timed(lambda: self._kr_delete(name), f"deleting entry {name}")
            index = self._read_index()
            if name in index:
                self._write_index(index - {name})

    # --- internals -----------------------------------------------------------------------------

    def _require_usable(self) -> None:
        verdict = self.assess()
        if not verdict.usable:
            raise VaultUnavailable(verdict.reason)

    def _resolved(self) -> keyring.backend.KeyringBackend:
        # Worker threads must not resolve the backend themselves: that would nest a timed call.
        if self._kr is None:
            raise VaultUnavailable("internal: keyring backend used before it was resolved")
        return self._kr

    def _kr_get(self, username: str) -> str | None:
        return self._resolved().get_password(self._service, username)

    def _kr_set(self, username: str, text: SecretValue) -> None:
        self._resolved().set_password(self._service, username, text.reveal().decode("ascii"))

    def _kr_delete(self, username: str) -> None:
        # Keyring reports "no such password" as PasswordDeleteError; deleting nothing is a no-op.
        with contextlib.suppress(keyring.errors.PasswordDeleteError):
            self._resolved().delete_password(self._service, username)

    def _read_index(self) -> set[str]:
        self.keyring_backend()
        text = self._timed(lambda: self._kr_get(INDEX_ENTRY), "reading the entry index")
        if text is None:
            return set()
        try:
            if too_deep(text):
                raise RecursionError
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError, TypeError):
            raise VaultCorrupt(f"keyring entry index of '{self._service}' is not JSON") from None
        if (
            not isinstance(data, dict)
            or data.get("v") != 1
            or not isinstance(data.get("names"), list)
        ):
            raise VaultCorrupt(f"keyring entry index of '{self._service}' has an unknown layout")
        names = data["names"]
        if not all(isinstance(n, str) for n in names):
            raise VaultCorrupt(f"keyring entry index of '{self._service}' holds a non-name")
        return set(names)

    def _write_index(self, names: set[str]) -> None:
        text = json.dumps({"v": 1, "names": sorted(names)}, separators=(",", ":"))
        index = SecretValue(text.encode("ascii"))  # not secret; wrapped for _kr_set's signature
        self._timed(lambda: self._kr_set(INDEX_ENTRY, index), "updating the entry index")

    def _timed(self, fn: Callable[[], T], what: str) -> T:
        with self._call_lock:
            pending = self._pending
            if pending is not None and not pending.done.wait(self._timeout_s):
                raise VaultTimeout(
                    f"the OS keyring is still busy with an earlier call (over "
                    f"{self._timeout_s:g} s), probably an unlock prompt nobody can see; "
                    f"gave up {what}"
                )
            self._pending = None
            call = _Call(fn)
            worker = threading.Thread(
                target=call.run, name=f"tclk-keyring:{self._service}", daemon=True
            )
            worker.start()
            if not call.done.wait(self._timeout_s):
                self._pending = call
                raise VaultTimeout(
                    f"the OS keyring did not answer within {self._timeout_s:g} s while {what}; "
                    "it may be waiting for an unlock prompt that cannot be shown (for example "
                    "over SSH). Unlock the keyring in this session or use the encrypted vault file"
                )
        if call.error is not None:
            raise _translate(call.error, what) from None
        return call.result  # type: ignore[no-any-return]


def _translate(exc: BaseException, what: str) -> BaseException:
    """Map a keyring failure to a VaultError whose message cannot carry a stored value."""
    if isinstance(exc, VaultError):
        return exc
    if isinstance(exc, keyring.errors.KeyringLocked):
        return VaultLocked(f"{_LOCKED_HELP} (while {what})")
    if isinstance(exc, keyring.errors.NoKeyringError):
        return VaultUnavailable(f"no OS keyring is available (while {what})")
    if isinstance(exc, keyring.errors.InitError):
        return VaultUnavailable(f"the OS keyring could not be opened (while {what}): {exc}")
    if isinstance(exc, keyring.errors.KeyringError):
        return VaultUnavailable(
            f"the OS keyring refused the request (while {what}): {type(exc).__name__}: {exc}"
        )
    if isinstance(exc, KeyboardInterrupt | SystemExit):
        return exc
    # Anything else comes from a backend's transport (D-Bus, COM, Security framework); only its
    # type is reported, since a third-party message could echo its arguments.
    cls = type(exc)
    return VaultUnavailable(
        f"the OS keyring failed (while {what}) with {cls.__module__}.{cls.__qualname__}"
    )


def _encode_value(value: SecretValue) -> SecretValue:
    return SecretValue(VALUE_PREFIX.encode("ascii") + base64.b64encode(value.reveal()))


def _decode_value(text: str) -> tuple[SecretValue | None, str | None]:
    """(value, None) or (None, problem); returns rather than raises with the text in scope."""
    if not isinstance(text, str) or not text.startswith(VALUE_PREFIX):
        return None, "was not written by tclk-tui"
    try:
        raw = base64.b64decode(text[len(VALUE_PREFIX) :].encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return None, "is damaged (bad base64)"
    return SecretValue(raw), None


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "INDEX_ENTRY",
    "KeyringAssessment",
    "KeyringVaultBackend",
    "assess_keyring",
    "backend_name",
    "service_name",
]
