"""The rail's transaction journal: every transaction is written here before it is sent.

One SQLite file per profile and chain, owned by the rail. A row names what the transaction does
(deposit, claim or refund of one lock), its sender, nonce, fee fields and hash, so a restarted
wallet can find it on chain, or send the very same bytes again, instead of making a second one.
A claim's calldata carries the secret, so its raw bytes are never stored: the row keeps the
fields and the hash, and the claim is re-signed (deterministically, RFC 6979) from the secret
the vault holds, its hash checked against the journaled one before anything is sent.

A transaction replaced at the same nonce with higher fees is a second row (`replaces` names the
first); whichever the chain mines is `mined`, the other `replaced`. A row whose nonce the chain
gave to another transaction, or that the node refused outright, is `dropped`: it never counted.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TxLog", "TxRow"]

SCHEMA_VERSION = 2
_TABLE = """
CREATE TABLE {name} (
    id INTEGER PRIMARY KEY,
    chain_id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('deposit', 'claim', 'refund', 'approve')),
    lock_id TEXT NOT NULL,
    sender TEXT NOT NULL,
    nonce INTEGER NOT NULL,
    tx_hash TEXT NOT NULL,
    fields TEXT NOT NULL,
    raw TEXT,
    state TEXT NOT NULL CHECK (state IN ('signed', 'sent', 'mined', 'failed', 'replaced',
                                         'dropped')),
    block INTEGER,
    replaces INTEGER,
    UNIQUE (chain_id, kind, lock_id, tx_hash)
);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS evm_tx_lock ON evm_tx (chain_id, kind, lock_id);
CREATE INDEX IF NOT EXISTS evm_tx_nonce ON evm_tx (chain_id, sender, nonce);
"""
LIVE_STATES = ("signed", "sent")


@dataclass(frozen=True, slots=True)
class TxRow:
    id: int
    chain_id: int
    kind: str
    lock_id: str
    sender: str
    nonce: int
    tx_hash: str
    fields: dict
    raw: str | None
    state: str
    block: int | None
    replaces: int | None = None


class TxLog:
    """Durable before the send: every write commits with synchronous=FULL."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._migrate()

    def _migrate(self) -> None:
        """Version 1 (deposits, claims and refunds; no replacements) is copied row for row."""
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version >= SCHEMA_VERSION:
                return
            exists = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                      "name = 'evm_tx'").fetchone()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if exists:
                    self._db.execute(_TABLE.format(name="evm_tx_v2"))
                    self._db.execute(
                        "INSERT INTO evm_tx_v2 (id, chain_id, kind, lock_id, sender, nonce, "
                        "tx_hash, fields, raw, state, block) SELECT id, chain_id, kind, lock_id,"
                        " sender, nonce, tx_hash, fields, raw, state, block FROM evm_tx")
                    self._db.execute("DROP TABLE evm_tx")
                    self._db.execute("ALTER TABLE evm_tx_v2 RENAME TO evm_tx")
                else:
                    self._db.execute(_TABLE.format(name="evm_tx"))
                for statement in _INDEXES.strip().splitlines():
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def __repr__(self) -> str:
        return f"TxLog({self.path.name!r})"

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def record(self, *, chain_id: int, kind: str, lock_id: str, sender: str, nonce: int,
               tx_hash: str, fields: dict, raw: str | None,
               replaces: int | None = None) -> TxRow:
        with self._lock:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO evm_tx (chain_id, kind, lock_id, sender, nonce, tx_hash,"
                " fields, raw, state, replaces) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'signed', ?)",
                (chain_id, kind, lock_id, sender, nonce, tx_hash,
                 json.dumps(fields, sort_keys=True), raw, replaces))
            del cur
        row = self.find(chain_id, kind, lock_id, tx_hash=tx_hash)
        assert row is not None
        return row

    def mark(self, row: TxRow, state: str, block: int | None = None) -> None:
        """A state seen since the send: written without waiting for the disk, since a mark
        lost to a power cut is read again from the chain (only the row itself, written before
        the send, must be on disk before the transaction leaves)."""
        with self._lock:
            self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                self._db.execute("UPDATE evm_tx SET state = ?, block = ? WHERE id = ?",
                                 (state, block, row.id))
            finally:
                self._db.execute("PRAGMA synchronous=FULL")

    def find(self, chain_id: int, kind: str, lock_id: str, *,
             tx_hash: str | None = None) -> TxRow | None:
        """The latest journaled transaction of this kind for this lock (or with this hash)."""
        query = ("SELECT id, chain_id, kind, lock_id, sender, nonce, tx_hash, fields, raw, state,"
                 " block, replaces FROM evm_tx WHERE chain_id = ? AND kind = ? AND lock_id = ?")
        args: list = [chain_id, kind, lock_id]
        if tx_hash is not None:
            query += " AND tx_hash = ?"
            args.append(tx_hash)
        with self._lock:
            found = self._db.execute(query + " ORDER BY id DESC LIMIT 1", args).fetchone()
        return None if found is None else _row(found)

    def unfinished(self, chain_id: int) -> list[TxRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, chain_id, kind, lock_id, sender, nonce, tx_hash, fields, raw, state,"
                " block, replaces FROM evm_tx WHERE chain_id = ? AND state IN ('signed', 'sent')"
                " ORDER BY id", (chain_id,)).fetchall()
        return [_row(r) for r in rows]

    def live(self, chain_id: int, sender: str) -> list[TxRow]:
        """This account's transactions that may still be mined, by nonce."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, chain_id, kind, lock_id, sender, nonce, tx_hash, fields, raw, state,"
                " block, replaces FROM evm_tx WHERE chain_id = ? AND sender = ? AND state IN"
                " ('signed', 'sent') ORDER BY nonce, id", (chain_id, sender)).fetchall()
        return [_row(r) for r in rows]

    def same_nonce(self, row: TxRow) -> list[TxRow]:
        """`row` and every other journaled transaction at its nonce that reached the node (a
        replacement, or the one it replaced), oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, chain_id, kind, lock_id, sender, nonce, tx_hash, fields, raw, state,"
                " block, replaces FROM evm_tx WHERE chain_id = ? AND sender = ? AND nonce = ?"
                " AND (state != 'dropped' OR id = ?) ORDER BY id",
                (row.chain_id, row.sender, row.nonce, row.id)).fetchall()
        return [_row(r) for r in rows]

    def all(self) -> list[TxRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, chain_id, kind, lock_id, sender, nonce, tx_hash, fields, raw, state,"
                " block, replaces FROM evm_tx ORDER BY id").fetchall()
        return [_row(r) for r in rows]


def _row(r: tuple) -> TxRow:
    return TxRow(id=r[0], chain_id=r[1], kind=r[2], lock_id=r[3], sender=r[4], nonce=r[5],
                 tx_hash=r[6], fields=json.loads(r[7]), raw=r[8], state=r[9], block=r[10],
                 replaces=r[11])
