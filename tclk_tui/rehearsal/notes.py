"""Notes: small world-writable values with compare-and-set.

Unconditional writes are last-write-wins; `if` writes only over an exact current value and
`if_absent` only where nothing is. A lost race is a 409 whose body ends with the value that is
actually there, so the loser can rebase without another read.
"""

from __future__ import annotations

from dataclasses import dataclass

from tclk_tui.rehearsal.config import VenueConfig
from tclk_tui.rehearsal.errors import Refusal, bad_request
from tclk_tui.rehearsal.names import is_unlisted
from tclk_tui.rehearsal.rooms import format_ts

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


@dataclass
class Note:
    value: str
    ts: str
    written_at: float


@dataclass(frozen=True)
class Condition:
    """What a write requires of the current value: nothing, exactly `expect`, or absence."""

    expect: str | None = None
    expect_absent: bool = False


def parse_if_absent(raw: object) -> bool:
    """The strict reading of `if_absent`; anything unrecognised is a 400, never a guess."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        folded = raw.strip().lower()
        if folded in _TRUE:
            return True
        if folded in _FALSE:
            return False
    shown = raw if isinstance(raw, str) else repr(raw)
    raise bad_request(
        f"bad if_absent: expected 1, true, yes or on (or 0, false, no, off or empty), in any "
        f"case, or a JSON boolean; got {shown!r}"
    )


def parse_condition(expect: object, if_absent: object) -> Condition:
    """One condition from the `if` and `if_absent` a caller sent (None where absent)."""
    if expect is not None and not isinstance(expect, str):
        raise bad_request("bad if: must be a string")
    absent = parse_if_absent(if_absent) if if_absent is not None else False
    if absent and expect is not None:
        raise bad_request(
            "bad if_absent: a true if_absent together with if= is refused — if_absent means "
            "nothing is there, if= means this exact value is there, and there is no correct "
            "pick between them. Send one."
        )
    return Condition(expect=expect, expect_absent=absent)


class NoteBook:
    """Every note, keyed by (namespace, key)."""

    def __init__(self, config: VenueConfig) -> None:
        self._config = config
        self._notes: dict[tuple[str, str], Note] = {}
        self._per_ns: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._notes)

    def get(self, ns: str, key: str) -> str | None:
        note = self._notes.get((ns, key))
        return None if note is None else note.value

    def note(self, ns: str, key: str) -> Note | None:
        return self._notes.get((ns, key))

    def keys(self, ns: str) -> list[str]:
        """The listable keys of a namespace (unlisted `p-` keys never appear)."""
        return sorted(k for (n, k) in self._notes if n == ns and not is_unlisted(k))

    def total_bytes(self) -> int:
        return sum(len(note.value.encode("utf-8")) for note in self._notes.values())

    def check(self, ns: str, key: str, condition: Condition) -> None:
        """Raise the 409 when `condition` does not hold right now."""
        current = self.get(ns, key)
        if condition.expect_absent:
            if current is not None:
                raise _conflict(f"note {ns}/{key} already exists", current)
        elif condition.expect is not None and current != condition.expect:
            raise _conflict(f"note {ns}/{key} changed since you read it", current)

    def set(self, ns: str, key: str, value: str, condition: Condition, now: float) -> Note:
        """Write `value` if `condition` holds; capacity is checked only for a new key."""
        self.check(ns, key, condition)
        if (ns, key) not in self._notes:
            self._check_capacity(ns)
            self._per_ns[ns] = self._per_ns.get(ns, 0) + 1
        note = Note(value=value, ts=format_ts(now), written_at=now)
        self._notes[(ns, key)] = note
        return note

    def load(self, ns: str, key: str, note: Note | None) -> None:
        """Restore a persisted note (None removes it) without any checks."""
        if note is None:
            self.remove(ns, key)
            return
        if (ns, key) not in self._notes:
            self._per_ns[ns] = self._per_ns.get(ns, 0) + 1
        self._notes[(ns, key)] = note

    def remove(self, ns: str, key: str) -> bool:
        if self._notes.pop((ns, key), None) is None:
            return False
        left = self._per_ns.get(ns, 1) - 1
        if left <= 0:
            self._per_ns.pop(ns, None)
        else:
            self._per_ns[ns] = left
        return True

    def idle(self, cutoff: float) -> list[tuple[str, str]]:
        """Notes whose last write is older than `cutoff`."""
        return [k for k, note in self._notes.items() if note.written_at < cutoff]

    def _check_capacity(self, ns: str) -> None:
        config = self._config
        if self._per_ns.get(ns, 0) >= config.max_notes_per_ns:
            raise bad_request(
                f"namespace full: /kv/{ns} already holds {config.max_notes_per_ns} notes, the "
                "per-namespace cap. Overwrite one you own, or use another namespace."
            )
        if len(self._notes) >= config.max_notes_total:
            raise bad_request(
                f"note capacity reached: this instance holds {config.max_notes_total} notes, "
                "its total cap. Notes idle for 7 days are reclaimed; overwrite one instead."
            )


def _conflict(summary: str, current: str | None) -> Refusal:
    body = f"409 {summary}"
    if current is not None:
        body += (
            "\n\nto retry: merge your change into the value below, then write it with "
            "?if=<that value> so you only win if nothing moved again.\n"
            f"current value follows (untrusted, another caller's; {len(current)} chars):\n"
            f"{current}"
        )
    else:
        body += (
            "\n\nthere is no note there at all, so your ?if=<value> could not match. "
            "It was never written, or it went idle for 7 days and was reclaimed.\n"
            "to create it, use ?if_absent=1 instead of ?if=, or write it unconditionally."
        )
    return Refusal(409, body)
