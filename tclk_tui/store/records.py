"""What the venue holds, as this profile saw it: its records (table `records`) and where reading
each room resumes after a restart (table `room_cursors`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from tclk_tui.store.database import Database
from tclk_tui.store.errors import StoreError
from tclk_tui.store.fields import checked_blob, checked_int, checked_text
from tclk_tui.store.rows import RecordInsert, RecordRow, RoomCursor

_COLS = ("room, generation, seq, ts_ms, sender, nonce, sig, line, received_ms, frame_ok, "
         "vouch")


class RecordStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(
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
        return self.add_many([RecordRow(room, generation, seq, ts_ms, sender, nonce, sig,
                                        line, 0)])[0]

    def add_many(self, rows: Sequence[RecordRow]) -> list[RecordInsert]:
        """`add` for many records in one transaction (a whole ring read at start-up).

        `received_ms` of the given rows is ignored; the journal stamps its own clock.
        """
        checked = [_checked(r) for r in rows]
        now = self._db.now()
        with self._db.transaction() as conn:
            return [_insert(conn, row, now) for row in checked]

    def of_room(
        self,
        room: str,
        *,
        generation: int | None = None,
        after_seq: int | None = None,
        limit: int | None = None,
    ) -> list[RecordRow]:
        """Records of a room in (generation, seq) order, optionally one generation after a seq."""
        sql = f"SELECT {_COLS} FROM records WHERE room = ?"  # noqa: S608
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
            args.append(checked_int(limit, "limit"))
        return [RecordRow(room=r[0], generation=r[1], seq=r[2], ts_ms=r[3], sender=r[4],
                          nonce=r[5], sig=r[6], line=r[7], received_ms=r[8],
                          frame_ok=None if r[9] is None else bool(r[9]), vouch=r[10])
                for r in self._db.all(sql, tuple(args))]


class CursorStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, room: str) -> RoomCursor | None:
        row = self._db.one(
            "SELECT room, generation, seq, updated_ms FROM room_cursors WHERE room = ?", (room,)
        )
        return None if row is None else RoomCursor(*row)

    def set(self, room: str, generation: int, seq: int) -> RoomCursor:
        """Where reading a room should resume after a restart (set after records are journaled)."""
        room = checked_text(room, "room", max_len=400)
        generation, seq = checked_int(generation, "generation"), checked_int(seq, "seq")
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO room_cursors (room, generation, seq, updated_ms) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (room) DO UPDATE SET generation = excluded.generation, "
                "seq = excluded.seq, updated_ms = excluded.updated_ms",
                (room, generation, seq, self._db.now()),
            )
        cursor = self.get(room)
        assert cursor is not None
        return cursor


def _checked(r: RecordRow) -> RecordRow:
    """`r` itself once every field is checked (a whole ring passes here at a first open, so
    nothing is copied); `received_ms` is not read: the journal stamps its own."""
    checked_text(r.room, "room", max_len=400)
    checked_int(r.generation, "generation")
    checked_int(r.seq, "seq")
    checked_int(r.ts_ms, "ts_ms")
    checked_text(r.sender, "sender", max_len=512)
    if r.nonce is not None:
        checked_text(r.nonce, "nonce", max_len=64)
    if r.sig is not None:
        checked_text(r.sig, "sig", max_len=512)
    checked_text(r.line, "line", max_len=1_000_000, empty=True)
    if r.frame_ok is not None and type(r.frame_ok) is not bool:
        raise StoreError(f"frame_ok must be a bool, not {type(r.frame_ok).__name__}")
    if r.vouch is not None:
        checked_blob(r.vouch, "vouch", max_len=64)
    return r


def _insert(conn: sqlite3.Connection, r: RecordRow, now: int) -> RecordInsert:
    # Insert first (the usual case: a record not seen before, one statement); only a collision on
    # either unique key, which writes nothing, is looked at to tell a duplicate from a conflict.
    inserted = conn.execute(
        f"INSERT INTO records ({_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "  # noqa: S608
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


__all__ = ["CursorStore", "RecordStore"]
