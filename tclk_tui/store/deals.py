"""The deals this profile is party to (table `deals`): role, status and the public terms."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from tclk_tui.store.database import Database
from tclk_tui.store.errors import NotFound, StoreError
from tclk_tui.store.fields import checked_int, checked_text
from tclk_tui.store.guards import terms_to_json
from tclk_tui.store.rows import DealRow

_COLS = "id, offer_id, contract_id, role, status, room, terms_json, created_ms, updated_ms"


class DealStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(
        self,
        *,
        offer_id: str,
        role: str,
        status: str,
        terms: Mapping[str, Any],
        contract_id: str | None = None,
        room: str | None = None,
    ) -> DealRow:
        offer_id = checked_text(offer_id, "offer_id", max_len=200)
        role = checked_text(role, "role", max_len=40)
        status = checked_text(status, "status", max_len=40)
        terms_json = terms_to_json(terms)
        if contract_id is not None:
            contract_id = checked_text(contract_id, "contract_id", max_len=200)
        if room is not None:
            room = checked_text(room, "room", max_len=400)
        now = self._db.now()
        with self._db.transaction() as conn:
            try:
                cur = conn.execute(
                    "INSERT INTO deals (offer_id, contract_id, role, status, room, terms_json, "
                    "created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (offer_id, contract_id, role, status, room, terms_json, now, now),
                )
            except sqlite3.IntegrityError:
                raise StoreError("a deal with this contract id is already journaled") from None
            deal_id = cur.lastrowid
        deal = self.get(int(deal_id or 0))
        assert deal is not None
        return deal

    def update(
        self,
        deal_id: int,
        *,
        status: str | None = None,
        contract_id: str | None = None,
        room: str | None = None,
        terms: Mapping[str, Any] | None = None,
    ) -> DealRow:
        """Change the given fields of a deal (None leaves a field as it is)."""
        deal_id = checked_int(deal_id, "deal id", minimum=1)
        sets: list[str] = []
        args: list[Any] = []
        if status is not None:
            sets.append("status = ?")
            args.append(checked_text(status, "status", max_len=40))
        if contract_id is not None:
            sets.append("contract_id = ?")
            args.append(checked_text(contract_id, "contract_id", max_len=200))
        if room is not None:
            sets.append("room = ?")
            args.append(checked_text(room, "room", max_len=400))
        if terms is not None:
            sets.append("terms_json = ?")
            args.append(terms_to_json(terms))
        sets.append("updated_ms = ?")
        args.append(self._db.now())
        with self._db.transaction() as conn:
            try:
                cur = conn.execute(
                    f"UPDATE deals SET {', '.join(sets)} WHERE id = ?",  # noqa: S608 - fixed columns
                    (*args, deal_id),
                )
            except sqlite3.IntegrityError:
                raise StoreError("another deal already has this contract id") from None
            if cur.rowcount == 0:
                raise NotFound(f"no deal {deal_id}")
        deal = self.get(deal_id)
        assert deal is not None
        return deal

    def get(self, deal_id: int) -> DealRow | None:
        row = self._db.one(f"SELECT {_COLS} FROM deals WHERE id = ?", (deal_id,))  # noqa: S608
        return None if row is None else _deal(row)

    def by_contract(self, contract_id: str) -> DealRow | None:
        row = self._db.one(
            f"SELECT {_COLS} FROM deals WHERE contract_id = ?",  # noqa: S608
            (contract_id,),
        )
        return None if row is None else _deal(row)

    def for_offer(self, offer_id: str) -> list[DealRow]:
        rows = self._db.all(
            f"SELECT {_COLS} FROM deals WHERE offer_id = ? ORDER BY id",  # noqa: S608
            (offer_id,),
        )
        return [_deal(r) for r in rows]

    def all(self, statuses: Iterable[str] | None = None) -> list[DealRow]:
        """All deals, or those in the given statuses, oldest first."""
        if statuses is None:
            rows = self._db.all(f"SELECT {_COLS} FROM deals ORDER BY id")  # noqa: S608
        else:
            wanted = list(statuses)
            if not wanted:
                return []
            marks = ", ".join("?" for _ in wanted)
            rows = self._db.all(
                f"SELECT {_COLS} FROM deals WHERE status IN ({marks}) ORDER BY id",  # noqa: S608
                tuple(wanted),
            )
        return [_deal(r) for r in rows]


def _deal(row: tuple[Any, ...]) -> DealRow:
    (deal_id, offer_id, contract_id, role, status, room, terms_json, created, updated) = row
    return DealRow(
        deal_id, offer_id, contract_id, role, status, room, json.loads(terms_json), created, updated
    )


__all__ = ["DealStore"]
