"""What a deal needs from the wallet around it, as small interfaces.

Keeping these narrow lets a deal be driven in tests with the real journal, vault and venue
without the whole wallet, and keeps the lifecycle logic in one file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from tclk_tui.engine.events import EventBus
from tclk_tui.engine.gates import StatedGates
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
    """Read-only members, so the wallet's concrete parts (Outbox, VaultKeeper) satisfy it."""

    @property
    def did(self) -> str: ...

    @property
    def events(self) -> EventBus: ...

    @property
    def publisher(self) -> Publisher: ...

    @property
    def secrets(self) -> SecretSource: ...

    @property
    def rails(self) -> Mapping[str, SettlementRail]: ...

    @property
    def now_ms(self) -> Callable[[], int]: ...

    @property
    def stated(self) -> StatedGates: ...
