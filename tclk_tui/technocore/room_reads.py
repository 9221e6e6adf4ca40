"""The client's reads: one room read (plain or long-polled), a room's export, the venue's
`/config`. Each is one request whose reply is checked before it is believed.

Composites of these (a cursor, a follower, a parsed export) stay on the client, built from the
client's own `read` and `export_body`, so that whatever wraps or counts those at the client
sees every read.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tclk_tui.technocore.budget_checks import BudgetChecks
from tclk_tui.technocore.errors import MalformedResponse
from tclk_tui.technocore.records import MAX_SAFE_INT, RoomView, parse_room_view
from tclk_tui.technocore.retry import RetryPolicy
from tclk_tui.technocore.transport import EXPORT_CAP_BYTES, READ_CAP_BYTES, VenueTransport
from tclk_tui.technocore.venue_url import check_name

__all__ = ["MAX_LIMIT", "MAX_WAIT_S", "RoomReads", "VenueSettings"]

MAX_LIMIT = 200
MAX_WAIT_S = 10.0


@dataclass(frozen=True, slots=True)
class VenueSettings:
    """`/config`: every knob the deployment runs with, keyed like its environment variables."""

    service: str | None
    version: str | None
    settings: Mapping[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.settings.get(name, default)


class RoomReads:
    """One venue's read requests, each one request through the transport."""

    def __init__(self, transport: VenueTransport, checks: BudgetChecks) -> None:
        self._transport = transport
        self._checks = checks
        self._counter = itertools.count(1)

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
        check_name(room, "room")
        params: dict[str, str | int | float] = {"format": "json"}
        if since is not None:
            if isinstance(since, bool) or not isinstance(since, int) or since < 0:
                raise ValueError("since is a non-negative seq")
            params["since"] = since
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
                raise ValueError(f"limit is 1..{MAX_LIMIT}")
            params["limit"] = limit
        timeout = self._transport.timeout_s
        waited = wait is not None and wait > 0
        held = False
        if waited:
            if since is None:
                raise ValueError("wait needs since: the venue only long-polls after a cursor")
            held = self._checks.take_waiter()
        if held and wait is not None:
            wait = min(float(wait), MAX_WAIT_S)
            params["wait"] = f"{wait:g}"
            timeout += wait
        else:
            # A re-poll of an unchanged URL can be answered from a cache; the manual's remedy.
            params["n"] = next(self._counter)
        try:
            reply = await self._transport.request(
                "GET", f"/r/{room}", what=f"read /r/{room}", params=params, timeout_s=timeout,
                cap=READ_CAP_BYTES, retry=retry,
            )
        finally:
            if held:
                self._checks.release_waiter()
        view = parse_room_view(room, reply.body, since)
        return self._checks.read_seen(room, view, since, waited, held)

    async def export_body(self, room: str, *, retry: RetryPolicy | None = None
                          ) -> tuple[bytes, int | None]:
        """The room's export exactly as served, and its generation, nothing parsed yet (for
        a caller that checks the records itself: `records.ExportChecks`)."""
        check_name(room, "room")
        reply = await self._transport.request(
            "GET", f"/r/{room}/export", what=f"export /r/{room}", cap=EXPORT_CAP_BYTES,
            timeout_s=self._transport.timeout_s * 4, retry=retry,
        )
        header = reply.headers.get("x-room-generation")
        generation: int | None = None
        if header is not None:
            text = header.strip()
            if not (text.isascii() and text.isdigit()) or int(text) > MAX_SAFE_INT:
                raise MalformedResponse(f"export /r/{room}: bad X-Room-Generation header")
            generation = int(text)
        self._checks.export_seen(room, reply.body)
        return reply.body, generation

    async def config(self) -> VenueSettings:
        """The deployment's knobs (`/config`); read limits from here rather than assuming."""
        reply = await self._transport.request("GET", "/config", what="read /config")
        data = self._transport.json(reply, "read /config")
        if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
            raise MalformedResponse("read /config: venue reply has no settings object")
        service, version = data.get("service"), data.get("version")
        return VenueSettings(
            service=service if isinstance(service, str) else None,
            version=version if isinstance(version, str) else None,
            settings=dict(data["settings"]),
        )
