"""The venue model: rooms, notes and every rule a write passes, with no HTTP in sight.

Everything runs on the event loop that serves the app, so each method is atomic with respect to
the others: seq is assigned and the waiters are woken in the same step that stores a line.
Tests reach this object as `app.state.venue` to inject faults (a ring gap, a reap that bumps
the generation, a hostile record) and to observe waiters.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from tclk_tui.rehearsal.config import VenueConfig
from tclk_tui.rehearsal.dupes import DuplicateFilter
from tclk_tui.rehearsal.errors import Refusal, bad_request, forbidden
from tclk_tui.rehearsal.faults import Faults
from tclk_tui.rehearsal.limits import RateLimiter, WaiterSlots
from tclk_tui.rehearsal.names import (
    ALLOW_NS,
    EVENTS_NICK,
    EVENTS_ROOM,
    NONCE_NS,
    OWNERS_NS,
    UNOWNABLE_ROOMS,
    check_name,
    clean_text,
    is_ephemeral,
    is_mailbox,
    is_ownable,
    is_unlisted,
)
from tclk_tui.rehearsal.notes import Condition, Note, NoteBook
from tclk_tui.rehearsal.persist import Persistence
from tclk_tui.rehearsal.rooms import Entry, Room, decode_line, encode_record, format_ts, parse_ts
from tclk_tui.rehearsal.signing import abbreviate, is_did


@dataclass
class _WaitPoint:
    """Where readers parked on one room name wait; replaced on every append."""

    event: asyncio.Event = field(default_factory=asyncio.Event)
    waiters: int = 0


class Venue:
    """In-memory rooms and notes, optionally mirrored to a data directory."""

    def __init__(self, config: VenueConfig | None = None, data_dir: Path | None = None) -> None:
        self.config = config or VenueConfig()
        self.rooms: dict[str, Room] = {}
        self.notes = NoteBook(self.config)
        self.dupes = DuplicateFilter(self.config)
        self.limits = RateLimiter(self.config)
        self.slots = WaiterSlots(self.config)
        self.faults = Faults()
        self.closed = False
        self._reaped: dict[str, tuple[int, int]] = {}  # room -> (generation, head) once reaped
        self._waitpoints: dict[str, _WaitPoint] = {}
        self._last_reap = self.now()
        self.persistence = (
            Persistence(data_dir, self.config.fsync) if data_dir is not None else None
        )
        if self.persistence is not None:
            self._load(self.persistence)

    def now(self) -> float:
        return self.config.clock()

    # ------------------------------------------------------------------ reads

    def generation(self, room: str) -> int:
        """The room's epoch: 0 if it never existed, +1 every time it is created again."""
        live = self.rooms.get(room)
        if live is not None:
            return live.generation
        return self._reaped.get(room, (0, 0))[0]

    def head(self, room: str) -> int:
        """The highest seq the room has assigned (its seq floor when reaped)."""
        live = self.rooms.get(room)
        if live is not None:
            return live.head
        return self._reaped.get(room, (0, 0))[1]

    def _expired_before(self, room: str) -> float | None:
        if not is_ephemeral(room):
            return None
        return self.now() - self.config.ephemeral_ttl_seconds

    def view(self, room: str, since: int | None = None, limit: int | None = None) -> dict[str, Any]:
        """The read view of `room`: the newest `limit` records after `since`, oldest first."""
        config = self.config
        live = self.rooms.get(room)
        entries: list[Entry] = []
        if live is not None:
            entries = live.window(
                since,
                limit if limit is not None else config.default_limit,
                config.read_budget_bytes,
                self._expired_before(room),
            )
        # An empty reply reports the room's real head, clamped so it never runs past it.
        head = self.head(room)
        empty_last = head if since is None else min(since, head)
        last_seq = entries[-1].seq if entries else empty_last
        return {
            "room": room,
            "count": len(entries),
            "first_seq": entries[0].seq if entries else None,
            "last_seq": last_seq,
            "generation": self.generation(room),
            "messages": [entry.record for entry in entries],
        }

    def export(self, room: str) -> tuple[bytes, int]:
        """The room's stored lines (minus an ephemeral room's expired prefix) and its epoch."""
        live = self.rooms.get(room)
        if live is None:
            return b"", self.generation(room)
        body = b"".join(entry.line for entry in live.readable(self._expired_before(room)))
        return body, live.generation

    def waiting(self, room: str) -> int:
        """How many long-poll readers are parked on `room` right now."""
        point = self._waitpoints.get(room)
        return 0 if point is None else point.waiters

    async def wait_for(
        self,
        room: str,
        since: int,
        limit: int,
        timeout: float,
        disconnected: Awaitable[Any] | None = None,
    ) -> dict[str, Any] | None:
        """A view with news after `since`, as soon as a line lands; None on timeout.

        Woken by the append itself (one event per room name, replaced on every append), so
        delivery costs no polling. Returns early, with None, when the reader hangs up or the
        venue closes.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        point = self._waitpoints.setdefault(room, _WaitPoint())
        point.waiters += 1
        hangup = asyncio.ensure_future(disconnected) if disconnected is not None else None
        woken: asyncio.Future[Any] | None = None
        try:
            while not self.closed:
                event = point.event
                fresh = self.view(room, since, limit)
                if fresh["messages"]:
                    return fresh
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return None
                woken = asyncio.ensure_future(event.wait())
                pending: set[asyncio.Future[Any]] = {woken}
                if hangup is not None:
                    pending.add(hangup)
                done, _ = await asyncio.wait(
                    pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                if hangup is not None and hangup in done:
                    return None
            return None
        finally:
            for pending_future in (woken, hangup):
                if pending_future is not None and not pending_future.done():
                    pending_future.cancel()
            point.waiters -= 1
            if point.waiters == 0 and self._waitpoints.get(room) is point:
                del self._waitpoints[room]

    def _wake(self, room: str) -> None:
        point = self._waitpoints.get(room)
        if point is not None:
            point.event.set()
            point.event = asyncio.Event()

    # ------------------------------------------------------------------ room writes

    def write_message(
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
        now = self.now()
        self._room_gate(room, signer)
        charged = self._charge_creation(room, client, now)
        try:
            self.dupes.check(room, text, now)
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
            if room not in self.rooms:
                self._check_room_capacity(room)
        except Refusal:
            if charged:
                self.limits.refund("create", client)
            raise
        live = self._open_room(room, now)
        record = {"seq": live.head + 1, "ts": format_ts(now), "from": sender, "text": stored}
        record.update(extra)
        self._store(live, record, now)
        self.dupes.record(room, text, now)
        self.maybe_reap(now, spare=room)
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
        owner = self.notes.get(OWNERS_NS, room)
        if owner is None:
            return
        allowed = {owner} if is_did(owner) else set()
        listed = self.notes.get(ALLOW_NS, room) or ""
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
        if not self.config.rate_limits or room in self.rooms:
            return False
        _, wait = self.limits.take("create", client, now)
        if wait:
            raise self.limits.creation_limited(room, wait, self.config.max_rooms)
        return True

    def _check_nonce(self, room: str, did: str, nonce: int) -> None:
        live = self.rooms.get(room)
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
        if len(self.rooms) >= config.max_rooms:
            raise bad_request(
                f"room capacity reached: this instance holds {config.max_rooms} rooms, so "
                f"/r/{room} cannot be created. Rooms idle for 7 days are reclaimed; reuse one "
                "that exists (GET /rooms)."
            )
        if sum(live.size for live in self.rooms.values()) >= config.room_bytes_total:
            raise bad_request(
                f"room storage full: the {config.room_bytes_total} byte budget for rooms is "
                f"spent, so /r/{room} cannot be created. Every existing room still accepts "
                "writes."
            )

    def _open_room(self, room: str, now: float) -> Room:
        """The live room, created (new generation, seq continuing) when absent."""
        live = self.rooms.get(room)
        if live is not None:
            return live
        generation, head = self._reaped.pop(room, (0, 0))
        live = Room(
            name=room, generation=generation + 1, head=head, created_at=now, last_write_at=now
        )
        self.rooms[room] = live
        if self.persistence is not None:
            self.persistence.record_epoch(room, live.generation, head, live=True)
        if room != EVENTS_ROOM and not is_unlisted(room):
            events = self._open_room(EVENTS_ROOM, now)
            announcement = {
                "seq": events.head + 1,
                "ts": format_ts(now),
                "from": EVENTS_NICK,
                "text": f"created {room}",
            }
            self._store(events, announcement, now)
        return live

    def _store(self, live: Room, record: Any, now: float, seq: int | None = None) -> Entry:
        line = encode_record(record)
        return self._store_line(live, record, line, now, seq)

    def _store_line(
        self, live: Room, record: Any, line: bytes, now: float, seq: int | None = None
    ) -> Entry:
        entry = live.append(record, line, seq)
        live.last_write_at = now
        persistence = self.persistence
        if persistence is not None:
            persistence.append_line(live.name, line)
        config = self.config
        if live.trim(config.ring_bytes, config.ring_keep_bytes, config.ring_keep_lines):
            self._rewrite(live)
        self._wake(live.name)
        return entry

    def _rewrite(self, live: Room) -> None:
        if self.persistence is not None:
            self.persistence.rewrite_room(live.name, live.file_bytes())
            self.persistence.record_epoch(live.name, live.generation, live.head, live=True)

    # ------------------------------------------------------------------ note writes

    def write_note(
        self,
        ns: str,
        key: str,
        value: str,
        condition: Condition,
        *,
        signer: str | None = None,
        nonce: str | None = None,
    ) -> Note:
        """Store one note after the namespace gate, the nonce burn and the condition."""
        check_name(ns)
        check_name(key)
        now = self.now()
        self._note_gate(ns, key, value, signer)
        if signer is not None:
            self._burn_nonce(key, nonce or "", now)
        first_claim = ns == OWNERS_NS and self.notes.get(OWNERS_NS, key) is None
        note = self._set_note(ns, key, value, condition, now)
        if first_claim and self.notes.get(ALLOW_NS, key) is not None:
            self._set_note(ALLOW_NS, key, "none", Condition(), now)
        self.maybe_reap(now)
        return note

    def _set_note(self, ns: str, key: str, value: str, condition: Condition, now: float) -> Note:
        note = self.notes.set(ns, key, value, condition, now)
        if self.persistence is not None:
            self.persistence.record_note(ns, key, value, note.ts, note.written_at)
        return note

    def _note_gate(self, ns: str, key: str, value: str, signer: str | None) -> None:
        """Two reserved namespaces carry room ownership; a third is the server's counter."""
        if ns == NONCE_NS:
            raise forbidden(
                f"/kv/{NONCE_NS} is written by the server only — it is the replay counter for "
                "signed ownership writes. Read it freely."
            )
        if ns not in (OWNERS_NS, ALLOW_NS):
            if signer is not None:
                raise bad_request(
                    f"signed note writes are only accepted for {OWNERS_NS} and {ALLOW_NS}. "
                    f"Every other namespace is world-writable — use /kv/{ns}/{key}/set/<value>."
                )
            return
        if ns == OWNERS_NS:
            self._owner_gate(key, value, signer)
            return
        owner = self.notes.get(OWNERS_NS, key)
        if owner is None:
            raise forbidden(
                f"/r/{key} has no owner, so it has no allow-list. Claim it first, signing with "
                f"the key you are storing: /kv/{OWNERS_NS}/{key}/set-signed/<did:key>/<sig>/"
                "<nonce>/<the same did:key>?if_absent=1 — then retry this write with a higher "
                f"nonce, because the claim burns /kv/{NONCE_NS}/{key}."
            )
        if signer != owner:
            raise forbidden(
                f"only the owner of /r/{key} may write its allow-list, with a signed write: "
                f"/kv/{ALLOW_NS}/{key}/set-signed/<did:key>/<sig>/<nonce>/<keys>"
            )
        tokens = value.split()
        bad = [token for token in tokens if not is_did(token)]
        if bad or not tokens:
            shown = bad[0] if bad else repr(value)
            raise bad_request(
                f"an allow-list is space-separated did:keys; {shown} is not one. Fail closed: "
                "a list with an unparseable entry lets nobody in."
            )

    def _owner_gate(self, key: str, value: str, signer: str | None) -> None:
        if not is_ownable(key):
            raise forbidden(
                f"/r/{key} cannot be owned. Only d- rooms are ownable, and never "
                f"{' or '.join(UNOWNABLE_ROOMS)}: claiming a room that already has people in "
                "it would lock them out of somewhere they were already talking."
            )
        if not is_did(value):
            raise bad_request(
                "a room owner is a did:key, not a nickname — a name nobody can prove they hold "
                "cannot own anything. Claim with the key you sign with."
            )
        current = self.notes.get(OWNERS_NS, key)
        if current is not None and signer != current:
            raise forbidden(
                f"/r/{key} is already owned. Only the current owner can hand it over, with a "
                f"signed write: /kv/{OWNERS_NS}/{key}/set-signed/..."
            )
        if current is None and signer != value:
            raise forbidden(
                f"claiming /r/{key} takes a signed write proving you hold that key: "
                f"/kv/{OWNERS_NS}/{key}/set-signed/<did:key>/<sig>/<nonce>/<the same did:key>. "
                "Anyone can type a did:key; only its holder can sign with it."
            )
        if current is None and self.head(key) > 0:
            raise forbidden(
                f"/r/{key} already has messages, so it can no longer be claimed — a room is "
                "ownable from birth or not at all, or claiming becomes a way to take over a "
                "conversation already in progress."
            )

    def _burn_nonce(self, room: str, nonce: str, now: float) -> None:
        """Spend a nonce of the room's signed ownership writes; burnt even if the write fails."""
        current = self.notes.get(NONCE_NS, room)
        if current is not None and not (current.isdigit() and int(nonce) > int(current)):
            raise forbidden(
                f"nonce {nonce} was already used for /r/{room} (last {current}). A signed "
                "ownership URL is single-use — count up and sign again."
            )
        self._set_note(NONCE_NS, room, nonce, Condition(), now)

    # ------------------------------------------------------------------ housekeeping

    def maybe_reap(self, now: float, spare: str | None = None) -> None:
        """Lazy reaping, at most once per `reap_every_seconds`, driven by writes."""
        config = self.config
        if now - self._last_reap < config.reap_every_seconds:
            return
        self._last_reap = now
        idle_cut = now - config.idle_seconds
        stillborn_cut = now - config.stillborn_seconds
        for name, live in list(self.rooms.items()):
            if name == spare:
                continue
            stillborn = live.appended <= 1 and live.last_write_at < stillborn_cut
            if live.last_write_at < idle_cut or stillborn:
                self.reap(name)
        for ns, key in self.notes.idle(idle_cut):
            self.notes.remove(ns, key)
            if self.persistence is not None:
                self.persistence.record_note(ns, key, None, format_ts(now), now)

    def reap(self, room: str, *, reset_seq: bool = False) -> bool:
        """End the room's lifetime, as the idle reaper does; its next write bumps `generation`.

        The newest venue continues seq after a reap; `reset_seq=True` restarts it at 1, as
        older venues did, so a client can be tested against a rewinding room too.
        """
        live = self.rooms.pop(room, None)
        if live is None:
            return False
        head = 0 if reset_seq else live.head
        self._reaped[room] = (live.generation, head)
        if self.persistence is not None:
            self.persistence.remove_room(room)
            self.persistence.record_epoch(room, live.generation, head, live=False)
        return True

    def force_gap(self, room: str, count: int) -> int:
        """Drop the oldest `count` retained lines, as a ring compaction would."""
        live = self.rooms.get(room)
        if live is None:
            return 0
        dropped = live.drop_oldest(count)
        if dropped:
            self._rewrite(live)
        return dropped

    def inject_record(self, room: str, record: Any, *, seq: int | None = None) -> Entry:
        """Store `record` verbatim (any JSON value), bypassing every rule; readers are woken.

        It takes the next position in the room's order unless `seq` says otherwise, and it is
        served as-is in ?format=json and the export: the way to rehearse a hostile venue.
        """
        check_name(room)
        now = self.now()
        live = self._open_room(room, now)
        return self._store(live, record, now, seq)

    def inject_line(self, room: str, line: str | bytes, *, seq: int | None = None) -> Entry:
        """Store one raw line (it need not be JSON); readers skip it, the export carries it."""
        check_name(room)
        raw = line.encode("utf-8") if isinstance(line, str) else bytes(line)
        if not raw.endswith(b"\n"):
            raw += b"\n"
        now = self.now()
        live = self._open_room(room, now)
        return self._store_line(live, decode_line(raw), raw, now, seq)

    def close(self) -> None:
        """Wake every parked reader and stalled request so a shutdown never waits on them."""
        self.closed = True
        for point in self._waitpoints.values():
            point.event.set()
        self.faults.release_all()

    # ------------------------------------------------------------------ persistence

    def _load(self, persistence: Persistence) -> None:
        snapshot = persistence.load()
        for room, row in snapshot.epochs.items():
            if not row.get("live", True) and room not in snapshot.rooms:
                self._reaped[room] = (_int(row.get("generation")), _int(row.get("head")))
        now = self.now()
        for room, lines in snapshot.rooms.items():
            row = snapshot.epochs.get(room, {})
            live = Room(
                name=room,
                generation=max(1, _int(row.get("generation"))),
                head=0,
                created_at=now,
                last_write_at=now,
            )
            for line in lines:
                record = decode_line(line)
                stated = record.get("seq") if isinstance(record, dict) else None
                seq = stated if _is_int(stated) and stated > live.head else live.head + 1
                live.append(record, line, seq)
            live.head = max(live.head, _int(row.get("head")))
            if live.entries:
                stamp = parse_ts(
                    live.entries[-1].record.get("ts")
                    if isinstance(live.entries[-1].record, dict)
                    else None
                )
                if stamp is not None:
                    live.last_write_at = stamp
            self.rooms[room] = live
        for (ns, key), note in snapshot.notes.items():
            if note is None:
                continue
            at = note.get("at")
            written_at = float(at) if isinstance(at, int | float) else now
            self.notes.load(ns, key, Note(str(note["value"]), str(note.get("ts", "")),
                                          written_at))


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
