"""The note surface the paper rail records onto, kept abstract so rails stay free of HTTP.

The engine adapts the venue client's ``/kv`` notes to ``NoteStore``; tests and offline dry
runs use ``MemoryNoteStore``. A conditional write that loses returns False (the venue's 409);
a transport failure raises, because an outage is not a negative answer.
"""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

__all__ = ["MemoryNoteStore", "NoteStore"]


@runtime_checkable
class NoteStore(Protocol):
    async def get(self, ns: str, key: str) -> str | None:
        """The note's current value, or None when absent."""
        ...

    async def set(
        self,
        ns: str,
        key: str,
        value: str,
        *,
        if_value: str | None = None,
        if_absent: bool = False,
    ) -> bool:
        """Write ``value``; with a condition, False means the compare-and-set lost."""
        ...


def _check_condition(if_value: str | None, if_absent: bool) -> None:
    if if_value is not None and if_absent:
        raise ValueError("a note write takes if_value or if_absent, not both")


class MemoryNoteStore:
    """An in-memory ``NoteStore`` with the venue's CAS semantics.

    Each call completes without yielding to the event loop, and a lock guards the dict, so
    compare-and-set is atomic for coroutines and threads alike.
    """

    def __init__(self) -> None:
        self._values: dict[str, str] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemoryNoteStore(notes={len(self._values)})"

    async def get(self, ns: str, key: str) -> str | None:
        with self._lock:
            return self._values.get(f"{ns}/{key}")

    async def set(
        self,
        ns: str,
        key: str,
        value: str,
        *,
        if_value: str | None = None,
        if_absent: bool = False,
    ) -> bool:
        _check_condition(if_value, if_absent)
        path = f"{ns}/{key}"
        with self._lock:
            current = self._values.get(path)
            if if_absent and current is not None:
                return False
            if if_value is not None and current != if_value:
                return False
            self._values[path] = value
            return True

    def raw(self, ns: str, key: str) -> str | None:
        """The stored line exactly as a reader of the venue would see it."""
        with self._lock:
            return self._values.get(f"{ns}/{key}")
