"""Who may write a message to a room, and what it takes: the rules a room write passes.

In the public service's order: the room gate (the events room is the server's, a mailbox takes
signed writes only, an owned room only its listed keys), the new-room budget, the duplicate
filter, then the store's own checks (name, text, nonce, the instance's room capacity). Its own
object because these are the venue's real limits as a client meets them, and they stay the
same whatever stores the line (`room_store`) or serves the route (`server`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tclk_tui.rehearsal.config import VenueConfig
from tclk_tui.rehearsal.dupes import DuplicateFilter
from tclk_tui.rehearsal.errors import Refusal, bad_request, forbidden
from tclk_tui.rehearsal.limits import RateLimiter
from tclk_tui.rehearsal.names import (
    ALLOW_NS,
    EVENTS_ROOM,
    OWNERS_NS,
    check_name,
    clean_text,
    is_mailbox,
)
from tclk_tui.rehearsal.notes import NoteBook
from tclk_tui.rehearsal.room_store import RoomStore
from tclk_tui.rehearsal.rooms import format_ts
from tclk_tui.rehearsal.signing import abbreviate, is_did

__all__ = ["RoomWrites"]


class RoomWrites:
    """The gates of one venue's message writes."""

    def __init__(self, config: VenueConfig, store: RoomStore, notes: NoteBook,
                 dupes: DuplicateFilter, limits: RateLimiter,
                 reap: Callable[[float, str | None], None]) -> None:
        self.config = config
        self._store = store
        self._notes = notes
        self._dupes = dupes
        self._limits = limits
        self._reap = reap  # the venue's lazy housekeeping, driven by writes
        self._now = store.now

    def write(
        self,
        room: str,
        text: str,
        *,
        client: str,
        nick: str | None = None,
        signer: str | None = None,
        nonce: str | None = None,
        sig: str | None = None,
    ) -> dict[str, Any]:
        """Store one message after every gate; returns the stored record.

        Unsigned writes pass `nick` and the raw text; signed writes pass the swept text their
        signature already covers. Order, as on the public service: room gate (403, new-room
        429), duplicate filter (422), then the store's own checks (name, text, nonce, caps).
        """
        check_name(room)
        now = self._now()
        self._room_gate(room, signer)
        charged = self._charge_creation(room, client, now)
        try:
            self._dupes.check(room, text, now)
            if signer is None:
                sender = check_name(nick or "")
                stored = clean_text(text, self.config.max_text_chars)
                extra: dict[str, Any] = {}
            else:
                sender = signer
                stored = text
                number = int(nonce or "")
                self._check_nonce(room, signer, number)
                extra = {"nonce": number, "sig": sig}
            if room not in self._store.rooms:
                self._check_room_capacity(room)
        except Refusal:
            if charged:
                self._limits.refund("create", client)
            raise
        live = self._store.open_room(room, now)
        record = {"seq": live.head + 1, "ts": format_ts(now), "from": sender, "text": stored}
        record.update(extra)
        self._store.store(live, record, now)
        self._dupes.record(room, text, now)
        self._reap(now, room)
        return record

    def _room_gate(self, room: str, signer: str | None) -> None:
        if room == EVENTS_ROOM:
            raise forbidden(
                f"/r/{EVENTS_ROOM} is written by the server only — it announces new public "
                "rooms. Read it freely; post somewhere else."
            )
        if is_mailbox(room) and signer is None:
            raise forbidden(
                f"/r/{room} is a mailbox (mb-): it takes signed writes only, so a message in it "
                "is attributable and a sender can be ignored by key.\n"
                f"send: GET /r/{room}/say-signed/<did:key>/<sig>/<nonce>/<text> — see /llms.txt"
            )
        owner = self._notes.get(OWNERS_NS, room)
        if owner is None:
            return
        allowed = {owner} if is_did(owner) else set()
        listed = self._notes.get(ALLOW_NS, room) or ""
        allowed |= {token for token in listed.split() if is_did(token)}
        if signer is None:
            raise forbidden(
                f"/r/{room} is owned: writes must be signed by a key the owner listed.\n"
                f"owner: /kv/{OWNERS_NS}/{room} · allowed: /kv/{ALLOW_NS}/{room}"
            )
        if signer not in allowed:
            raise forbidden(
                f"{abbreviate(signer)} is not listed for /r/{room}. The owner adds keys with a "
                f"signed write to /kv/{ALLOW_NS}/{room}."
            )

    def _charge_creation(self, room: str, client: str, now: float) -> bool:
        """Spend a new-room token when this write would create the room (rate limits on)."""
        if not self.config.rate_limits or room in self._store.rooms:
            return False
        _, wait = self._limits.take("create", client, now)
        if wait:
            raise self._limits.creation_limited(room, wait, self.config.max_rooms)
        return True

    def _check_nonce(self, room: str, did: str, nonce: int) -> None:
        live = self._store.rooms.get(room)
        if live is None:
            return
        last = live.last_nonce(did, self.config.nonce_window_bytes)
        if last is not None and nonce <= last:
            raise bad_request(
                f"nonce {nonce} is not greater than {last}, the last one this key used in "
                f"/r/{room} — a signed URL is single-use, so count up"
            )

    def _check_room_capacity(self, room: str) -> None:
        config = self.config
        if len(self._store.rooms) >= config.max_rooms:
            raise bad_request(
                f"room capacity reached: this instance holds {config.max_rooms} rooms, so "
                f"/r/{room} cannot be created. Rooms idle for 7 days are reclaimed; reuse one "
                "that exists (GET /rooms)."
            )
        if sum(live.size for live in self._store.rooms.values()) >= config.room_bytes_total:
            raise bad_request(
                f"room storage full: the {config.room_bytes_total} byte budget for rooms is "
                f"spent, so /r/{room} cannot be created. Every existing room still accepts "
                "writes."
            )
