"""The board's sorting, beside its one-line filter (parsed by `engine.board.filter`).

One input instead of a row of drop-downs keeps the board usable at 80x24 and entirely from the
keyboard.
"""

from __future__ import annotations

from dataclasses import replace

from tclk_tui.engine.views import BoardQuery

# Sortable columns, in the order `s` cycles through them, with their short header names.
SORT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("expires_ms", "expires"),
    ("amount", "amount"),
    ("asset", "asset"),
    ("lock", "lock"),
    ("role", "role"),
    ("claim_by_ms", "claim"),
    ("refund_after_ms", "refund"),
    ("sender", "sender"),
    ("status", "status"),
    ("rails", "rails"),
    ("ts_ms", "posted"),
)
SORT_KEYS = tuple(key for key, _ in SORT_COLUMNS)


def next_sort(query: BoardQuery, step: int = 1) -> BoardQuery:
    """The query sorted by the next column in `SORT_COLUMNS` (ascending)."""
    try:
        index = SORT_KEYS.index(query.sort)
    except ValueError:
        index = -1
    return replace(query, sort=SORT_KEYS[(index + step) % len(SORT_KEYS)], descending=False)


def sort_by(query: BoardQuery, key: str) -> BoardQuery:
    """Sort by `key`; choosing the current column again flips the direction."""
    if key == query.sort:
        return replace(query, descending=not query.descending)
    return replace(query, sort=key, descending=False)


def sort_label(key: str) -> str:
    return dict(SORT_COLUMNS).get(key, key)
