"""What a deal needs from the wallet around it, as small interfaces.

Keeping these narrow lets a deal be driven in tests with the real journal, vault and venue
without the whole wallet, and keeps the lifecycle logic in one file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from tclk_tui.engine.events import EventBus
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.rails.base import SettlementRail


class Publisher(Protocol):
    """Journal first, then post, then confirm by reading back (the outbox)."""

    async def publish(
        self, room: str, text: str, *, deal_id: str | None = None, secret: str | None = None
    ) -> TranscriptRecord: ...


class SecretSource(Protocol):
    """The vault as a deal sees it: secrets by deal, payment keys by label. Never logged."""

    def deal_secret(self, deal_id: str) -> str | None: ...

    def payment_secret_key(self, deal_id: str) -> str: ...

    def remember_revealed(self, deal_id: str, secret: str) -> None: ...

    def revealed_secret(self, deal_id: str) -> str | None: ...


class DealContext(Protocol):
    did: str
    events: EventBus
    publisher: Publisher
    secrets: SecretSource
    rails: dict[str, SettlementRail]
    now_ms: Callable[[], int]
