"""The profile's small named facts (table `settings`): text values under dotted keys."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tclk_tui.store.database import Database
from tclk_tui.store.fields import checked_text


class SettingStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, key: str, default: str | None = None) -> str | None:
        row = self._db.one("SELECT value FROM settings WHERE key = ?", (key,))
        return default if row is None else str(row[0])

    def set(self, key: str, value: str) -> None:
        key = checked_text(key, "setting key", max_len=200)
        value = checked_text(value, "setting value", max_len=100_000, empty=True)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO settings (key, value, updated_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_ms = excluded.updated_ms",
                (key, value, self._db.now()),
            )

    def get_object(self, key: str) -> dict[str, Any]:
        """A setting that holds a JSON object; {} when absent or not one (an older or damaged
        value is forgotten rather than crashing whoever reads it)."""
        raw = self.get(key)
        try:
            data = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            data = {}
        return data if isinstance(data, dict) else {}

    def set_object(self, key: str, value: Mapping[str, Any]) -> None:
        """Keep a JSON object as a setting, keys sorted so equal objects store equal text."""
        self.set(key, json.dumps(dict(value), sort_keys=True))

    def delete(self, key: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM settings WHERE key = ?", (key,))

    def all(self) -> dict[str, str]:
        return {k: v for k, v in self._db.all("SELECT key, value FROM settings ORDER BY key")}


__all__ = ["SettingStore"]
