import sqlite3
import stat

import pytest

from tclk_tui.store import (
    LATEST_VERSION,
    MIGRATIONS,
    Journal,
    Migration,
    MigrationError,
    SchemaTooNew,
)
from tclk_tui.store.migrations import current_version, migrate


def tables(path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {r[0] for r in rows}


def test_fresh_file_is_migrated_to_latest(tmp_path):
    path = tmp_path / "dir" / "j.sqlite"
    with Journal(path) as journal:
        assert journal.schema_version == LATEST_VERSION == MIGRATIONS[-1].version
        assert journal.path == path
    assert {
        "schema_version",
        "identities",
        "deals",
        "records",
        "room_cursors",
        "outbox",
        "nonce_counters",
        "settings",
    } <= tables(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_reopening_does_not_migrate_again(tmp_path, clock):
    path = tmp_path / "j.sqlite"
    Journal(path, clock=clock).close()
    clock.now += 1000
    Journal(path, clock=clock).close()
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT version, applied_ms FROM schema_version").fetchall()
    assert rows == [(m.version, clock.now - 1000) for m in MIGRATIONS]


def test_wal_and_full_sync_are_on(journal):
    with journal.db.connection() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_a_newer_schema_is_refused_untouched(tmp_path):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99, 'from the future', 0)")
    before = path.read_bytes()
    with pytest.raises(SchemaTooNew, match="99"):
        Journal(path)
    assert path.read_bytes() == before


def test_later_migrations_apply_in_order(tmp_path):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    extra = (
        *MIGRATIONS,
        Migration(LATEST_VERSION + 1, "add notes",
                  ("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",)),
        Migration(LATEST_VERSION + 2, "index notes", ("CREATE INDEX notes_body ON notes (body)",)),
    )
    with Journal(path, migrations=extra) as journal:
        assert journal.schema_version == LATEST_VERSION + 2
    assert "notes" in tables(path)


def test_a_failing_migration_rolls_back_completely(tmp_path):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    broken = (
        *MIGRATIONS,
        Migration(
            LATEST_VERSION + 1,
            "half broken",
            ("CREATE TABLE half (x)", "INSERT INTO no_such_table VALUES (1)"),
        ),
    )
    with pytest.raises(MigrationError, match=f"migration {LATEST_VERSION + 1}"):
        Journal(path, migrations=broken)
    assert "half" not in tables(path)
    with sqlite3.connect(path) as conn:
        assert current_version(conn) == LATEST_VERSION
    with Journal(path) as journal:  # still usable at the version before
        assert journal.schema_version == LATEST_VERSION


def test_migration_lists_must_be_contiguous(tmp_path):
    conn = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    try:
        with pytest.raises(MigrationError):
            migrate(conn, 0, (Migration(2, "skips one", ()),))
    finally:
        conn.close()
