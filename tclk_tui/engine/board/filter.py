"""The board's one-line filter syntax: `asset:USD rail:memory lock:hash role:payer status:any
words`, parsed once for every face (the app's filter line, the CLI's `board --filter`).

Parsing only builds a `BoardQuery`; which rows match is the board's business.
"""

from __future__ import annotations

from dataclasses import replace

from tclk_tui.engine.views import BoardQuery

FILTER_KEYS = ("asset", "rail", "lock", "role", "status")
ANY_STATUS = ("any", "all", "*")
FILTER_HINT = "filter: words  asset:X rail:X lock:hash|point role:payer|payee status:any"


def parse_filter(text: str, base: BoardQuery | None = None, *,
                 status: str | None = "open") -> BoardQuery:
    """Turn the filter line into a query; sort settings are kept from `base`, and `status` is
    the one shown when the line names none (the CLI's `--all` passes None).

    Only the five known `key:` prefixes are filters, so a pasted `did:key:z6Mk…` is still a text
    search. An empty value (`asset:`) is ignored rather than matching nothing.
    """
    base = base or BoardQuery()
    fields: dict[str, str | None] = {"asset": None, "rail": None, "lock": None, "role": None,
                                     "status": status}
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
