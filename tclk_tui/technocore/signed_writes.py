"""The client's signed writes: a line signed and posted (POST lane or GET lane), made safe to
retry, and a write followed by the wait for its reply.

A signed write is safe to retry with the same bytes: if the first attempt landed, the venue
refuses the replayed nonce, and the writer then finds its own record in the room and reports
the write as done instead of failing or posting twice. Nothing is signed before the budget
checks say the write may go (a write that would create a room the new-room budget cannot pay
for is refused unsent).

Its own object because it alone holds the identity's signing and nonce allocation; it reads
the room back through the client's own `read` (so a read counted there is counted here too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from tclk_tui.technocore.budget_checks import BudgetChecks, RoomReader
from tclk_tui.technocore.errors import MalformedResponse, NonceRejected, ReplyLost, VenueError
from tclk_tui.technocore.follow import RecordsEvent, RingGap
from tclk_tui.technocore.identity import Identity, canonical_nonce, check_signable_text
from tclk_tui.technocore.nonces import NonceAllocator
from tclk_tui.technocore.records import VenueRecord, parse_posted
from tclk_tui.technocore.room_reads import MAX_LIMIT
from tclk_tui.technocore.transport import READ_CAP_BYTES, Reply, VenueTransport
from tclk_tui.technocore.venue_url import check_name, encode_segment

if TYPE_CHECKING:
    from tclk_tui.technocore.follow import RoomFollower

__all__ = ["MAX_GET_URL_BYTES", "AwaitedReply", "Lane", "PostResult", "SignedWrites"]

Lane = Literal["post", "get"]
MAX_GET_URL_BYTES = 16_000


@dataclass(frozen=True, slots=True)
class PostResult:
    """A signed write the venue accepted.

    `record` is the stored record as the venue reports it (checked against what was signed), or
    the record found in the room when a retried write had already landed (`replayed` True).
    """

    room: str
    text: str
    nonce: int
    did: str
    sig: str
    lane: Lane
    record: VenueRecord | None
    replayed: bool = False

    @property
    def seq(self) -> int | None:
        return self.record.seq if self.record is not None else None


@dataclass(frozen=True, slots=True)
class AwaitedReply:
    """A write and the first matching record from someone else in the reply room (None on
    timeout)."""

    post: PostResult
    reply: VenueRecord | None



class Rooms(RoomReader, Protocol):
    """What the writer reads through the client: its read, its cursor, its follower."""

    async def cursor(self, room: str) -> int: ...

    def follow(self, room: str, since: int | None = None, *,
               suppress_echoes: bool = False) -> RoomFollower: ...


class SignedWrites:
    """One identity's signed lines to one venue."""

    def __init__(self, transport: VenueTransport, checks: BudgetChecks, rooms: Rooms,
                 identity: Identity | None, nonces: NonceAllocator | None) -> None:
        self._transport = transport
        self._checks = checks
        self._rooms = rooms
        self._identity = identity
        self._nonces = nonces

    @property
    def _did(self) -> str | None:
        return self._identity.did if self._identity is not None else None

    def _signer(self) -> tuple[Identity, NonceAllocator]:
        if self._identity is None or self._nonces is None:
            raise ValueError("posting needs an identity: the client only writes signed lines")
        return self._identity, self._nonces

    async def post(
        self, room: str, text: str, lane: Lane = "post", *, nonce: int | None = None
    ) -> PostResult:
        """Sign and write one line. Raises ValueError before any I/O when the text would not be
        stored exactly as signed, and a VenueError subclass when the venue refuses it."""
        check_name(room, "room")
        check_signable_text(text)
        if lane not in ("post", "get"):
            raise ValueError("lane is 'post' or 'get'")
        identity, allocator = self._signer()
        if lane == "get":
            self._check_url_budget(room, identity.did, text)
        await self._checks.before_write(room)
        value = allocator.next(room) if nonce is None else int(canonical_nonce(nonce))
        for _round in range(3):
            sig = identity.sign(room, value, text)
            try:
                reply = await self._send_signed(room, text, value, sig, lane)
            except NonceRejected as error:
                if error.last is None:
                    raise
                landed = await self._find_own(room, value, text)
                if landed is not None:
                    return PostResult(room, text, value, identity.did, landed.sig or sig, lane,
                                      landed, replayed=True)
                if nonce is not None:
                    raise
                allocator.observe(room, error.last)
                value = allocator.next(room)
                continue
            content_type = reply.headers.get("content-type", "")
            # A venue that answers a write in text still stored it; the follower will see the
            # record. A JSON answer must back the write it reports.
            posted = (
                parse_posted(room, reply.body) if content_type.startswith("application/json")
                else None
            )
            if posted is not None and (
                posted.sender != identity.did
                or posted.nonce != str(value)
                or posted.text != text
            ):
                raise MalformedResponse(
                    f"post /r/{room}: venue reports a stored record that differs from the "
                    "signed write"
                )
            self._checks.after_write(room, posted)
            return PostResult(room, text, value, identity.did, sig, lane, posted)
        raise VenueError(f"post /r/{room}: the venue kept refusing fresh nonces")

    async def _send_signed(self, room: str, text: str, nonce: int, sig: str, lane: Lane) -> Reply:
        identity, _ = self._signer()
        what = f"post /r/{room}"
        if lane == "post":
            body = {"did": identity.did, "sig": sig, "nonce": str(nonce), "text": text}
            return await self._transport.request(
                "POST", f"/r/{room}", what=what, params={"format": "json"}, json_body=body,
                cap=READ_CAP_BYTES,
            )
        path = f"/r/{room}/say-signed/{identity.did}/{sig}/{nonce}/{encode_segment(text)}"
        return await self._transport.request(
            "GET", path, what=what, params={"format": "json"}, cap=READ_CAP_BYTES
        )

    def _check_url_budget(self, room: str, did: str, text: str) -> None:
        """The GET lane's real limit is the URL (about 16 KB at the public edge), not the
        character cap: measure the worst case (19-digit nonce) before spending a nonce."""
        path = f"/r/{room}/say-signed/{did}/{'A' * 86}/{'9' * 19}/{encode_segment(text)}"
        url = self._transport.base_url + path
        if len(url.encode()) + len("?format=json") > MAX_GET_URL_BYTES:
            raise ValueError(
                f"text needs more than {MAX_GET_URL_BYTES} URL bytes; use the POST lane"
            )

    async def _find_own(self, room: str, nonce: int, text: str) -> VenueRecord | None:
        """Our record with this nonce and text, if a retried write had in fact landed."""
        view = await self._rooms.read(room, limit=MAX_LIMIT)
        for record in view.records:
            if (
                record.sender == self._did
                and record.nonce == str(nonce)
                and record.text == text
            ):
                return record
        return None

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
        `reply_room` (default: the same room) that satisfies `match`.

        The reply room's cursor is read before the write, so a reply that lands while the write
        is still returning is not skipped. Raises ReplyLost when the ring dropped records while
        waiting (the reply may be among them).
        """
        target = reply_room or room
        start = await self._rooms.cursor(target)
        result = await self.post(room, text, lane)
        follower = self._rooms.follow(target, since=start, suppress_echoes=True)
        try:
            async with asyncio.timeout(timeout_s):
                async for event in follower:
                    if isinstance(event, RingGap) and event.lost > 0:
                        raise ReplyLost(
                            f"records {event.expected}..{event.got - 1} of /r/{target} were "
                            "dropped while waiting; re-issue the request",
                            expected=event.expected,
                            got=event.got,
                        )
                    if isinstance(event, RecordsEvent):
                        for record in event.foreign:
                            if match is None or match(record):
                                return AwaitedReply(result, record)
        except TimeoutError:
            pass
        return AwaitedReply(result, None)
