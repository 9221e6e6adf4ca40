"""MemoryNoteStore: the venue's note CAS semantics, in memory."""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.rails import MemoryNoteStore, NoteStore


def test_memory_note_store_is_a_note_store():
    assert isinstance(MemoryNoteStore(), NoteStore)


async def test_get_of_an_absent_note_is_none_and_set_writes():
    notes = MemoryNoteStore()
    assert await notes.get("ns", "k") is None
    assert await notes.set("ns", "k", "v1") is True
    assert await notes.get("ns", "k") == "v1"
    assert notes.raw("ns", "k") == "v1"
    assert await notes.set("ns", "k", "v2") is True  # unconditional overwrite
    assert await notes.get("ns", "k") == "v2"


async def test_notes_are_keyed_by_namespace_and_key():
    notes = MemoryNoteStore()
    await notes.set("a", "b", "1")
    assert await notes.get("a", "c") is None
    assert await notes.get("b", "b") is None


async def test_if_absent_loses_when_a_value_is_present():
    notes = MemoryNoteStore()
    assert await notes.set("ns", "k", "first", if_absent=True) is True
    assert await notes.set("ns", "k", "second", if_absent=True) is False
    assert notes.raw("ns", "k") == "first"


async def test_if_value_compares_exact_bytes():
    notes = MemoryNoteStore()
    await notes.set("ns", "k", "locked")
    assert await notes.set("ns", "k", "x", if_value="locked ") is False
    assert await notes.set("ns", "k", "x", if_value="LOCKED") is False
    assert notes.raw("ns", "k") == "locked"
    assert await notes.set("ns", "k", "claimed", if_value="locked") is True
    assert notes.raw("ns", "k") == "claimed"


async def test_if_value_on_an_absent_note_loses():
    notes = MemoryNoteStore()
    assert await notes.set("ns", "k", "x", if_value="anything") is False
    assert notes.raw("ns", "k") is None


async def test_both_conditions_at_once_is_a_caller_error():
    notes = MemoryNoteStore()
    with pytest.raises(ValueError, match="not both"):
        await notes.set("ns", "k", "x", if_value="a", if_absent=True)


async def test_concurrent_if_absent_writers_exactly_one_wins():
    notes = MemoryNoteStore()
    results = await asyncio.gather(
        *(notes.set("ns", "k", f"w{i}", if_absent=True) for i in range(20))
    )
    assert results.count(True) == 1
    assert notes.raw("ns", "k") == f"w{results.index(True)}"


async def test_concurrent_writers_from_threads_exactly_one_wins():
    notes = MemoryNoteStore()
    await notes.set("ns", "k", "locked")

    def attempt(i: int) -> bool:
        return asyncio.run(notes.set("ns", "k", f"claimed-{i}", if_value="locked"))

    results = await asyncio.gather(*(asyncio.to_thread(attempt, i) for i in range(8)))
    assert results.count(True) == 1
