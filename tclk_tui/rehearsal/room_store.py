"""The venue's rooms: the live ones, the epochs of reaped ones, and how a line is stored.

A stored line gets its seq, goes to the data directory (when there is one), trims the ring and
wakes the room's parked readers in one step. Its own object because every rule about who may
write (`room_rules`, `note_rules`) is decided before anything reaches it, and the faults a
test injects (`inject_record`, `force_gap`, `reap`) go straight to it, past every rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

from tclk_tui.rehearsal.config import VenueConfig
from tclk_tui.rehearsal.names import EVENTS_NICK, EVENTS_ROOM, check_name, is_ephemeral, is_unlisted
from tclk_tui.rehearsal.persist import Persistence, Snapshot
from tclk_tui.rehearsal.rooms import Entry, Room, decode_line, encode_record, format_ts, parse_ts

__all__ = ["RoomStore"]


class RoomStore:
    """Every room of one venue, live or reaped."""

    def __init__(self, config: VenueConfig, persistence: Persistence | None,
                 wake: Callable[[str], None], now: Callable[[], float]) -> None:
        self.config = config
        self.persistence = persistence
        self._wake = wake
        self.now = now
        self.rooms: dict[str, Room] = {}
        self._reaped: dict[str, tuple[int, int]] = {}  # room -> (generation, head) once reaped

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

    def expired_before(self, room: str) -> float | None:
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
                self.expired_before(room),
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
        body = b"".join(entry.line for entry in live.readable(self.expired_before(room)))
        return body, live.generation


    def open_room(self, room: str, now: float) -> Room:
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
            events = self.open_room(EVENTS_ROOM, now)
            announcement = {
                "seq": events.head + 1,
                "ts": format_ts(now),
                "from": EVENTS_NICK,
                "text": f"created {room}",
            }
            self.store(events, announcement, now)
        return live

    def store(self, live: Room, record: Any, now: float, seq: int | None = None) -> Entry:
        line = encode_record(record)
        return self.store_line(live, record, line, now, seq)

    def store_line(
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
        live = self.open_room(room, now)
        return self.store(live, record, now, seq)

    def inject_line(self, room: str, line: str | bytes, *, seq: int | None = None) -> Entry:
        """Store one raw line (it need not be JSON); readers skip it, the export carries it."""
        check_name(room)
        raw = line.encode("utf-8") if isinstance(line, str) else bytes(line)
        if not raw.endswith(b"\n"):
            raw += b"\n"
        now = self.now()
        live = self.open_room(room, now)
        return self.store_line(live, decode_line(raw), raw, now, seq)

    def load(self, snapshot: Snapshot) -> None:
        """The rooms and epochs a data directory held at start-up."""
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


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
