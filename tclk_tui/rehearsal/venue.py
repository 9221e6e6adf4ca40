"""The venue model: rooms, notes and every rule a write passes, with no HTTP in sight.

Everything runs on the event loop that serves the app, so each method is atomic with respect to
the others: seq is assigned and the waiters are woken in the same step that stores a line.
Tests reach this object as `app.state.venue` to inject faults (a ring gap, a reap that bumps
the generation, a hostile record) and to observe waiters.

`Venue` is the facade the server and the tests hold; each concern is a collaborator with one
job, composed here rather than inherited so each reads on its own: `RoomStore` (rooms, epochs,
storing a line), `RoomWrites` and `NoteWrites` (the rules a message or a note write passes, in
the public service's order), `WaitPoints` (parked long-poll readers), and beside them the
venue's real limits (`RateLimiter`, `WaiterSlots`, `DuplicateFilter`) and the note book. The
lazy reaper stays here: it is the one step that spans rooms and notes.
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from tclk_tui.rehearsal.config import VenueConfig
from tclk_tui.rehearsal.dupes import DuplicateFilter
from tclk_tui.rehearsal.faults import Faults
from tclk_tui.rehearsal.limits import RateLimiter, WaiterSlots
from tclk_tui.rehearsal.note_rules import NoteWrites
from tclk_tui.rehearsal.notes import Condition, Note, NoteBook
from tclk_tui.rehearsal.persist import Persistence
from tclk_tui.rehearsal.room_rules import RoomWrites
from tclk_tui.rehearsal.room_store import RoomStore
from tclk_tui.rehearsal.rooms import Entry, Room, format_ts
from tclk_tui.rehearsal.waits import WaitPoints


class Venue:
    """In-memory rooms and notes, optionally mirrored to a data directory."""

    def __init__(self, config: VenueConfig | None = None, data_dir: Path | None = None) -> None:
        self.config = config or VenueConfig()
        self.notes = NoteBook(self.config)
        self.dupes = DuplicateFilter(self.config)
        self.limits = RateLimiter(self.config)
        self.slots = WaiterSlots(self.config)
        self.faults = Faults()
        self.closed = False
        self.persistence = (
            Persistence(data_dir, self.config.fsync) if data_dir is not None else None
        )
        self.waits = WaitPoints(self.view, lambda: self.closed)
        self.store = RoomStore(self.config, self.persistence, self.waits.wake, self.now)
        self.room_writes = RoomWrites(self.config, self.store, self.notes, self.dupes,
                                      self.limits, self.maybe_reap)
        self.note_writes = NoteWrites(self.notes, self.persistence, self.head, self.now,
                                      self.maybe_reap)
        self._last_reap = self.now()
        if self.persistence is not None:
            self._load(self.persistence)

    def now(self) -> float:
        return self.config.clock()

    @property
    def rooms(self) -> dict[str, Room]:
        """The live rooms by name."""
        return self.store.rooms

    # ------------------------------------------------------------------ reads

    def generation(self, room: str) -> int:
        """The room's epoch: 0 if it never existed, +1 every time it is created again."""
        return self.store.generation(room)

    def head(self, room: str) -> int:
        """The highest seq the room has assigned (its seq floor when reaped)."""
        return self.store.head(room)

    def view(self, room: str, since: int | None = None, limit: int | None = None) -> dict[str, Any]:
        """The read view of `room`: the newest `limit` records after `since`, oldest first."""
        return self.store.view(room, since, limit)

    def export(self, room: str) -> tuple[bytes, int]:
        """The room's stored lines (minus an ephemeral room's expired prefix) and its epoch."""
        return self.store.export(room)

    def waiting(self, room: str) -> int:
        """How many long-poll readers are parked on `room` right now."""
        return self.waits.waiting(room)

    async def wait_for(
        self,
        room: str,
        since: int,
        limit: int,
        timeout: float,
        disconnected: Awaitable[Any] | None = None,
    ) -> dict[str, Any] | None:
        """A view with news after `since`, as soon as a line lands; None on timeout (or when
        the reader hangs up or the venue closes)."""
        return await self.waits.wait_for(room, since, limit, timeout, disconnected)

    # ------------------------------------------------------------------ writes

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
        """Store one message after every gate (see `RoomWrites.write`); the stored record."""
        return self.room_writes.write(room, text, client=client, nick=nick, signer=signer,
                                      nonce=nonce, sig=sig)

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
        return self.note_writes.write(ns, key, value, condition, signer=signer, nonce=nonce)

    # ------------------------------------------------------------------ housekeeping

    def maybe_reap(self, now: float, spare: str | None = None) -> None:
        """Lazy reaping, at most once per `reap_every_seconds`, driven by writes."""
        config = self.config
        if now - self._last_reap < config.reap_every_seconds:
            return
        self._last_reap = now
        idle_cut = now - config.idle_seconds
        stillborn_cut = now - config.stillborn_seconds
        for name, live in list(self.store.rooms.items()):
            if name == spare:
                continue
            stillborn = live.appended <= 1 and live.last_write_at < stillborn_cut
            if live.last_write_at < idle_cut or stillborn:
                self.store.reap(name)
        for ns, key in self.notes.idle(idle_cut):
            self.notes.remove(ns, key)
            if self.persistence is not None:
                self.persistence.record_note(ns, key, None, format_ts(now), now)

    def reap(self, room: str, *, reset_seq: bool = False) -> bool:
        """End the room's lifetime, as the idle reaper does; its next write bumps `generation`
        (`reset_seq=True` restarts seq at 1, as older venues did)."""
        return self.store.reap(room, reset_seq=reset_seq)

    def force_gap(self, room: str, count: int) -> int:
        """Drop the oldest `count` retained lines, as a ring compaction would."""
        return self.store.force_gap(room, count)

    def inject_record(self, room: str, record: Any, *, seq: int | None = None) -> Entry:
        """Store `record` verbatim (any JSON value), bypassing every rule; readers are woken."""
        return self.store.inject_record(room, record, seq=seq)

    def inject_line(self, room: str, line: str | bytes, *, seq: int | None = None) -> Entry:
        """Store one raw line (it need not be JSON); readers skip it, the export carries it."""
        return self.store.inject_line(room, line, seq=seq)

    def close(self) -> None:
        """Wake every parked reader and stalled request so a shutdown never waits on them."""
        self.closed = True
        self.waits.wake_all()
        self.faults.release_all()

    # ------------------------------------------------------------------ persistence

    def _load(self, persistence: Persistence) -> None:
        snapshot = persistence.load()
        self.store.load(snapshot)
        now = self.now()
        for (ns, key), note in snapshot.notes.items():
            if note is None:
                continue
            at = note.get("at")
            written_at = float(at) if isinstance(at, int | float) else now
            self.notes.load(ns, key, Note(str(note["value"]), str(note.get("ts", "")),
                                          written_at))
