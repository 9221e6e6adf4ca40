"""Journal first, then post, then confirm by reading back; replay idempotently after a crash.

A line is never posted twice: its transport nonce is journaled before the first attempt and
reused by every retry (the venue refuses a nonce that is not above the last one it stored), and
before re-posting anything after a restart the room's whole ring is searched for our own record
with the same text. A reveal is journaled with a placeholder where its secret goes, so the secret
never reaches SQLite; the keeper supplies it at post time.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from tclk_tui.engine.crash import crashpoint
from tclk_tui.engine.errors import EngineError, journaling
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.store import SECRET_PLACEHOLDER
from tclk_tui.store.journal import Journal
from tclk_tui.store.rows import OutboxRow, OutboxState
from tclk_tui.technocore.budget import BudgetKept, RoomBudgetSpent, current_traffic
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import NonceRejected, VenueError
from tclk_tui.technocore.identity import check_signable_text
from tclk_tui.technocore.records import VenueRecord

log = logging.getLogger(__name__)

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
        try:
            check_signable_text(text)  # refused before anything is journaled or signed
        except ValueError as exc:
            raise EngineError(f"the venue would not store this line as signed: {exc}") from None
        budget = self.client.budget
        if budget is not None and current_traffic() == "optional":
            kept = await budget.optional_write_turn()  # a heartbeat waits for its turn
            if kept is not None:
                raise EngineError(f"not sent now: {kept}")
        # The transport nonce is chosen and journaled before the post, so a retry after a crash
        # reuses it: if the first attempt landed, the venue refuses the copy by its nonce rule.
        journaled = text.replace(secret, SECRET_PLACEHOLDER) if secret else text
        with journaling(f"the line for {room}", happened=False):
            nonce = self.client.nonces.next(room) if self.client.nonces is not None else None
            item = self.journal.outbox.enqueue(
                room=room, text=journaled, nonce=None if nonce is None else str(nonce),
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

    async def _deliver(self, item: OutboxRow, *, fresh_nonce: bool = False) -> TranscriptRecord:
        text = self._real_text(item)
        with journaling(f"the line for {item.room}", happened=False):
            self.journal.outbox.record_attempt(item.id)
        nonce = None if fresh_nonce or item.nonce is None else int(item.nonce)
        try:
            result = await self.client.post(item.room, text, nonce=nonce)
        except NonceRejected:
            # Our journaled nonce is used up: either this very line landed (confirm it), or a
            # later line of ours took the nonce and this one never landed (a fresh nonce is safe).
            landed = await self._find_own(item.room, text)
            if landed is not None:
                return await self._confirm(item, landed)
            if fresh_nonce:
                raise EngineError("the venue keeps refusing this line's nonce") from None
            return await self._deliver(item, fresh_nonce=True)
        except VenueError as exc:
            # A refusal may quote the line it refused (a 403 prints the signed string): never
            # let a reveal's secret ride it into the journal or onto the screen.
            reason = _without(str(exc), text, item.text)
            self.journal.outbox.record_attempt(item.id, error=reason)
            if not exc.retryable and not isinstance(exc, NonceRejected):
                self.journal.outbox.mark_failed(item.id, reason)
            who = "this wallet's budget" if isinstance(exc, BudgetKept | RoomBudgetSpent) \
                else "the venue"
            log.warning("%s refused outbox #%d to %s: %s", who, item.id, item.room, reason)
            raise EngineError(f"{who} refused the line: {reason}") from None
        except ValueError as exc:  # the client refused before any I/O: it will never post
            self.journal.outbox.mark_failed(item.id, str(exc))
            raise EngineError(f"the line cannot be posted: {exc}") from None
        if item.state == OutboxState.PENDING:
            with journaling(f"the line posted to {item.room}", happened=True):
                self.journal.outbox.mark_posted(item.id, nonce=str(result.nonce))
        log.info("posted outbox #%d to %s (nonce %s)", item.id, item.room, result.nonce)
        crashpoint("after-post")
        record = result.record or await self._find_own(item.room, text)
        crashpoint("before-confirm")
        if record is None:
            raise EngineError(f"posted to {item.room} but could not read the line back yet")
        return await self._confirm(item, record)

    async def _confirm(self, item: OutboxRow, record: VenueRecord) -> TranscriptRecord:
        with journaling(f"the line posted to {item.room}", happened=True):
            current = self.journal.outbox.item(item.id)
            if current is not None and current.state == OutboxState.PENDING:
                self.journal.outbox.mark_posted(item.id, nonce=record.nonce)
            self.journal.outbox.mark_confirmed(item.id)
            await self._on_record(record)  # journals and folds our line: on the venue already
        return record.transcript

    async def _find_own(self, room: str, text: str) -> VenueRecord | None:
        """Our own record of `text` anywhere in the room's retained ring."""
        return _own_in((await self.client.export(room)).records, self.client.did, text)

    async def recover(self) -> list[str]:
        """Finish what a crash interrupted; returns one line per item for the operator.

        A line found in the room is confirmed. A pending line is posted again with the nonce it
        was journaled with, so a copy of a landed line is refused by the venue. A line the venue
        accepted (posted) but that is no longer in the ring is not posted again: it is marked
        failed with the reason, for the operator to decide.
        """
        notes = []
        for item in self.journal.outbox.unfinished():
            try:
                text = self._real_text(item)
                export = await self.client.export(item.room)
                landed = _own_in(export.records, self.client.did, text)
            except (EngineError, VenueError) as exc:
                notes.append(f"outbox #{item.id}: could not be checked: {exc}")
                continue
            if landed is not None:
                await self._confirm(item, landed)
                notes.append(f"outbox #{item.id}: had landed before the restart; confirmed")
                continue
            if item.state == OutboxState.POSTED:
                self.journal.outbox.mark_failed(item.id, "accepted by the venue but no longer "
                                                "in its ring; not posted again")
                notes.append(f"outbox #{item.id}: accepted earlier but no longer in the room's "
                             "ring; not posted again")
                continue
            if item.attempts > 0 and export.records and export.records[0].seq > 1:
                # Sent before the restart with its answer lost, and the ring has dropped
                # records since: it may have landed and been cut. A second post could say it
                # twice, so it waits for the operator.
                self.journal.outbox.mark_failed(item.id, "uncertain: sent before the restart; "
                                                "the room's ring has dropped older records and "
                                                "does not show it; not posted again")
                notes.append(f"outbox #{item.id}: UNCERTAIN: sent to {item.room} before the "
                             "restart, but the room no longer keeps its older records, so "
                             "whether it landed cannot be seen; not posted again: check the "
                             "deal and post again yourself if it is missing")
                continue
            try:
                await self._deliver(item)
            except (EngineError, VenueError) as exc:
                notes.append(f"outbox #{item.id}: still not delivered: {exc}")
                continue
            notes.append(f"outbox #{item.id}: delivered after the restart")
        return notes


def _own_in(records: tuple[VenueRecord, ...], did: str | None,
            text: str) -> VenueRecord | None:
    for record in reversed(records):
        if record.sender == did and record.text == text:
            return record
    return None


def _without(message: str, real_text: str, journaled_text: str) -> str:
    """`message` with the secret of a placeholder-journaled line replaced by the placeholder."""
    if real_text == journaled_text:
        return message
    head, _, tail = journaled_text.partition(SECRET_PLACEHOLDER)
    secret = real_text[len(head):len(real_text) - len(tail)]
    return message.replace(secret, SECRET_PLACEHOLDER) if secret else message
