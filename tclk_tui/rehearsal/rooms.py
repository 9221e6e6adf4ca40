"""One room: its stored lines, the ring that bounds them, and the windows reads are cut from.

A room holds the exact bytes of its stored file, one record per line, because the export must
be those bytes and a signed record must re-verify from its line alone. Each line also keeps its
position in the room's order (`seq`, what `since` filters on) and its parsed record, so reads
never re-parse and a hostile record injected by a test is served exactly as injected.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tclk_tui.rehearsal.signing import is_did

UNPARSED: Any = object()  # marks a stored line that is not JSON (only injected lines)


def format_ts(epoch: float) -> str:
    """`YYYY-MM-DDTHH:MM:SS.ffffffZ`, the venue's only timestamp shape."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_ts(value: object) -> float | None:
    """Epoch seconds of a stored `ts`, None when it cannot be read (which counts as expired)."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.timestamp()


def encode_record(record: dict[str, Any]) -> bytes:
    """One stored line: compact JSON, raw UTF-8, key order as given, newline-terminated."""
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def decode_line(line: bytes) -> Any:
    """The record a stored line holds, or UNPARSED."""
    try:
        return json.loads(line)
    except ValueError:
        return UNPARSED


@dataclass(slots=True)
class Entry:
    """One stored line."""

    seq: int
    line: bytes
    record: Any
    start: int  # byte offset of the line within this lifetime of the room's file
    ts: float | None

    @property
    def end(self) -> int:
        return self.start + len(self.line)


@dataclass
class Room:
    """A live room (one lifetime of it: a reap ends the lifetime, a write starts the next)."""

    name: str
    generation: int
    head: int  # the highest seq ever assigned, across lifetimes on the newest venue
    created_at: float
    last_write_at: float
    entries: deque[Entry] = field(default_factory=deque)
    size: int = 0  # bytes currently retained (the file size)
    written: int = 0  # bytes ever appended in this lifetime (end offset of the newest line)
    appended: int = 0  # records appended in this lifetime
    _last_signed: dict[str, Entry] = field(default_factory=dict, repr=False)

    def append(self, record: Any, line: bytes, seq: int | None = None) -> Entry:
        """Store one line at the next position (or at `seq` when a test injects one)."""
        position = self.head + 1 if seq is None else seq
        entry = Entry(
            seq=position,
            line=line,
            record=record,
            start=self.written,
            ts=parse_ts(record.get("ts")) if isinstance(record, dict) else None,
        )
        self.entries.append(entry)
        self.head = max(self.head, position)
        self.size += len(line)
        self.written += len(line)
        self.appended += 1
        self._index_signer(entry)
        return entry

    def _index_signer(self, entry: Entry) -> None:
        record = entry.record
        if not isinstance(record, dict):
            return
        sender, nonce = record.get("from"), record.get("nonce")
        if (isinstance(sender, str) and is_did(sender) and isinstance(nonce, int)
                and not isinstance(nonce, bool)):
            self._last_signed[sender] = entry

    def last_nonce(self, did: str, window_bytes: int | None) -> int | None:
        """The nonce on `did`'s newest record still inside the replay window, if any.

        Only the newest record of a key matters, so when it has left the window (or the ring)
        every older one has too, and the key may start again from any nonce.
        """
        entry = self._last_signed.get(did)
        if entry is None or not self.entries or entry.start < self.entries[0].start:
            return None
        if window_bytes is not None and entry.start < self.written - window_bytes:
            return None
        return int(entry.record["nonce"])

    def trim(self, max_bytes: int, keep_bytes: int, keep_lines: int) -> bool:
        """The ring: past `max_bytes`, keep only the newest `keep_bytes` / `keep_lines`."""
        if self.size <= max_bytes:
            return False
        while self.entries and (self.size > keep_bytes or len(self.entries) > keep_lines):
            self.size -= len(self.entries.popleft().line)
        return True

    def drop_oldest(self, count: int) -> int:
        """Forget the oldest `count` lines, as a compaction would; returns how many went."""
        dropped = 0
        while self.entries and dropped < count:
            self.size -= len(self.entries.popleft().line)
            dropped += 1
        return dropped

    def window(
        self, since: int | None, limit: int, budget: int, expired_before: float | None
    ) -> list[Entry]:
        """The newest `limit` readable lines after `since`, oldest first.

        Walks back at most `budget` bytes, as the public reader does, and stops at the first
        expired line of an ephemeral room (records are in time order, so the rest are older).
        """
        picked: list[Entry] = []
        used = 0
        for entry in reversed(self.entries):
            if since is not None and entry.seq <= since:
                break
            used += len(entry.line)
            if used > budget:
                break
            if expired_before is not None and (entry.ts is None or entry.ts < expired_before):
                break
            if entry.record is UNPARSED:
                continue
            picked.append(entry)
            if len(picked) >= limit:
                break
        picked.reverse()
        return picked

    def readable(self, expired_before: float | None) -> Iterator[Entry]:
        """Every retained line, minus the expired prefix of an ephemeral room."""
        if expired_before is None:
            yield from self.entries
            return
        skipping = True
        for entry in self.entries:
            if skipping and (entry.ts is None or entry.ts < expired_before):
                continue
            skipping = False
            yield entry

    def file_bytes(self) -> bytes:
        return b"".join(entry.line for entry in self.entries)
