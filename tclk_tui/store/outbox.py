"""Lines to publish, journaled before they are posted (table `outbox`), and their state machine
(`rows.OUTBOX_TRANSITIONS`): pending -> posted -> confirmed, or failed and requeued."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from tclk_tui.store.database import Database
from tclk_tui.store.errors import NotFound, OutboxStateError
from tclk_tui.store.fields import checked_int, checked_text
from tclk_tui.store.guards import check_outbox_text, clean_error
from tclk_tui.store.rows import OUTBOX_TRANSITIONS, OutboxRow, OutboxState

_COLS = ("id, room, text, nonce, state, attempts, last_error, deal_id, secret_ref, created_ms, "
         "updated_ms")


class OutboxStore:
    def __init__(self, db: Database) -> None:
        self._db = db

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
        room = checked_text(room, "room", max_len=400)
        text = checked_text(text, "outbox text", max_len=1_000_000)
        if secret_ref is not None:
            secret_ref = checked_text(secret_ref, "secret_ref", max_len=400)
        check_outbox_text(text, secret_ref)
        if nonce is not None:
            nonce = checked_text(nonce, "nonce", max_len=64)
        if deal_id is not None:
            deal_id = checked_int(deal_id, "deal id", minimum=1)
        now = self._db.now()
        with self._db.transaction() as conn:
            try:
                cur = conn.execute(
                    "INSERT INTO outbox (room, text, nonce, state, attempts, deal_id, secret_ref, "
                    "created_ms, updated_ms) VALUES (?, ?, ?, 'pending', 0, ?, ?, ?, ?)",
                    (room, text, nonce, deal_id, secret_ref, now, now),
                )
            except sqlite3.IntegrityError:
                raise NotFound(f"no deal {deal_id} for this outbox item") from None
            item_id = int(cur.lastrowid or 0)
        item = self.item(item_id)
        assert item is not None
        return item

    def item(self, item_id: int) -> OutboxRow | None:
        row = self._db.one(f"SELECT {_COLS} FROM outbox WHERE id = ?", (item_id,))  # noqa: S608
        return None if row is None else _outbox(row)

    def items(self, states: Iterable[OutboxState | str] | None = None) -> list[OutboxRow]:
        """Outbox items, all or in the given states, in the order they were queued."""
        if states is None:
            rows = self._db.all(f"SELECT {_COLS} FROM outbox ORDER BY id")  # noqa: S608
        else:
            wanted = [OutboxState(s).value for s in states]
            if not wanted:
                return []
            marks = ", ".join("?" for _ in wanted)
            rows = self._db.all(
                f"SELECT {_COLS} FROM outbox WHERE state IN ({marks}) ORDER BY id",  # noqa: S608
                tuple(wanted),
            )
        return [_outbox(r) for r in rows]

    def unfinished(self) -> list[OutboxRow]:
        """What to replay after a restart: pending and posted-but-unconfirmed items, in order."""
        return self.items((OutboxState.PENDING, OutboxState.POSTED))

    def record_attempt(self, item_id: int, error: str | None = None) -> OutboxRow:
        """Count a post attempt (and its error, if it failed) without changing the state."""
        return self._update(item_id, None, attempt=True, error=error)

    def mark_posted(self, item_id: int, nonce: str | None = None) -> OutboxRow:
        if nonce is not None:
            nonce = checked_text(nonce, "nonce", max_len=64)
        return self._update(item_id, OutboxState.POSTED, nonce=nonce)

    def mark_confirmed(self, item_id: int) -> OutboxRow:
        return self._update(item_id, OutboxState.CONFIRMED)

    def mark_failed(self, item_id: int, error: str) -> OutboxRow:
        return self._update(item_id, OutboxState.FAILED, error=error)

    def requeue(self, item_id: int) -> OutboxRow:
        """Put a failed item back to pending (an operator's retry)."""
        return self._update(item_id, OutboxState.PENDING)

    def _update(
        self,
        item_id: int,
        target: OutboxState | None,
        *,
        attempt: bool = False,
        error: str | None = None,
        nonce: str | None = None,
    ) -> OutboxRow:
        item_id = checked_int(item_id, "outbox id", minimum=1)
        error = clean_error(error)
        with self._db.transaction() as conn:
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
                (new_state.value, 1 if attempt else 0, error, nonce, self._db.now(), item_id),
            )
        item = self.item(item_id)
        assert item is not None
        return item


def _outbox(row: tuple[Any, ...]) -> OutboxRow:
    values = list(row)
    values[4] = OutboxState(values[4])
    return OutboxRow(*values)


__all__ = ["OutboxStore"]
