"""Journal first, then post, then confirm by reading back; replay idempotently after a crash.

A line is never posted twice: before re-posting anything after a restart the room is searched
for our own record with the same text, and the venue's nonce rule makes a blind double post
refuse itself. A reveal is journaled with a placeholder where its secret goes, so the secret
never reaches SQLite; the keeper supplies it at post time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tclk_tui.engine.crash import crashpoint
from tclk_tui.engine.errors import EngineError
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.store import SECRET_PLACEHOLDER
from tclk_tui.store.journal import Journal
from tclk_tui.store.rows import OutboxRow, OutboxState
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError
from tclk_tui.technocore.records import VenueRecord

SEARCH_LIMIT = 200


class Outbox:
    def __init__(
        self,
        journal: Journal,
        client: VenueClient,
        *,
        deal_row_id: Callable[[str], int | None],
        secret_for: Callable[[str], str | None],
        on_record: Callable[[VenueRecord], Awaitable[None]],
    ) -> None:
        self.journal = journal
        self.client = client
        self._deal_row_id = deal_row_id
        self._secret_for = secret_for
        self._on_record = on_record

    async def publish(
        self, room: str, text: str, *, deal_id: str | None = None, secret: str | None = None
    ) -> TranscriptRecord:
        journaled = text.replace(secret, SECRET_PLACEHOLDER) if secret else text
        item = self.journal.enqueue(
            room=room, text=journaled,
            deal_id=self._deal_row_id(deal_id) if deal_id else None,
            secret_ref=deal_id if secret else None)
        crashpoint("after-journal")
        return await self._deliver(item)

    def _real_text(self, item: OutboxRow) -> str:
        if SECRET_PLACEHOLDER not in item.text:
            return item.text
        secret = self._secret_for(item.secret_ref or "")
        if secret is None:
            raise EngineError("the vault no longer holds the secret this reveal needs")
        return item.text.replace(SECRET_PLACEHOLDER, secret)

    async def _deliver(self, item: OutboxRow) -> TranscriptRecord:
        text = self._real_text(item)
        self.journal.record_attempt(item.id)
        try:
            result = await self.client.post(item.room, text)
        except VenueError as exc:
            # A refusal may quote the line it refused (a 403 prints the signed string): never
            # let a reveal's secret ride it into the journal or onto the screen.
            reason = _without(str(exc), text, item.text)
            self.journal.record_attempt(item.id, error=reason)
            raise EngineError(f"the venue refused the line: {reason}") from None
        self.journal.mark_posted(item.id, nonce=str(result.nonce))
        crashpoint("after-post")
        record = result.record or await self._find_own(item.room, text)
        crashpoint("before-confirm")
        if record is None:
            raise EngineError(f"posted to {item.room} but could not read the line back yet")
        self.journal.mark_confirmed(item.id)
        await self._on_record(record)
        return record.transcript

    async def _find_own(self, room: str, text: str) -> VenueRecord | None:
        view = await self.client.read(room, limit=SEARCH_LIMIT)
        for record in reversed(view.records):
            if record.sender == self.client.did and record.text == text:
                return record
        return None

    async def recover(self) -> list[str]:
        """Finish what a crash interrupted; returns one line per item for the operator."""
        notes = []
        for item in self.journal.unfinished_outbox():
            text = self._real_text(item)
            landed = await self._find_own(item.room, text)
            if landed is not None:
                if item.state == OutboxState.PENDING:
                    self.journal.mark_posted(item.id, nonce=landed.nonce)
                self.journal.mark_confirmed(item.id)
                await self._on_record(landed)
                notes.append(f"outbox #{item.id}: had landed before the restart; confirmed")
                continue
            if item.state == OutboxState.FAILED:
                continue
            try:
                await self._deliver(item)
            except EngineError as exc:
                notes.append(f"outbox #{item.id}: still not delivered: {exc}")
            else:
                notes.append(f"outbox #{item.id}: delivered after the restart")
        return notes


def _without(message: str, real_text: str, journaled_text: str) -> str:
    """`message` with the secret of a placeholder-journaled line replaced by the placeholder."""
    if real_text == journaled_text:
        return message
    head, _, tail = journaled_text.partition(SECRET_PLACEHOLDER)
    secret = real_text[len(head):len(real_text) - len(tail)]
    return message.replace(secret, SECRET_PLACEHOLDER) if secret else message
