"""How deeply a JSON text nests, found before any parser recurses into it.

`json.loads` recurses once per level in C. Under the default recursion limit a hostile depth
raises RecursionError, but a library that raises the limit (py_ecc does, to 10**6) turns the
same input into a C stack overflow that kills the process. Every reader of JSON a stranger (or
a damaged file) may have written asks `too_deep` first and refuses with its own typed error.
"""

from __future__ import annotations

import re
from typing import Final

MAX_JSON_DEPTH: Final = 512
"""Far beyond any record, export row, index or vault body this package reads or writes."""

_STRING_RE: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET_RE: Final = re.compile(r"[\[\]{}]")


def too_deep(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when `text` opens more than `limit` arrays/objects inside one another.

    Brackets inside strings do not count. Unbalanced text is left for the parser to refuse.
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= limit:
        return False  # the common case: not even enough brackets to be too deep
    depth = 0
    for bracket in _BRACKET_RE.findall(_STRING_RE.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False
