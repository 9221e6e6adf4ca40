"""The SQLite journal of one profile: what the wallet must remember across a crash.

Durability: WAL mode with `synchronous=FULL`, so a call that returned has its transaction on disk
(a crash of the process or of the machine loses nothing that was acknowledged), and readers in
other processes never block the writer. Every write is one `BEGIN IMMEDIATE` transaction.

Threads: one `Journal` may be shared by all threads of a process; calls are serialised by an
internal lock around a single connection (opened with `check_same_thread=False`). Other
processes may open the same file; SQLite's file locking and the busy timeout arbitrate.

Secrets never enter the journal: see `guards` for what is refused and why.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tclk_tui.store.agent_ledger import AgentLedger
from tclk_tui.store.errors import JournalClosed, NotFound, OutboxStateError, StoreError
from tclk_tui.store.guards import (
    check_outbox_text,
    clean_error,
    refuse_secret_object,
    terms_to_json,
)
from tclk_tui.store.migrations import MIGRATIONS, Migration, migrate
from tclk_tui.store.rows import (
    OUTBOX_TRANSITIONS,
    DealRow,
    IdentityRow,
    OutboxRow,
    OutboxState,
    RecordInsert,
    RecordRow,
    RoomCursor,
)

Clock = Callable[[], int]

# The venue's signed-lane nonces are 1-19 decimal digits, which can exceed SQLite's signed 64-bit
# INTEGER, so they are stored as decimal text and compared as Python ints.
MAX_VENUE_NONCE = 10**19 - 1


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


def _text(value: object, what: str, *, max_len: int = 4096, empty: bool = False) -> str:
    if type(value) is not str:  # a plain str has no `reveal`: the check is for everything else
        refuse_secret_object(value, what)
        if not isinstance(value, str):
            raise StoreError(f"{what} must be a string, not {type(value).__name__}")
    if not empty and not value:
        raise StoreError(f"{what} must not be empty")
    if len(value) > max_len:
        raise StoreError(f"{what} is longer than {max_len} characters")
    return value


def _blob(value: object, what: str, *, max_len: int) -> bytes:
    if type(value) is not bytes:
        raise StoreError(f"{what} must be bytes, not {type(value).__name__}")
    if len(value) > max_len:
        raise StoreError(f"{what} is longer than {max_len} bytes")
    return value


def _int(value: object, what: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StoreError(f"{what} must be an integer, not {type(value).__name__}")
    if value < minimum or value > 2**63 - 1:
        raise StoreError(f"{what} is out of range")
    return value


class NonceCounters:
    """The last signed-lane nonce each key used in each room; technocore's NonceStore shape.

    `save` never moves a counter backwards: the venue rejects a nonce that is not greater than the
    last one, so a lower value could only come from a stale writer and would cause a rejection.
    """

    def __init__(self, journal: Journal) -> None:
        self._journal = journal

    def load(self, did: str, room: str) -> int | None:
        row = self._journal._one(
            "SELECT nonce FROM nonce_counters WHERE did = ? AND room = ?",
            (_text(did, "did"), _text(room, "room")),
        )
        return None if row is None else int(row[0])

    def save(self, did: str, room: str, nonce: int) -> None:
        did, room = _text(did, "did"), _text(room, "room")
        if isinstance(nonce, bool) or not isinstance(nonce, int):
            raise StoreError(f"a nonce is an integer, not {type(nonce).__name__}")
        if not 0 <= nonce <= MAX_VENUE_NONCE:
            raise StoreError("a venue nonce is 1-19 decimal digits")
        with self._journal._tx() as conn:
            row = conn.execute(
                "SELECT nonce FROM nonce_counters WHERE did = ? AND room = ?", (did, room)
            ).fetchone()
            if row is not None and int(row[0]) >= nonce:
                return
            conn.execute(
                "INSERT INTO nonce_counters (did, room, nonce, updated_ms) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (did, room) DO UPDATE SET nonce = excluded.nonce, "
                "updated_ms = excluded.updated_ms",
                (did, room, str(nonce), self._journal._now()),
            )


class Journal:
    """One profile's journal file. Open with the path the engine chose; `close()` when done."""

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
        self._create_private(self._path)
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
        self.nonces = NonceCounters(self)
        self.agents = AgentLedger(self)

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "open"
        return f"Journal(path={str(self._path)!r}, {state}, schema={self._version})"

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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

    # --- identities ----------------------------------------------------------------------------

    def add_identity(self, did: str, label: str | None = None) -> IdentityRow:
        """Remember a public DID of this profile; idempotent, a given label replaces the old."""
        did = _text(did, "did", max_len=512)
        if not did.startswith("did:"):
            raise StoreError("an identity is a DID (did:...)")
        if label is not None:
            label = _text(label, "label", max_len=200)
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO identities (did, label, created_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (did) DO UPDATE SET label = COALESCE(excluded.label, label)",
                (did, label, self._now()),
            )
        row = self._one("SELECT did, label, created_ms FROM identities WHERE did = ?", (did,))
        assert row is not None
        return IdentityRow(*row)

    def identities(self) -> list[IdentityRow]:
        rows = self._all("SELECT did, label, created_ms FROM identities ORDER BY created_ms, did")
        return [IdentityRow(*r) for r in rows]

    # --- deals ---------------------------------------------------------------------------------

    _DEAL_COLS = "id, offer_id, contract_id, role, status, room, terms_json, created_ms, updated_ms"

    def add_deal(
        self,
        *,
        offer_id: str,
        role: str,
        status: str,
        terms: Mapping[str, Any],
        contract_id: str | None = None,
        room: str | None = None,
    ) -> DealRow:
        offer_id = _text(offer_id, "offer_id", max_len=200)
        role = _text(role, "role", max_len=40)
        status = _text(status, "status", max_len=40)
        terms_json = terms_to_json(terms)
        if contract_id is not None:
            contract_id = _text(contract_id, "contract_id", max_len=200)
        if room is not None:
            room = _text(room, "room", max_len=400)
        now = self._now()
        with self._tx() as conn:
            try:
                cur = conn.execute(
                    "INSERT INTO deals (offer_id, contract_id, role, status, room, terms_json, "
                    "created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (offer_id, contract_id, role, status, room, terms_json, now, now),
                )
            except sqlite3.IntegrityError:
                raise StoreError("a deal with this contract id is already journaled") from None
            deal_id = cur.lastrowid
        deal = self.get_deal(int(deal_id or 0))
        assert deal is not None
        return deal

    def update_deal(
        self,
        deal_id: int,
        *,
        status: str | None = None,
        contract_id: str | None = None,
        room: str | None = None,
        terms: Mapping[str, Any] | None = None,
    ) -> DealRow:
        """Change the given fields of a deal (None leaves a field as it is)."""
        deal_id = _int(deal_id, "deal id", minimum=1)
        sets: list[str] = []
        args: list[Any] = []
        if status is not None:
            sets.append("status = ?")
            args.append(_text(status, "status", max_len=40))
        if contract_id is not None:
            sets.append("contract_id = ?")
            args.append(_text(contract_id, "contract_id", max_len=200))
        if room is not None:
            sets.append("room = ?")
            args.append(_text(room, "room", max_len=400))
        if terms is not None:
            sets.append("terms_json = ?")
            args.append(terms_to_json(terms))
        sets.append("updated_ms = ?")
        args.append(self._now())
        with self._tx() as conn:
            try:
                cur = conn.execute(
                    f"UPDATE deals SET {', '.join(sets)} WHERE id = ?",  # noqa: S608 - fixed columns
                    (*args, deal_id),
                )
            except sqlite3.IntegrityError:
                raise StoreError("another deal already has this contract id") from None
            if cur.rowcount == 0:
                raise NotFound(f"no deal {deal_id}")
        deal = self.get_deal(deal_id)
        assert deal is not None
        return deal

    def get_deal(self, deal_id: int) -> DealRow | None:
        row = self._one(f"SELECT {self._DEAL_COLS} FROM deals WHERE id = ?", (deal_id,))  # noqa: S608
        return None if row is None else _deal(row)

    def deal_by_contract(self, contract_id: str) -> DealRow | None:
        row = self._one(
            f"SELECT {self._DEAL_COLS} FROM deals WHERE contract_id = ?",  # noqa: S608
            (contract_id,),
        )
        return None if row is None else _deal(row)

    def deals_for_offer(self, offer_id: str) -> list[DealRow]:
        rows = self._all(
            f"SELECT {self._DEAL_COLS} FROM deals WHERE offer_id = ? ORDER BY id",  # noqa: S608
            (offer_id,),
        )
        return [_deal(r) for r in rows]

    def list_deals(self, statuses: Iterable[str] | None = None) -> list[DealRow]:
        """All deals, or those in the given statuses, oldest first."""
        if statuses is None:
            rows = self._all(f"SELECT {self._DEAL_COLS} FROM deals ORDER BY id")  # noqa: S608
        else:
            wanted = list(statuses)
            if not wanted:
                return []
            marks = ", ".join("?" for _ in wanted)
            rows = self._all(
                f"SELECT {self._DEAL_COLS} FROM deals WHERE status IN ({marks}) ORDER BY id",  # noqa: S608
                tuple(wanted),
            )
        return [_deal(r) for r in rows]

    # --- venue records -------------------------------------------------------------------------

    _RECORD_COLS = ("room, generation, seq, ts_ms, sender, nonce, sig, line, received_ms, "
                    "frame_ok, vouch")

    def add_record(
        self,
        *,
        room: str,
        generation: int,
        seq: int,
        ts_ms: int,
        sender: str,
        line: str,
        nonce: str | None = None,
        sig: str | None = None,
    ) -> RecordInsert:
        """Journal a record seen on the venue, exactly as stored there.

        A record already journaled is a DUPLICATE; one that collides on (room, generation, seq)
        or (room, sender, nonce) with different content is a CONFLICT and is not written: the
        first version seen stays, and the caller decides what the discrepancy means.
        """
        return self.add_records([RecordRow(room, generation, seq, ts_ms, sender, nonce, sig,
                                           line, 0)])[0]

    def add_records(self, rows: Sequence[RecordRow]) -> list[RecordInsert]:
        """`add_record` for many records in one transaction (a whole ring read at start-up).

        `received_ms` of the given rows is ignored; the journal stamps its own clock.
        """
        checked = [self._checked_record(r) for r in rows]
        now = self._now()
        outcomes: list[RecordInsert] = []
        with self._tx() as conn:
            for row in checked:
                outcomes.append(self._insert_record(conn, row, now))
        return outcomes

    @staticmethod
    def _checked_record(r: RecordRow) -> RecordRow:
        """`r` itself once every field is checked (a whole ring passes here at a first open,
        so nothing is copied); `received_ms` is not read: the journal stamps its own."""
        _text(r.room, "room", max_len=400)
        _int(r.generation, "generation")
        _int(r.seq, "seq")
        _int(r.ts_ms, "ts_ms")
        _text(r.sender, "sender", max_len=512)
        if r.nonce is not None:
            _text(r.nonce, "nonce", max_len=64)
        if r.sig is not None:
            _text(r.sig, "sig", max_len=512)
        _text(r.line, "line", max_len=1_000_000, empty=True)
        if r.frame_ok is not None and type(r.frame_ok) is not bool:
            raise StoreError(f"frame_ok must be a bool, not {type(r.frame_ok).__name__}")
        if r.vouch is not None:
            _blob(r.vouch, "vouch", max_len=64)
        return r

    def _insert_record(self, conn: sqlite3.Connection, r: RecordRow, now: int) -> RecordInsert:
        # Insert first (the usual case: a record not seen before, one statement); only a
        # collision on either unique key, which writes nothing, is looked at to tell a
        # duplicate from a conflict.
        inserted = conn.execute(
            f"INSERT INTO records ({self._RECORD_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "  # noqa: S608
            "ON CONFLICT DO NOTHING",
            (r.room, r.generation, r.seq, r.ts_ms, r.sender, r.nonce, r.sig, r.line, now,
             r.frame_ok, r.vouch),
        )
        if inserted.rowcount == 1:
            return RecordInsert.INSERTED
        found = conn.execute(
            "SELECT id, generation, seq, ts_ms, sender, nonce, line FROM records "
            "WHERE room = ? AND generation = ? AND seq = ?",
            (r.room, r.generation, r.seq),
        ).fetchall()
        if r.nonce is not None:
            found += conn.execute(
                "SELECT id, generation, seq, ts_ms, sender, nonce, line FROM records "
                "WHERE room = ? AND sender = ? AND nonce = ?",
                (r.room, r.sender, r.nonce),
            ).fetchall()
        incoming = (r.generation, r.seq, r.ts_ms, r.sender, r.nonce, r.line)
        same = len({f[0] for f in found}) == 1 and tuple(found[0][1:]) == incoming
        return RecordInsert.DUPLICATE if same else RecordInsert.CONFLICT

    def records(
        self,
        room: str,
        *,
        generation: int | None = None,
        after_seq: int | None = None,
        limit: int | None = None,
    ) -> list[RecordRow]:
        """Records of a room in (generation, seq) order, optionally one generation after a seq."""
        sql = f"SELECT {self._RECORD_COLS} FROM records WHERE room = ?"  # noqa: S608
        args: list[Any] = [room]
        if generation is not None:
            sql += " AND generation = ?"
            args.append(generation)
        if after_seq is not None:
            sql += " AND seq > ?"
            args.append(after_seq)
        sql += " ORDER BY generation, seq"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(_int(limit, "limit"))
        return [RecordRow(room=r[0], generation=r[1], seq=r[2], ts_ms=r[3], sender=r[4],
                          nonce=r[5], sig=r[6], line=r[7], received_ms=r[8],
                          frame_ok=None if r[9] is None else bool(r[9]), vouch=r[10])
                for r in self._all(sql, tuple(args))]

    def cursor(self, room: str) -> RoomCursor | None:
        row = self._one(
            "SELECT room, generation, seq, updated_ms FROM room_cursors WHERE room = ?", (room,)
        )
        return None if row is None else RoomCursor(*row)

    def set_cursor(self, room: str, generation: int, seq: int) -> RoomCursor:
        """Where reading a room should resume after a restart (set after records are journaled)."""
        room = _text(room, "room", max_len=400)
        generation, seq = _int(generation, "generation"), _int(seq, "seq")
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO room_cursors (room, generation, seq, updated_ms) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (room) DO UPDATE SET generation = excluded.generation, "
                "seq = excluded.seq, updated_ms = excluded.updated_ms",
                (room, generation, seq, self._now()),
            )
        cursor = self.cursor(room)
        assert cursor is not None
        return cursor

    # --- outbox --------------------------------------------------------------------------------

    _OUTBOX_COLS = (
        "id, room, text, nonce, state, attempts, last_error, deal_id, secret_ref, created_ms, "
        "updated_ms"
    )

    def enqueue(
        self,
        *,
        room: str,
        text: str,
        nonce: str | None = None,
        deal_id: int | None = None,
        secret_ref: str | None = None,
    ) -> OutboxRow:
        """Journal a line to publish, before it is posted (state pending).

        A `reveal` frame must carry SECRET_PLACEHOLDER where its secret goes and name the vault
        entry in `secret_ref`; the engine substitutes the secret when it posts.
        """
        room = _text(room, "room", max_len=400)
        text = _text(text, "outbox text", max_len=1_000_000)
        if secret_ref is not None:
            secret_ref = _text(secret_ref, "secret_ref", max_len=400)
        check_outbox_text(text, secret_ref)
        if nonce is not None:
            nonce = _text(nonce, "nonce", max_len=64)
        if deal_id is not None:
            deal_id = _int(deal_id, "deal id", minimum=1)
        now = self._now()
        with self._tx() as conn:
            try:
                cur = conn.execute(
                    "INSERT INTO outbox (room, text, nonce, state, attempts, deal_id, secret_ref, "
                    "created_ms, updated_ms) VALUES (?, ?, ?, 'pending', 0, ?, ?, ?, ?)",
                    (room, text, nonce, deal_id, secret_ref, now, now),
                )
            except sqlite3.IntegrityError:
                raise NotFound(f"no deal {deal_id} for this outbox item") from None
            item_id = int(cur.lastrowid or 0)
        item = self.outbox_item(item_id)
        assert item is not None
        return item

    def outbox_item(self, item_id: int) -> OutboxRow | None:
        row = self._one(
            f"SELECT {self._OUTBOX_COLS} FROM outbox WHERE id = ?",  # noqa: S608
            (item_id,),
        )
        return None if row is None else _outbox(row)

    def outbox(self, states: Iterable[OutboxState | str] | None = None) -> list[OutboxRow]:
        """Outbox items, all or in the given states, in the order they were queued."""
        if states is None:
            rows = self._all(f"SELECT {self._OUTBOX_COLS} FROM outbox ORDER BY id")  # noqa: S608
        else:
            wanted = [OutboxState(s).value for s in states]
            if not wanted:
                return []
            marks = ", ".join("?" for _ in wanted)
            rows = self._all(
                f"SELECT {self._OUTBOX_COLS} FROM outbox WHERE state IN ({marks}) ORDER BY id",  # noqa: S608
                tuple(wanted),
            )
        return [_outbox(r) for r in rows]

    def unfinished_outbox(self) -> list[OutboxRow]:
        """What to replay after a restart: pending and posted-but-unconfirmed items, in order."""
        return self.outbox((OutboxState.PENDING, OutboxState.POSTED))

    def record_attempt(self, item_id: int, error: str | None = None) -> OutboxRow:
        """Count a post attempt (and its error, if it failed) without changing the state."""
        return self._outbox_update(item_id, None, attempt=True, error=error)

    def mark_posted(self, item_id: int, nonce: str | None = None) -> OutboxRow:
        if nonce is not None:
            nonce = _text(nonce, "nonce", max_len=64)
        return self._outbox_update(item_id, OutboxState.POSTED, nonce=nonce)

    def mark_confirmed(self, item_id: int) -> OutboxRow:
        return self._outbox_update(item_id, OutboxState.CONFIRMED)

    def mark_failed(self, item_id: int, error: str) -> OutboxRow:
        return self._outbox_update(item_id, OutboxState.FAILED, error=error)

    def requeue(self, item_id: int) -> OutboxRow:
        """Put a failed item back to pending (an operator's retry)."""
        return self._outbox_update(item_id, OutboxState.PENDING)

    def _outbox_update(
        self,
        item_id: int,
        target: OutboxState | None,
        *,
        attempt: bool = False,
        error: str | None = None,
        nonce: str | None = None,
    ) -> OutboxRow:
        item_id = _int(item_id, "outbox id", minimum=1)
        error = clean_error(error)
        with self._tx() as conn:
            row = conn.execute("SELECT state FROM outbox WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise OutboxStateError(f"no outbox item {item_id}")
            state = OutboxState(row[0])
            new_state: OutboxState
            if target is None:
                if state not in (OutboxState.PENDING, OutboxState.POSTED):
                    raise OutboxStateError(
                        f"outbox item {item_id} is {state.value}; attempts are counted only "
                        "while it is pending or posted"
                    )
                new_state = state
            elif target not in OUTBOX_TRANSITIONS[state]:
                raise OutboxStateError(
                    f"outbox item {item_id} cannot go from {state.value} to {target.value}"
                )
            else:
                new_state = target
            conn.execute(
                "UPDATE outbox SET state = ?, attempts = attempts + ?, "
                "last_error = COALESCE(?, last_error), nonce = COALESCE(?, nonce), "
                "updated_ms = ? WHERE id = ?",
                (new_state.value, 1 if attempt else 0, error, nonce, self._now(), item_id),
            )
        item = self.outbox_item(item_id)
        assert item is not None
        return item

    # --- settings ------------------------------------------------------------------------------

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self._one("SELECT value FROM settings WHERE key = ?", (key,))
        return default if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        key = _text(key, "setting key", max_len=200)
        value = _text(value, "setting value", max_len=100_000, empty=True)
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO settings (key, value, updated_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_ms = excluded.updated_ms",
                (key, value, self._now()),
            )

    def object_setting(self, key: str) -> dict[str, Any]:
        """A setting that holds a JSON object; {} when absent or not one (an older or damaged
        value is forgotten rather than crashing whoever reads it)."""
        raw = self.get_setting(key)
        try:
            data = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            data = {}
        return data if isinstance(data, dict) else {}

    def set_object_setting(self, key: str, value: Mapping[str, Any]) -> None:
        """Keep a JSON object as a setting, keys sorted so equal objects store equal text."""
        self.set_setting(key, json.dumps(dict(value), sort_keys=True))

    def delete_setting(self, key: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM settings WHERE key = ?", (key,))

    def settings(self) -> dict[str, str]:
        return {k: v for k, v in self._all("SELECT key, value FROM settings ORDER BY key")}

    # --- plumbing ------------------------------------------------------------------------------

    def _now(self) -> int:
        return int(self._clock())

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalClosed(f"journal {self._path} is closed")
        return self._conn

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
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

    def _one(self, sql: str, args: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        with self._lock:
            row = self._live().execute(sql, args).fetchone()
        return None if row is None else tuple(row)

    def _all(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return [tuple(r) for r in self._live().execute(sql, args).fetchall()]

    @staticmethod
    def _create_private(path: Path) -> None:
        """Create the directory (0700) and an empty database file (0600) if they are missing."""
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _deal(row: tuple[Any, ...]) -> DealRow:
    (deal_id, offer_id, contract_id, role, status, room, terms_json, created, updated) = row
    return DealRow(
        deal_id, offer_id, contract_id, role, status, room, json.loads(terms_json), created, updated
    )


def _outbox(row: tuple[Any, ...]) -> OutboxRow:
    values = list(row)
    values[4] = OutboxState(values[4])
    return OutboxRow(*values)


__all__ = ["MAX_VENUE_NONCE", "Clock", "Journal", "NonceCounters", "wall_clock_ms"]
