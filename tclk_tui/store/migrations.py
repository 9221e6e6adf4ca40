"""Schema versions of the journal and the code that moves a file between them.

Each migration runs inside one `BEGIN IMMEDIATE` transaction together with its row in
`schema_version` (SQLite DDL is transactional), so a crash or a failing statement leaves the file
at the previous version, and two processes opening a fresh file at once cannot both migrate it.
Migrations are append-only: a released one is never edited, a change is a new version.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from tclk_tui.store.errors import MigrationError, SchemaTooNew

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


_V1 = (
    """CREATE TABLE identities (
        did TEXT PRIMARY KEY CHECK (did LIKE 'did:%'),
        label TEXT,
        created_ms INTEGER NOT NULL
    )""",
    """CREATE TABLE deals (
        id INTEGER PRIMARY KEY,
        offer_id TEXT NOT NULL,
        contract_id TEXT UNIQUE,
        role TEXT NOT NULL,
        status TEXT NOT NULL,
        room TEXT,
        terms_json TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
    )""",
    "CREATE INDEX deals_by_offer ON deals (offer_id)",
    "CREATE INDEX deals_by_status ON deals (status)",
    """CREATE TABLE records (
        id INTEGER PRIMARY KEY,
        room TEXT NOT NULL,
        generation INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        ts_ms INTEGER NOT NULL,
        sender TEXT NOT NULL,
        nonce TEXT,
        sig TEXT,
        line TEXT NOT NULL,
        received_ms INTEGER NOT NULL,
        UNIQUE (room, generation, seq),
        UNIQUE (room, sender, nonce)
    )""",
    """CREATE TABLE room_cursors (
        room TEXT PRIMARY KEY,
        generation INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
    )""",
    """CREATE TABLE outbox (
        id INTEGER PRIMARY KEY,
        room TEXT NOT NULL,
        text TEXT NOT NULL,
        nonce TEXT,
        state TEXT NOT NULL CHECK (state IN ('pending', 'posted', 'confirmed', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        deal_id INTEGER REFERENCES deals (id),
        secret_ref TEXT,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
    )""",
    "CREATE INDEX outbox_by_state ON outbox (state, id)",
    """CREATE TABLE nonce_counters (
        did TEXT NOT NULL,
        room TEXT NOT NULL,
        nonce TEXT NOT NULL,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY (did, room)
    )""",
    """CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_ms INTEGER NOT NULL
    )""",
)

# Agents: every tool call (the audit trail), spend per deal (caps outlive a restart), and the
# operator's approvals of gated calls (they survive a restart too).
_V2 = (
    """CREATE TABLE agent_calls (
        id INTEGER PRIMARY KEY,
        agent TEXT NOT NULL,
        transport TEXT NOT NULL,
        tool TEXT NOT NULL,
        params_json TEXT NOT NULL,
        decision TEXT NOT NULL,
        result_kind TEXT NOT NULL,
        detail TEXT NOT NULL,
        deal_id TEXT,
        ts_ms INTEGER NOT NULL
    )""",
    "CREATE INDEX agent_calls_by_agent ON agent_calls (agent, id)",
    "CREATE INDEX agent_calls_by_deal ON agent_calls (deal_id, id)",
    """CREATE TABLE agent_spend (
        id INTEGER PRIMARY KEY,
        agent TEXT NOT NULL,
        deal_id TEXT NOT NULL,
        asset TEXT NOT NULL,
        amount TEXT NOT NULL CHECK (amount GLOB '[0-9]*'),
        ts_ms INTEGER NOT NULL,
        UNIQUE (agent, deal_id)
    )""",
    "CREATE INDEX agent_spend_by_time ON agent_spend (agent, ts_ms)",
    """CREATE TABLE agent_approvals (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        tool TEXT NOT NULL,
        params_json TEXT NOT NULL,
        deal_id TEXT,
        facts_json TEXT NOT NULL,
        facts_digest TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'lapsed',
                                             'failed')),
        reason TEXT NOT NULL DEFAULT '',
        result_json TEXT,
        created_ms INTEGER NOT NULL,
        decided_ms INTEGER
    )""",
    "CREATE INDEX agent_approvals_by_state ON agent_approvals (state, created_ms)",
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", _V1),
    Migration(2, "agent calls, spend and approvals", _V2),
    # frame_ok: 1 when the record's line decoded as a valid frame when it was journaled, 0
    # when it did not. vouch: the profile's keyed hash over the row as written (see
    # engine/evidence.py). NULL in both for records journaled before: checked on every read.
    Migration(3, "records remember, vouched for, that they were checked",
              ("ALTER TABLE records ADD COLUMN frame_ok INTEGER",
               "ALTER TABLE records ADD COLUMN vouch BLOB")),
)
LATEST_VERSION = MIGRATIONS[-1].version

_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_ms INTEGER NOT NULL
)"""


def check_sequence(migrations: Sequence[Migration]) -> None:
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise MigrationError(
                f"migration list must run 1, 2, 3, ... without gaps; found version "
                f"{migration.version} where {expected} belongs"
            )


def current_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if exists is None:
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def migrate(
    conn: sqlite3.Connection, now_ms: int, migrations: Sequence[Migration] = MIGRATIONS
) -> int:
    """Bring `conn` (autocommit mode) to the last version in `migrations`; return that version."""
    check_sequence(migrations)
    latest = migrations[-1].version if migrations else 0
    conn.execute("BEGIN IMMEDIATE")
    version = 0
    try:
        conn.execute(_VERSION_TABLE)
        version = current_version(conn)
        if version > latest:
            raise SchemaTooNew(
                f"this journal is at schema version {version}, newer than the {latest} this "
                "build knows; refusing to open it (upgrade tclk-tui)"
            )
        for migration in migrations[version:]:
            try:
                for statement in migration.statements:
                    conn.execute(statement)
            except sqlite3.Error as exc:
                raise MigrationError(
                    f"migration {migration.version} ({migration.description}) failed: {exc}"
                ) from None
            conn.execute(
                "INSERT INTO schema_version (version, description, applied_ms) VALUES (?, ?, ?)",
                (migration.version, migration.description, now_ms),
            )
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if isinstance(exc, MigrationError | SchemaTooNew):
            log.error("journal schema left at version %d: %s", version, exc)
        raise
    for migration in migrations[version:]:  # said once they are committed, not before
        log.info("journal migrated to schema version %d: %s", migration.version,
                 migration.description)
    return max(version, latest)
