"""The last signed-lane nonce each key used in each room (table `nonce_counters`)."""

from __future__ import annotations

from tclk_tui.store.database import Database
from tclk_tui.store.errors import StoreError
from tclk_tui.store.fields import checked_text

# The venue's signed-lane nonces are 1-19 decimal digits, which can exceed SQLite's signed 64-bit
# INTEGER, so they are stored as decimal text and compared as Python ints.
MAX_VENUE_NONCE = 10**19 - 1


class NonceCounters:
    """technocore's NonceStore shape over the journal.

    `save` never moves a counter backwards: the venue rejects a nonce that is not greater than the
    last one, so a lower value could only come from a stale writer and would cause a rejection.
    """

    def __init__(self, db: Database) -> None:
        self._db = db

    def load(self, did: str, room: str) -> int | None:
        row = self._db.one(
            "SELECT nonce FROM nonce_counters WHERE did = ? AND room = ?",
            (checked_text(did, "did"), checked_text(room, "room")),
        )
        return None if row is None else int(row[0])

    def save(self, did: str, room: str, nonce: int) -> None:
        did, room = checked_text(did, "did"), checked_text(room, "room")
        if isinstance(nonce, bool) or not isinstance(nonce, int):
            raise StoreError(f"a nonce is an integer, not {type(nonce).__name__}")
        if not 0 <= nonce <= MAX_VENUE_NONCE:
            raise StoreError("a venue nonce is 1-19 decimal digits")
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT nonce FROM nonce_counters WHERE did = ? AND room = ?", (did, room)
            ).fetchone()
            if row is not None and int(row[0]) >= nonce:
                return
            conn.execute(
                "INSERT INTO nonce_counters (did, room, nonce, updated_ms) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (did, room) DO UPDATE SET nonce = excluded.nonce, "
                "updated_ms = excluded.updated_ms",
                (did, room, str(nonce), self._db.now()),
            )


__all__ = ["MAX_VENUE_NONCE", "NonceCounters"]
