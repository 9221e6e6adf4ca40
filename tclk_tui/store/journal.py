"""The SQLite journal of one profile: what the wallet must remember across a crash.

`Journal` is the composition root: it opens one `Database` (the connection, its durability
settings, the migrations, the transaction API) and gives each table's store that same
database, so a caller writes `journal.deals.add(...)`, `journal.outbox.enqueue(...)`,
`journal.settings.get(...)`. A store never touches another store; what two of them must do in
one transaction goes through `Database.transaction()`.

Secrets never enter the journal: see `guards` for what is refused and why.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from tclk_tui.store.agent_ledger import AgentLedger
from tclk_tui.store.database import Clock, Database, wall_clock_ms
from tclk_tui.store.deals import DealStore
from tclk_tui.store.identities import IdentityStore
from tclk_tui.store.migrations import MIGRATIONS, Migration
from tclk_tui.store.nonces import NonceCounters
from tclk_tui.store.outbox import OutboxStore
from tclk_tui.store.records import CursorStore, RecordStore
from tclk_tui.store.settings import SettingStore


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
        self.db = Database(path, clock=clock, busy_timeout_s=busy_timeout_s,
                           migrations=migrations)
        self.identities = IdentityStore(self.db)
        self.deals = DealStore(self.db)
        self.records = RecordStore(self.db)
        self.cursors = CursorStore(self.db)
        self.outbox = OutboxStore(self.db)
        self.settings = SettingStore(self.db)
        self.nonces = NonceCounters(self.db)
        self.agents = AgentLedger(self.db, self.settings)

    def __repr__(self) -> str:
        state = "closed" if self.db.closed else "open"
        return f"Journal(path={str(self.db.path)!r}, {state}, schema={self.db.schema_version})"

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> Path:
        """The database file (its `-wal` and `-shm` companions sit next to it)."""
        return self.db.path

    @property
    def schema_version(self) -> int:
        return self.db.schema_version

    @property
    def closed(self) -> bool:
        return self.db.closed

    def close(self) -> None:
        """Checkpoint and close; idempotent."""
        self.db.close()


__all__ = ["Journal"]
