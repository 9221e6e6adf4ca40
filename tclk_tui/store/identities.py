"""The public DIDs of this profile (table `identities`)."""

from __future__ import annotations

from tclk_tui.store.database import Database
from tclk_tui.store.errors import StoreError
from tclk_tui.store.fields import checked_text
from tclk_tui.store.rows import IdentityRow


class IdentityStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, did: str, label: str | None = None) -> IdentityRow:
        """Remember a public DID of this profile; idempotent, a given label replaces the old."""
        did = checked_text(did, "did", max_len=512)
        if not did.startswith("did:"):
            raise StoreError("an identity is a DID (did:...)")
        if label is not None:
            label = checked_text(label, "label", max_len=200)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO identities (did, label, created_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (did) DO UPDATE SET label = COALESCE(excluded.label, label)",
                (did, label, self._db.now()),
            )
        row = self._db.one("SELECT did, label, created_ms FROM identities WHERE did = ?", (did,))
        assert row is not None
        return IdentityRow(*row)

    def all(self) -> list[IdentityRow]:
        rows = self._db.all(
            "SELECT did, label, created_ms FROM identities ORDER BY created_ms, did"
        )
        return [IdentityRow(*r) for r in rows]


__all__ = ["IdentityStore"]
