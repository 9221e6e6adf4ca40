"""The one SQLite connection of a journal file, and the transaction API every store writes through.

Durability: WAL mode with `synchronous=FULL`, so a transaction that returned is on disk (a crash
of the process or of the machine loses nothing that was acknowledged), and readers in other
processes never block the writer. Every write is one `BEGIN IMMEDIATE` transaction; a failure
inside it (SQLITE_FULL on a full disk, an I/O error, an exception of the caller) rolls it back
and reaches the caller as the raw `sqlite3.Error`, which the engine maps to JournalUnwritable.

Threads: one `Database` may be shared by all threads of a process; calls are serialised by a
lock around the single connection (opened with `check_same_thread=False`). Other processes may
open the same file; SQLite's file locking and the busy timeout arbitrate.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tclk_tui.store.errors import JournalClosed, StoreError
from tclk_tui.store.migrations import MIGRATIONS, Migration, migrate

Clock = Callable[[], int]


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class Database:
    """The journal file's connection: opened, migrated, and closed once; shared by its stores."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Clock = wall_clock_ms,
        busy_timeout_s: float = 5.0,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> None:
        self._path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        _create_private(self._path)
        conn = sqlite3.connect(
            self._path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"the journal's filesystem does not support WAL (got {mode})")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            self._version = migrate(conn, self._clock(), migrations)
        except BaseException:
            conn.close()
            raise
        self._conn: sqlite3.Connection | None = conn

    @property
    def path(self) -> Path:
        """The database file (its `-wal` and `-shm` companions sit next to it)."""
        return self._path

    @property
    def schema_version(self) -> int:
        return self._version

    @property
    def closed(self) -> bool:
        return self._conn is None

    def close(self) -> None:
        """Checkpoint and close; idempotent."""
        with self._lock:
            if self._conn is None:
                return
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
            self._conn = None

    def now(self) -> int:
        """The journal's clock in milliseconds: the stamp every store writes."""
        return int(self._clock())

    @contextlib.contextmanager
    def transaction(self, *, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One `BEGIN IMMEDIATE` transaction: committed when the block ends, rolled back when it
        raises. `durable=False` is for a row whose loss to a power cut costs nothing (an audit
        line of a call that changed nothing): it commits without waiting for the disk (WAL,
        synchronous NORMAL: it can be lost, never half-written), so it costs no fsync."""
        with self._lock:
            if durable:
                with self._begin() as conn:
                    yield conn
                return
            live = self._live()
            live.execute("PRAGMA synchronous = NORMAL")
            try:
                with self._begin() as conn:
                    yield conn
            finally:
                live.execute("PRAGMA synchronous = FULL")

    def one(self, sql: str, args: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        """The first row of a read, or None."""
        with self._lock:
            row = self._live().execute(sql, args).fetchone()
        return None if row is None else tuple(row)

    def all(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Every row of a read."""
        with self._lock:
            return [tuple(r) for r in self._live().execute(sql, args).fetchall()]

    @contextlib.contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The connection itself under the lock, outside any transaction: for a PRAGMA (what the
        file's settings are, a test's cap on its pages), never for a store's reads or writes."""
        with self._lock:
            yield self._live()

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalClosed(f"journal {self._path} is closed")
        return self._conn

    @contextlib.contextmanager
    def _begin(self) -> Iterator[sqlite3.Connection]:
        conn = self._live()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:  # SQLITE_FULL and I/O errors roll back by themselves
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _create_private(path: Path) -> None:
    """Create the directory (0700) and an empty database file (0600) if they are missing."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


__all__ = ["Clock", "Database", "wall_clock_ms"]
