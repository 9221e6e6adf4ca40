"""One owner per profile: an OS lock on a file in the profile directory.

Two processes allocating venue nonces and posting from the same outbox would collide, so the
engine takes this lock before the journal opens and holds it until it closes. It is a `flock`
on an open file: the kernel drops it when the owner exits, however it exits (SIGKILL included),
so a crash never leaves a lock that stops the next owner. The file also names the owning pid,
for the refusal message only; the lock, not the file's text, decides who owns the profile.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from tclk_tui.store.errors import StoreError

LOCK_FILE = "owner.lock"


class ProfileLocked(StoreError):
    """Another live process owns this profile; `pid` is that process when it could be read."""

    def __init__(self, profile_dir: Path, pid: int | None) -> None:
        owner = f"process {pid}" if pid else "another process"
        super().__init__(
            f"profile {profile_dir.name} is in use by {owner}: attach to it (a running "
            f"`tclk-tui daemon` or app serves every command), or stop it with "
            f"`tclk-tui daemon stop`")
        self.profile_dir = profile_dir
        self.pid = pid


class ProfileLock:
    """The held lock; `release()` (or process exit) frees the profile."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, profile_dir: Path) -> ProfileLock:
        """Take the profile's lock now, or raise ProfileLocked naming the owner; never waits."""
        profile_dir.mkdir(parents=True, exist_ok=True)
        path = profile_dir / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ProfileLocked(profile_dir, owner_pid(profile_dir)) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(path, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing the last descriptor drops the flock

    def __repr__(self) -> str:
        return f"ProfileLock({str(self.path)!r}, held={self.held})"


def owner_pid(profile_dir: Path) -> int | None:
    """The pid the current (or last) owner wrote; a hint for messages, not a proof of life."""
    try:
        text = (profile_dir / LOCK_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def is_locked(profile_dir: Path) -> bool:
    """Whether a live process holds the profile's lock (probed without keeping it)."""
    path = profile_dir / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
