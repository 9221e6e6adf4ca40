"""The passphrase-encrypted vault file (see `file_format` for the bytes).

Durability: every write produces a complete new image in a temporary file in the same directory,
fsyncs it, renames it over the old file and fsyncs the directory, so after a crash at any instant
the path holds either the old vault or the new one, never a mixture. Readers therefore need no
lock. Writers take an exclusive `flock` on a sidecar `<file>.lock` and re-read the file under it,
so two processes adding entries at once both land (a lock on the vault file itself would be lost
at the first rename).

The derived key is cached for the life of the object, so the Argon2id cost is paid once per
process, not once per entry. POSIX only (fcntl); elsewhere the operator uses the OS keyring.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tclk_tui.vault.backend import check_value, validate_entry_name
from tclk_tui.vault.errors import (
    PassphraseMissing,
    VaultError,
    VaultLocked,
    VaultUnavailable,
    WeakPassphrase,
)
from tclk_tui.vault.file_format import (
    DEFAULT_KDF,
    Header,
    KdfParams,
    derive_key,
    key_matches,
    new_salt,
    normalize_passphrase,
    open_image,
    parse_header,
    seal,
)
from tclk_tui.vault.secret import SecretValue
from tclk_tui.vault.strength import passphrase_problem

try:
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None  # type: ignore[assignment]

PassphraseSource = Callable[[], str | bytes]


@dataclass(frozen=True)
class FileVaultInfo:
    """What can be said about a vault file without its passphrase (for `vault doctor`)."""

    path: str
    exists: bool
    mode: int | None = None
    size: int | None = None
    kdf: KdfParams | None = None
    problem: str | None = None

    def describe(self) -> str:
        if not self.exists:
            return f"{self.path}: absent"
        parts = [f"{self.path}: {self.size} bytes"]
        if self.mode is not None:
            parts.append(f"mode {self.mode:04o}")
        if self.kdf is not None:
            parts.append(f"format v1, {self.kdf.describe()}")
        if self.problem:
            parts.append(f"PROBLEM: {self.problem}")
        return ", ".join(parts)


class FileVaultBackend:
    """Vault entries in one encrypted file, unlocked by a passphrase.

    The passphrase comes from `passphrase` (a callable, asked at most once per process, only when
    the file must be opened or created) or else from the environment variable the operator names
    in `passphrase_env`. `kdf` applies when this object creates the file; an existing file keeps
    the costs in its header. With `strong_new_passphrase` a file this object would create
    refuses a passphrase that falls short of `strength.RULE` (an operator's new vault; tests
    and the demo's throwaway vault choose their own).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        passphrase: PassphraseSource | None = None,
        passphrase_env: str | None = None,
        kdf: KdfParams = DEFAULT_KDF,
        lock_timeout_s: float = 10.0,
        strong_new_passphrase: bool = False,
    ) -> None:
        self._path = Path(path)
        self._strong_new_passphrase = strong_new_passphrase
        self._passphrase_source = passphrase
        self._passphrase_env = passphrase_env
        self._kdf = kdf
        self._lock_timeout_s = lock_timeout_s
        self._thread_lock = threading.RLock()
        self._keys: dict[tuple[bytes, int, int], SecretValue] = {}
        # Salt for a file this object will create, fixed up front so that `unlock()` before the
        # first write derives the very key that write will use (one prompt, one KDF run).
        self._creation_salt = new_salt()

    def __repr__(self) -> str:
        unlocked = "unlocked" if self._keys else "locked"
        return f"FileVaultBackend(path={str(self._path)!r}, {unlocked})"

    @property
    def path(self) -> Path:
        return self._path

    @property
    def lock_path(self) -> Path:
        return self._path.with_name(self._path.name + ".lock")

    def exists(self) -> bool:
        return self._path.exists()

    def has_passphrase_source(self) -> bool:
        return self._passphrase_source is not None or self._passphrase_env is not None

    def passphrase_source_description(self) -> str:
        if self._passphrase_source is not None:
            return "prompt (callable)"
        if self._passphrase_env is not None:
            state = "set" if os.environ.get(self._passphrase_env) else "NOT set"
            return f"environment variable {self._passphrase_env} ({state})"
        return "none"

    def describe(self) -> str:
        return f"encrypted vault file {self._path} ({self._kdf_in_use().describe()})"

    def info(self) -> FileVaultInfo:
        """Inspect the file without a passphrase; never raises for a damaged file."""
        try:
            st = self._path.stat()
        except FileNotFoundError:
            return FileVaultInfo(str(self._path), exists=False)
        except OSError as exc:
            return FileVaultInfo(str(self._path), exists=True, problem=exc.strerror or "unreadable")
        mode = stat.S_IMODE(st.st_mode)
        try:
            header = parse_header(_read_regular(self._path))
        except VaultError as exc:
            return FileVaultInfo(str(self._path), True, mode, st.st_size, problem=str(exc))
        except OSError as exc:
            return FileVaultInfo(
                str(self._path), True, mode, st.st_size, problem=exc.strerror or "unreadable"
            )
        problem = None
        if mode & 0o077:
            problem = "readable by other users (expected mode 0600)"
        return FileVaultInfo(str(self._path), True, mode, st.st_size, header.kdf, problem)

    # --- the VaultBackend contract -------------------------------------------------------------

    def get(self, name: str) -> bytes | None:
        name = validate_entry_name(name)
        with self._thread_lock:
            value = self._read_entries().get(name)
        return None if value is None else value.reveal()

    def names(self) -> list[str]:
        with self._thread_lock:
            return sorted(self._read_entries())

    def put(self, name: str, value: bytes | SecretValue) -> None:
        name = validate_entry_name(name)
        secret = check_value(value)
        del value  # only the wrapped form stays in this frame (see file_format's docstring)
        with self._writing() as entries:
            entries[name] = secret

    def delete(self, name: str) -> None:
        name = validate_entry_name(name)
        with self._writing() as entries:
            entries.pop(name, None)

    def unlock(self) -> None:
        """Ask for the passphrase now and check it, instead of at the first read or write."""
        with self._thread_lock:
            self._read_entries()
            if not self._path.exists():
                self._key_for(self._creation_salt, self._kdf)

    # --- internals -----------------------------------------------------------------------------

    def _kdf_in_use(self) -> KdfParams:
        info = self.info()
        return info.kdf if info.kdf is not None else self._kdf

    def _passphrase(self) -> SecretValue:
        secret, problem = self._ask_passphrase()
        if secret is None:
            if self._passphrase_source is None:
                raise PassphraseMissing(problem or "no passphrase")
            raise VaultLocked(problem or "no passphrase")
        return secret

    def _new_passphrase(self) -> SecretValue:
        """The passphrase for a file this object is about to create, held to the rule."""
        secret = self._passphrase()
        if self._strong_new_passphrase:
            problem = passphrase_problem(secret.reveal())
            if problem is not None:
                where = ("the passphrase given" if self._passphrase_source is not None or
                         self._passphrase_env is None else
                         f"the passphrase in {self._passphrase_env}")
                raise WeakPassphrase(f"{where} is too weak; no vault was created: {problem}")
        return secret

    def _ask_passphrase(self) -> tuple[SecretValue | None, str | None]:
        """(passphrase, None) or (None, problem); returns rather than raises, see file_format."""
        if self._passphrase_source is not None:
            try:
                raw = self._passphrase_source()
            except (KeyboardInterrupt, SystemExit, VaultError):
                raise  # a VaultError is the prompt's own, secret-free refusal
            except Exception as exc:
                return None, (
                    f"the passphrase prompt failed ({type(exc).__name__}); vault stays locked"
                )
        elif self._passphrase_env is not None:
            env = os.environ.get(self._passphrase_env)
            if not env:
                return None, (
                    f"the vault file needs a passphrase and environment variable "
                    f"{self._passphrase_env} is not set"
                )
            raw = env
        else:
            return None, (
                "the vault file needs a passphrase: give a prompt or name an environment variable"
            )
        secret, problem = normalize_passphrase(raw)
        return secret, (None if secret is not None else f"unusable passphrase: {problem}")

    def _key_for(self, salt: bytes, kdf: KdfParams, header: Header | None = None) -> SecretValue:
        cache_key = (salt, kdf.opslimit, kdf.memlimit)
        key = self._keys.get(cache_key)
        if key is None:
            # No header: the file does not exist yet and this key will create it.
            passphrase = self._passphrase() if header is not None else self._new_passphrase()
            key = derive_key(passphrase, salt, kdf)
            if header is not None and not key_matches(header, key):
                # Not cached: the next attempt asks again (the operator may have mistyped).
                return key
            self._keys[cache_key] = key
        return key

    def _read_image(self) -> bytes | None:
        try:
            return _read_regular(self._path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise VaultUnavailable(
                f"cannot read vault file {self._path}: {exc.strerror or 'I/O error'}"
            ) from None

    def _read_entries(self) -> dict[str, SecretValue]:
        image = self._read_image()
        if image is None:
            return {}
        header = parse_header(image)
        key = self._key_for(header.salt, header.kdf, header)
        return open_image(image, header, key)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[dict[str, SecretValue]]:
        with self._thread_lock, self._file_lock():
            image = self._read_image()
            if image is None:
                salt, kdf = self._creation_salt, self._kdf
                entries: dict[str, SecretValue] = {}
            else:
                header = parse_header(image)
                salt, kdf = header.salt, header.kdf
                entries = open_image(image, header, self._key_for(salt, kdf, header))
            before = dict(entries)
            yield entries
            if entries == before:
                return
            key = self._key_for(salt, kdf)
            self._write_atomically(seal(entries, key, salt, kdf))

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        if fcntl is None:  # pragma: no cover - non-POSIX
            raise VaultUnavailable("the file vault needs POSIX file locks; use the OS keyring")
        self._ensure_dir()
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise VaultUnavailable(
                f"cannot open lock file {self.lock_path}: {exc.strerror or 'I/O error'}"
            ) from None
        try:
            deadline = time.monotonic() + self._lock_timeout_s
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise VaultUnavailable(
                            f"vault file {self._path} is being written by another process "
                            f"(lock held for over {self._lock_timeout_s:g} s)"
                        ) from None
                    time.sleep(0.01)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _ensure_dir(self) -> None:
        directory = self._path.parent
        missing = [d for d in (directory, *directory.parents) if not d.exists()]
        for created in reversed(missing):  # every directory made here is 0700, parents too
            with contextlib.suppress(FileExistsError):
                created.mkdir(mode=0o700)
                os.chmod(created, 0o700)

    def _write_atomically(self, image: bytes) -> None:
        directory = self._path.parent
        fd, tmp_name = tempfile.mkstemp(prefix=f".{self._path.name}.", suffix=".tmp", dir=directory)
        try:
            try:
                os.fchmod(fd, 0o600)
                view = memoryview(image)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp_name, self._path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
            raise
        _fsync_dir(directory)


_MAX_IMAGE = 65 * 1024**2  # the format's body cap plus room for the header


def _read_regular(path: Path) -> bytes:
    """The file's bytes, refusing at once what is not a regular file.

    A FIFO would block the open (or the read) until someone writes to it, and `/dev/zero` would
    be read until memory runs out: both are opened without blocking, seen by `fstat`, and
    refused with a sentence. A regular file larger than any vault could be is refused too.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device"
                    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                    else "a directory" if stat.S_ISDIR(st.st_mode) else "not a file")
            raise VaultUnavailable(f"vault path {path} is {kind}, not a regular file: "
                                   "point the vault at a file")
        if st.st_size > _MAX_IMAGE:
            raise VaultUnavailable(f"vault file {path} is {st.st_size} bytes, larger than any "
                                   "vault: not a vault file")
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(_MAX_IMAGE + 1)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable; some filesystems refuse to fsync a directory."""
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)


__all__ = ["FileVaultBackend", "FileVaultInfo", "PassphraseSource"]
