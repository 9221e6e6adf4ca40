"""Capability hints: the rails each board sender says (in its DID note) it can settle on.

A routing hint, never proof: the rail itself decides at lock time.
"""

from __future__ import annotations

from tclk_tui.engine.background import Background
from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.events import EventBus
from tclk_tui.technocore.budget import traffic
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError


class Capabilities:
    def __init__(self, client: VenueClient, board: OffersBoard, events: EventBus,
                 background: Background) -> None:
        self.client = client
        self.board = board
        self.events = events
        self.background = background
        self._read: set[str] = set()

    def look_up_new_senders(self) -> None:
        """Read the DID notes of senders not looked up yet, in the background, bounded."""
        fresh = [d for d in self.board.senders() if d not in self._read]
        if not fresh or self.background.closed:
            return
        self._read.update(fresh)
        self.background.spawn(self.refresh(dids=fresh))

    async def refresh(self, limit: int = 50, dids: list[str] | None = None) -> None:
        """Read DID notes of board senders (a routing hint, never proof): optional reads,
        which leave half the read budget to deal moves and following."""
        for did in (dids if dids is not None else list(self.board.senders()))[:limit]:
            try:
                with traffic("optional"):
                    note = await self.client.read_did_note(did)
            except (VenueError, ValueError):
                continue
            rails = tuple(note.rails) if note is not None and note.rails else None
            changed = self.board.set_capability(did, rails)
            if changed.updated:
                self.events.publish(changed)
