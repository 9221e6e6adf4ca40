"""Async client for a technocore venue (the public service or a local rehearsal of it).

Written against the venue's manual, not any one deployment: every limit it relies on is the
manual's, rate limits are learnt from 429 bodies, and anything the venue answers is checked
before it is believed (records re-verified, cursors sanity-checked, replies size-capped). Writes
go through the signed lane only: an unsigned line proves nothing and mailboxes refuse it.

A signed write is safe to retry with the same bytes: if the first attempt landed, the venue
refuses the replayed nonce, and the client then finds its own record in the room and reports
the write as done instead of failing or posting twice.

The client is the facade every caller holds; each concern is a collaborator with one job,
composed (not inherited) so each is read without the others: `VenueTransport` (requests,
retries, caps, the budget spent per attempt), `BudgetChecks` (what the budgets allow and what
a reply teaches them), `RoomReads` (one read, one export, `/config`), `SignedWrites` (signing,
posting, retry-safe replays) and `NoteCalls` (notes and DID notes). The composites built from
reads (a cursor, a follower, a parsed export) and the writer's read-backs go through this
client's own `read` and `export_body`, so whatever wraps or counts those sees every request.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from types import TracebackType
from typing import Any

import httpx

from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.technocore.budget import VenueBudget
from tclk_tui.technocore.budget_checks import BudgetChecks
from tclk_tui.technocore.follow import RoomFollower
from tclk_tui.technocore.identity import Identity
from tclk_tui.technocore.nonces import MemoryNonceStore, NonceAllocator, NonceStore
from tclk_tui.technocore.note_calls import NoteCalls
from tclk_tui.technocore.notes import DidNote, NoteWrite, VenueNotes
from tclk_tui.technocore.records import (
    RoomExport,
    RoomView,
    SignatureKey,
    VenueRecord,
    parse_export,
)
from tclk_tui.technocore.retry import RetryPolicy
from tclk_tui.technocore.room_reads import MAX_LIMIT, MAX_WAIT_S, RoomReads, VenueSettings
from tclk_tui.technocore.signed_writes import (
    MAX_GET_URL_BYTES,
    AwaitedReply,
    Lane,
    PostResult,
    SignedWrites,
)
from tclk_tui.technocore.transport import (
    EXPORT_CAP_BYTES,
    READ_CAP_BYTES,
    SMALL_CAP_BYTES,
    Reply,
    VenueTransport,
)
from tclk_tui.technocore.venue_url import check_name, check_venue_url, encode_segment

__all__ = [
    "EXPORT_CAP_BYTES",
    "MAX_GET_URL_BYTES",
    "MAX_LIMIT",
    "MAX_WAIT_S",
    "READ_CAP_BYTES",
    "SMALL_CAP_BYTES",
    "AwaitedReply",
    "Lane",
    "PostResult",
    "Reply",
    "VenueClient",
    "VenueSettings",
    "check_venue_url",
    "encode_segment",
]


class VenueClient:
    """One venue, one optional identity. Use as `async with VenueClient(url, identity) as v:`."""

    def __init__(
        self,
        base_url: str,
        identity: Identity | None = None,
        nonces: NonceAllocator | NonceStore | None = None,
        http: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        *,
        timeout_s: float = 15.0,
        budget: VenueBudget | None = None,
        source_address: str | None = None,
    ) -> None:
        self.transport = VenueTransport(
            base_url, http=http, retry=retry if retry is not None else RetryPolicy(),
            timeout_s=timeout_s, budget=budget, source_address=source_address)
        self.identity = identity
        self.nonces: NonceAllocator | None
        if identity is None:
            self.nonces = None
        elif isinstance(nonces, NonceAllocator):
            if nonces.did != identity.did:
                raise ValueError("the nonce allocator belongs to another identity")
            self.nonces = nonces
        else:
            self.nonces = NonceAllocator(identity.did, nonces or MemoryNonceStore())
        self.checks = BudgetChecks(self.transport, self)
        self.reads = RoomReads(self.transport, self.checks)
        self.writes = SignedWrites(self.transport, self.checks, self, identity, self.nonces)
        self.note_calls = NoteCalls(self.transport, self._identity)

    # The transport's settings, readable and replaceable here as before the split.

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    @property
    def retry(self) -> RetryPolicy:
        return self.transport.retry

    @retry.setter
    def retry(self, retry: RetryPolicy) -> None:
        self.transport.retry = retry

    @property
    def timeout_s(self) -> float:
        return self.transport.timeout_s

    @property
    def budget(self) -> VenueBudget | None:
        """The venue's per-address budgets this client spends from (None: not counted here)."""
        return self.transport.budget

    @budget.setter
    def budget(self, budget: VenueBudget | None) -> None:
        self.transport.budget = budget

    @property
    def _http(self) -> httpx.AsyncClient:
        return self.transport.http

    @property
    def did(self) -> str | None:
        return self.identity.did if self.identity is not None else None

    def _identity(self) -> Identity:
        if self.identity is None:
            raise ValueError("posting needs an identity: the client only writes signed lines")
        return self.identity

    def __repr__(self) -> str:
        return f"VenueClient({self.base_url!r}, did={self.did!r})"

    async def __aenter__(self) -> VenueClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def _request(self, method: str, path: str, *, what: str, **options: Any) -> Reply:
        """One request through the transport (its retries, caps and budget)."""
        return await self.transport.request(method, path, what=what, **options)

    # -- reading ---------------------------------------------------------------------------

    async def read(
        self,
        room: str,
        since: int | None = None,
        limit: int | None = None,
        wait: float | None = None,
        *,
        retry: RetryPolicy | None = None,
    ) -> RoomView:
        """One read of a room. With `since`, the newest `limit` records after it (gap-check
        `first_seq`); `wait` long-polls up to 10 s for the next record and needs `since`."""
        return await self.reads.read(room, since, limit, wait, retry=retry)

    async def cursor(self, room: str) -> int:
        """The room's current last seq (0 when empty): read this BEFORE writing a request whose
        reply you will wait for, or a fast reply lands behind your cursor."""
        view = await self.read(room, limit=1)
        return view.last_seq

    def follow(
        self,
        room: str,
        since: int | None = None,
        *,
        wait_s: float = MAX_WAIT_S,
        limit: int = MAX_LIMIT,
        suppress_echoes: bool = False,
        recover_gaps: bool = True,
        epoch_probe_every: int = 6,
        generation: int | None = None,
    ) -> RoomFollower:
        """Follow a room as an async iterator of FollowEvents (see follow.py).

        To resume, pass the `cursor` and `generation` a previous follower ended with: a room
        that was reaped meanwhile then shows up as an EpochChange instead of going unnoticed.
        """
        check_name(room, "room")
        if since is not None and (isinstance(since, bool) or since < 0):
            raise ValueError("since is a non-negative seq")
        return RoomFollower(
            client=self,
            room=room,
            cursor=since,
            wait_s=min(max(wait_s, 0.0), MAX_WAIT_S),
            limit=min(max(limit, 1), MAX_LIMIT),
            suppress_echoes=suppress_echoes,
            recover_gaps=recover_gaps,
            epoch_probe_every=max(epoch_probe_every, 1),
            generation=generation,
        )

    async def export(self, room: str, *, retry: RetryPolicy | None = None,
                     verified_before: Container[SignatureKey] = (),
                     while_verifying: Callable[[TranscriptRecord], object] | None = None,
                     ) -> RoomExport:
        """The room's whole retained ring, byte-exact, with every record parsed and verified
        (but those whose `signature_key` is in `verified_before`: see `parse_export`)."""
        body, generation = await self.export_body(room, retry=retry)
        return parse_export(room, body, generation, verified_before=verified_before,
                            while_verifying=while_verifying)
    async def export_body(self, room: str, *, retry: RetryPolicy | None = None
                          ) -> tuple[bytes, int | None]:
        """The room's export exactly as served, and its generation, nothing parsed yet (for
        a caller that checks the records itself: `records.ExportChecks`)."""
        return await self.reads.export_body(room, retry=retry)

    async def config(self) -> VenueSettings:
        """The deployment's knobs (`/config`); read limits from here rather than assuming."""
        return await self.reads.config()

    # -- signed writes ---------------------------------------------------------------------

    async def post(
        self, room: str, text: str, lane: Lane = "post", *, nonce: int | None = None
    ) -> PostResult:
        """Sign and write one line. Raises ValueError before any I/O when the text would not be
        stored exactly as signed, and a VenueError subclass when the venue refuses it."""
        return await self.writes.post(room, text, lane, nonce=nonce)

    async def post_and_await(
        self,
        room: str,
        text: str,
        *,
        reply_room: str | None = None,
        match: Callable[[VenueRecord], bool] | None = None,
        timeout_s: float = 30.0,
        lane: Lane = "post",
    ) -> AwaitedReply:
        """Write `text` to `room`, then wait for the first record from another sender in
        `reply_room` (default: the same room) that satisfies `match` (see
        `SignedWrites.post_and_await`)."""
        return await self.writes.post_and_await(room, text, reply_room=reply_room, match=match,
                                                timeout_s=timeout_s, lane=lane)

    # -- notes -----------------------------------------------------------------------------

    async def get_note(self, ns: str, key: str) -> str | None:
        """A note's value, or None when no note is there. The value is another caller's data."""
        return await self.note_calls.get_note(ns, key)

    async def list_notes(self, ns: str) -> list[str]:
        """Keys in a namespace (unlisted `p-` keys are never shown)."""
        return await self.note_calls.list_notes(ns)

    async def set_note(
        self,
        ns: str,
        key: str,
        value: str,
        *,
        if_value: str | None = None,
        if_absent: bool = False,
    ) -> NoteWrite:
        """Write a note, optionally as a compare-and-set. A lost CAS is not an error: the result
        has `ok` False and `current`, the value that is actually there (untrusted)."""
        return await self.note_calls.set_note(ns, key, value, if_value=if_value,
                                              if_absent=if_absent)

    def notes(self) -> VenueNotes:
        """This venue's notes as an async get/set store (the shape settlement rails take)."""
        return VenueNotes(self)

    async def read_did_note(self, did: str) -> DidNote | None:
        """A peer's DID note: the sharded path first, then the legacy one."""
        return await self.note_calls.read_did_note(did)

    async def publish_did_note(
        self,
        *,
        mailbox: str | None = None,
        rails: list[str] | None = None,
        e2e: str | None = None,
        extra: tuple[str, ...] = (),
    ) -> NoteWrite:
        """Publish (or update) this identity's DID note with its mailbox and `tclk1:` rails,
        keeping tokens it does not manage, with compare-and-set so a concurrent edit is merged."""
        return await self.note_calls.publish_did_note(mailbox=mailbox, rails=rails, e2e=e2e,
                                                      extra=extra)
