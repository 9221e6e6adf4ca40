"""Engine errors: one sentence an operator can act on, never a secret, never a traceback."""

from __future__ import annotations

import contextlib
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

    def __init__(self, message: str, *, happened: bool) -> None:
        super().__init__(message)
        self.happened = happened


@contextlib.contextmanager
def journaling(what: str, *, happened: bool) -> Iterator[None]:
    """Turn a raw OSError/sqlite3 error from a journal write into a JournalUnwritable."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        outcome = (f"it did happen on the venue ({what}); only the local record of it is "
                   "missing, and the next start reads it back" if happened else
                   f"nothing was posted ({what} did not happen)")
        raise JournalUnwritable(f"the journal could not be written ({why}): {outcome}",
                                happened=happened) from None
