"""The SQLite journal: deals, venue records, outbox, nonce counters, settings.

One `Journal` per profile file; its stores (`journal.deals`, `.records`, `.cursors`, `.outbox`,
`.settings`, `.identities`, `.nonces`, `.agents`) share its one `Database`, whose
`transaction()` is the only way any of them writes.

Imports nothing from the package but (at most) `tclk_tui.protocol`. Holds public facts only.
"""

from tclk_tui.store.database import Database, wall_clock_ms
from tclk_tui.store.errors import (
    JournalClosed,
    MigrationError,
    NotFound,
    OutboxStateError,
    SchemaTooNew,
    SecretRefused,
    StoreError,
)
from tclk_tui.store.guards import SECRET_PLACEHOLDER
from tclk_tui.store.journal import Journal
from tclk_tui.store.migrations import LATEST_VERSION, MIGRATIONS, Migration
from tclk_tui.store.nonces import MAX_VENUE_NONCE, NonceCounters
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

__all__ = [
    "LATEST_VERSION",
    "MAX_VENUE_NONCE",
    "MIGRATIONS",
    "OUTBOX_TRANSITIONS",
    "SECRET_PLACEHOLDER",
    "Database",
    "DealRow",
    "IdentityRow",
    "Journal",
    "JournalClosed",
    "Migration",
    "MigrationError",
    "NonceCounters",
    "NotFound",
    "OutboxRow",
    "OutboxState",
    "OutboxStateError",
    "RecordInsert",
    "RecordRow",
    "RoomCursor",
    "SchemaTooNew",
    "SecretRefused",
    "StoreError",
    "wall_clock_ms",
]
