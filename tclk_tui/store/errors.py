"""Journal errors. Messages name tables, ids and states, never stored values."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every journal failure."""


class SchemaTooNew(StoreError):
    """The file was migrated by a newer tclk-tui; this build refuses to touch it."""


class MigrationError(StoreError):
    """A migration list that is not a contiguous sequence, or a migration that failed."""


class JournalClosed(StoreError):
    """A call on a journal after `close()`."""


class SecretRefused(StoreError, ValueError):
    """A write that would put secret material into the journal."""


class OutboxStateError(StoreError):
    """An outbox transition the outbox state machine does not allow, or an unknown item."""


class NotFound(StoreError, LookupError):
    """An update of a row that does not exist."""
