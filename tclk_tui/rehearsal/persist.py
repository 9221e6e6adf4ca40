"""On-disk form of a venue: one JSONL file per room, in the export format, plus two logs.

    <data_dir>/rooms/<room>.jsonl   the room's stored lines, byte for byte (= its export)
    <data_dir>/epochs.jsonl         {"room","generation","head","live"} per lifetime change
    <data_dir>/notes.jsonl          {"ns","key","value","ts","at"} per note write (value null
                                    when a note is reclaimed)

Messages and notes are appended; only the ring (compaction, a forced gap) rewrites a room
file, atomically. Room and note names are validated before they reach a path, so no path is
ever built from unchecked input.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tclk_tui.rehearsal.names import NAME_RE


@dataclass
class Snapshot:
    """What a data directory held when the venue started."""

    rooms: dict[str, list[bytes]] = field(default_factory=dict)
    epochs: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: dict[tuple[str, str], dict[str, Any] | None] = field(default_factory=dict)


class Persistence:
    """Append-mostly writer and start-up loader for one data directory."""

    def __init__(self, data_dir: Path, fsync: bool) -> None:
        self.root = Path(data_dir)
        self.rooms_dir = self.root / "rooms"
        self.epochs_file = self.root / "epochs.jsonl"
        self.notes_file = self.root / "notes.jsonl"
        self.fsync = fsync
        self.rooms_dir.mkdir(parents=True, exist_ok=True)

    def _room_path(self, room: str) -> Path:
        if not NAME_RE.fullmatch(room):
            raise ValueError("refusing a room file for an invalid room name")
        return self.rooms_dir / f"{room}.jsonl"

    def _append(self, path: Path, data: bytes) -> None:
        with path.open("ab") as handle:
            handle.write(data)
            if self.fsync:
                handle.flush()
                os.fsync(handle.fileno())

    def append_line(self, room: str, line: bytes) -> None:
        self._append(self._room_path(room), line)

    def rewrite_room(self, room: str, data: bytes) -> None:
        path = self._room_path(room)
        scratch = path.with_suffix(".jsonl.tmp")
        with scratch.open("wb") as handle:
            handle.write(data)
            if self.fsync:
                handle.flush()
                os.fsync(handle.fileno())
        scratch.replace(path)

    def remove_room(self, room: str) -> None:
        self._room_path(room).unlink(missing_ok=True)

    def record_epoch(self, room: str, generation: int, head: int, live: bool) -> None:
        line = {"room": room, "generation": generation, "head": head, "live": live}
        self._append(self.epochs_file, _jsonl(line))

    def record_note(self, ns: str, key: str, value: str | None, ts: str, at: float) -> None:
        line = {"ns": ns, "key": key, "value": value, "ts": ts, "at": at}
        self._append(self.notes_file, _jsonl(line))

    def load(self) -> Snapshot:
        snapshot = Snapshot()
        for path in sorted(self.rooms_dir.glob("*.jsonl")):
            room = path.name[: -len(".jsonl")]
            if not NAME_RE.fullmatch(room):
                continue
            data = path.read_bytes()
            cut = data.rfind(b"\n") + 1  # a torn tail is not a record
            snapshot.rooms[room] = [line + b"\n" for line in data[:cut].split(b"\n")[:-1]]
        for row in _read_jsonl(self.epochs_file):
            epoch_room = row.get("room")
            if isinstance(epoch_room, str) and NAME_RE.fullmatch(epoch_room):
                snapshot.epochs[epoch_room] = row
        for row in _read_jsonl(self.notes_file):
            ns, key = row.get("ns"), row.get("key")
            if not (isinstance(ns, str) and isinstance(key, str)):
                continue
            if NAME_RE.fullmatch(ns) and NAME_RE.fullmatch(key):
                snapshot.notes[(ns, key)] = row if isinstance(row.get("value"), str) else None
        return snapshot


def _jsonl(row: dict[str, Any]) -> bytes:
    return (json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows: list[dict[str, Any]] = []
    for raw in path.read_bytes().split(b"\n"):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows
