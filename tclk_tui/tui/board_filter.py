"""The board's one-line filter: `asset:USD rail:memory lock:hash role:payer status:any words`.

One input instead of a row of drop-downs keeps the board usable at 80x24 and entirely from the
keyboard. Parsing only builds a `BoardQuery`; which rows match is the engine's business.
"""

from __future__ import annotations

from dataclasses import replace

from tclk_tui.engine.views import BoardQuery

FILTER_KEYS = ("asset", "rail", "lock", "role", "status")
ANY_STATUS = ("any", "all", "*")
FILTER_HINT = "filter: words  asset:X rail:X lock:hash|point role:payer|payee status:any"

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


def parse_filter(text: str, base: BoardQuery | None = None) -> BoardQuery:
    """Turn the filter line into a query; sort settings are kept from `base`.

    Only the five known `key:` prefixes are filters, so a pasted `did:key:z6Mk…` is still a text
    search. An empty value (`asset:`) is ignored rather than matching nothing.
    """
    base = base or BoardQuery()
    fields: dict[str, str | None] = {"asset": None, "rail": None, "lock": None, "role": None,
                                     "status": "open"}
    words: list[str] = []
    for token in text.split():
        key, sep, value = token.partition(":")
        key = key.lower()
        if sep and key in FILTER_KEYS:
            if not value:
                continue
            if key == "status" and value.lower() in ANY_STATUS:
                fields["status"] = None
            elif key in ("lock", "role", "status"):
                fields[key] = value.lower()
            else:
                fields[key] = value
            continue
        words.append(token)
    return replace(base, text=" ".join(words), asset=fields["asset"], rail=fields["rail"],
                   lock=fields["lock"], role=fields["role"], status=fields["status"])


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
