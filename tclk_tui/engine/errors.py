"""Engine errors: one sentence an operator can act on, never a secret, never a traceback."""

from __future__ import annotations

import contextlib
import errno
import sqlite3
from collections.abc import Iterator


class EngineError(Exception):
    """The engine refused or could not do what was asked; the message says why."""


class ProfileBusy(EngineError):
    """Another process owns the profile: a face attaches to it (`pid` is the owner) or stops."""

    def __init__(self, message: str, pid: int | None) -> None:
        super().__init__(message)
        self.pid = pid


class JournalUnwritable(EngineError):
    """The journal, or the disk under it, refused a write (full, read-only, I/O error).

    `happened` says whether the action itself took place: False when the write that failed came
    before anything was posted (nothing happened), True when the line is on the venue and only
    the record of it is missing (a restart reads it back from the room).
    """

    def __init__(self, message: str, *, happened: bool, why: str = "") -> None:
        super().__init__(message)
        self.happened = happened
        self.why = why or message  # which store refused, and the system's word for it


@contextlib.contextmanager
def journaling(what: str, *, happened: bool, store: str = "the journal") -> Iterator[None]:
    """Turn a raw OSError/sqlite3 error from a write to the journal (or to the vault: `store`)
    into a JournalUnwritable."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        why = write_failure(exc)
        outcome = (f"it did happen on the venue ({what}); only the local record of it is "
                   "missing, and the next start reads it back" if happened else
                   f"nothing was posted ({what} did not happen)")
        raise JournalUnwritable(f"{store} could not be written ({why}): {outcome}",
                                happened=happened, why=f"{store} could not be written "
                                f"({why})") from None


def write_failure(exc: OSError | sqlite3.Error) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


# What happened, by errno, as the end of a sentence naming the path ({path}).
_OS_WHAT = {
    errno.EACCES: "permission denied on {path}",
    errno.EPERM: "the system does not permit this on {path}",
    errno.ENOENT: "{path} does not exist",
    errno.ENOTDIR: "a part of {path} is a file, not a directory",
    errno.EISDIR: "{path} is a directory",
    errno.ENOSPC: "the disk holding {path} is full",
    errno.EDQUOT: "the disk quota for {path} is used up",
    errno.EROFS: "{path} is on a read-only file system",
    errno.ENAMETOOLONG: "the name {path} is too long",
    errno.ELOOP: "{path} goes round a loop of symbolic links",
    errno.EIO: "the disk reported an input/output error on {path}",
    errno.EMFILE: "this process has too many files open (at {path})",
    errno.ETXTBSY: "{path} is busy",
    errno.EBUSY: "{path} is busy",
    errno.EXDEV: "{path} is on another file system",
    errno.ENOTEMPTY: "{path} is a directory that is not empty",
}


def os_error_sentence(exc: OSError, doing: str | None = None, *,
                      path: object = None) -> str:
    """An OSError as a sentence an operator can act on: the path and what happened, never
    `[Errno 17]` or a strerror tuple. `doing` says what was being attempted ("write the
    evidence bundle"), when the caller knows; `path` names the file when the error does not
    (a write that found the disk full carries no file name)."""
    path = exc.filename if exc.filename not in (None, "") else path
    shown = repr(str(path)) if path is not None and any(c.isspace() for c in str(path)) \
        else (str(path) if path is not None else "")
    if exc.errno == errno.EEXIST and path is not None:
        what = f"{shown} already exists"
    elif exc.errno in _OS_WHAT and path is not None:
        what = _OS_WHAT[exc.errno].format(path=shown)
    else:
        reason = (exc.strerror or str(exc.args[0] if exc.args else "") or
                  ("the operation timed out" if isinstance(exc, TimeoutError) else
                   f"the system reported {type(exc).__name__}")).rstrip(".")
        reason = reason[:1].lower() + reason[1:]
        what = f"{reason} ({shown})" if path is not None else reason
    if exc.filename2 not in (None, ""):
        what += f" (with {exc.filename2})"
    return f"cannot {doing}: {what}" if doing else what
