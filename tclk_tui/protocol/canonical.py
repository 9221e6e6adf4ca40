"""JavaScript text semantics and canonical JSON: the primitives every tclk/1 wire byte is made of.

Ids are hashes of the canonical text, so every byte here must equal what the TypeScript
reference produces: JavaScript `JSON.stringify` semantics (number rendering included), escaping
per UTF-16 code unit, and DEL (U+007F) left raw so the printable-ASCII guard refuses it. Python's
`json.dumps(ensure_ascii=True)` escapes DEL and would therefore emit lines and ids the reference
rejects, so the definition (`_canonical`, `json_string`, `to_ascii`) is written out by hand.
For speed, `canonical_json` hands values where Python's C encoder provably writes the same text
(no floats, no surrogates, ASCII keys, exact integers) to that encoder without `ensure_ascii`; a
property test holds both paths to identical output.

This module imports nothing of the protocol but its errors, so the frame table, the ids and the
quoting of messages can build on it while `codec` (the `tclk1 ` line) builds on them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from tclk_tui.protocol.errors import FrameError

MAX_SAFE_INTEGER: Final = 2**53 - 1

# Code units JSON.stringify escapes: quote, backslash, C0 controls, and (well-formed
# JSON.stringify) surrogates that are not half of a valid pair.
_JSON_ESCAPE_RE: Final = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
_SHORT_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_NON_ASCII_RE: Final = re.compile(r"[^\x00-\x7f]")
_UNSUPPORTED: Final = "tclk: frame contains an unsupported value"


# --- numbers -------------------------------------------------------------------------------


def js_number_to_string(value: float) -> str:
    """ECMAScript Number::toString for a double: shortest round-trip digits, JS exponent form.

    Python's `repr` already yields the shortest digits that round-trip; only the layout differs
    (`1e+21` not `1e21`, `1e-7` not `1e-07`, no trailing `.0`).
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value < 0:
        return "-" + js_number_to_string(-value)
    _sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    assert isinstance(exponent, int)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = k + exponent  # value = 0.digits * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    exp_text = ("+" if e >= 0 else "-") + str(abs(e))
    if k == 1:
        return digits + "e" + exp_text
    return digits[0] + "." + digits[1:] + "e" + exp_text


def _json_number(value: int | float) -> str:
    """`JSON.stringify` of a JS number; a Python int is the double JavaScript would hold."""
    if isinstance(value, int):
        if -(2**53) <= value <= 2**53:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            return "null"  # JSON.parse would have produced +-Infinity
    if not math.isfinite(value):
        return "null"
    return js_number_to_string(value)


def js_string(value: object) -> str:
    """JavaScript `String(value)` for JSON-shaped values, used where reference messages do."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number_to_string(value)
    if isinstance(value, list | tuple):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


# --- strings -------------------------------------------------------------------------------


def _escape_slow(text: str) -> str:
    out: list[str] = []
    i = 0
    size = len(text)
    while i < size:
        ch = text[i]
        code = ord(ch)
        short = _SHORT_ESCAPES.get(ch)
        if short is not None:
            out.append(short)
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDBFF and i + 1 < size and 0xDC00 <= ord(text[i + 1]) <= 0xDFFF:
            # A high/low pair spelled as two code points is one valid character to JavaScript.
            out.append(ch + text[i + 1])
            i += 1
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def json_string(text: str) -> str:
    """`JSON.stringify(text)`: short escapes, lowercase `\\u00XX`, lone surrogates escaped.

    `/`, DEL and every other character are left as they are; non-ASCII is `to_ascii`'s job.
    """
    if _JSON_ESCAPE_RE.search(text) is None:
        return '"' + text + '"'
    return '"' + _escape_slow(text) + '"'


def _ascii_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def to_ascii(text: str) -> str:
    """Replace every UTF-16 code unit in U+0080..U+FFFF with lowercase `\\uXXXX`.

    Astral characters become their two surrogate escapes. U+0000..U+007F pass through, so a raw
    DEL survives and is refused later by the printable-ASCII guard, as in the reference.
    """
    if text.isascii():
        return text
    return _NON_ASCII_RE.sub(_ascii_escape, text)


def js_utf8(text: str) -> bytes:
    """UTF-8 as JavaScript's TextEncoder writes it: a lone surrogate becomes U+FFFD."""
    if text.isascii():
        return text.encode("ascii")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        repaired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        return repaired.encode("utf-8")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of the reference's 4096 cap."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf16_sort_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


# --- canonical JSON ------------------------------------------------------------------------


def _canonical(value: Any, out: list[str]) -> None:
    kind = type(value)
    if kind is str:
        out.append(json_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif kind is int or kind is float:
        out.append(_json_number(value))
    elif isinstance(value, Mapping):
        keys = list(value.keys())
        if not all(isinstance(key, str) for key in keys):
            raise FrameError(_UNSUPPORTED)
        if not all(key.isascii() for key in keys):
            keys.sort(key=_utf16_sort_key)
        else:
            keys.sort()
        out.append("{")
        first = True
        for key in keys:
            if not first:
                out.append(",")
            first = False
            out.append(json_string(key))
            out.append(":")
            _canonical(value[key], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _canonical(item, out)
        out.append("]")
    elif isinstance(value, str):
        out.append(json_string(str(value)))
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int | float):
        out.append(_json_number(value))
    else:
        raise FrameError(_UNSUPPORTED)


# The fast path: for values where Python's C encoder provably writes the same text as the
# definition above (exact str/int/bool/None/dict/list, ASCII keys, no surrogates, no floats,
# integers a double holds exactly). Its string escaping without ensure_ascii is JSON.stringify's
# (short escapes, lowercase \u00XX, DEL raw); everything else takes `_canonical`. A property
# test holds the two to the same output.
_FAST_ENCODER: Final = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), check_circular=False
)
_SURROGATE_RE: Final = re.compile("[\ud800-\udfff]")
_EXACT_INT_LIMIT: Final = 2**53


def _is_plain(value: Any) -> bool:
    kind = type(value)
    if kind is str:
        return value.isascii() or _SURROGATE_RE.search(value) is None
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or not key.isascii() or not _is_plain(item):
                return False
        return True
    if kind is list:
        return all(_is_plain(item) for item in value)
    if kind is int:
        return -_EXACT_INT_LIMIT <= value <= _EXACT_INT_LIMIT
    return value is None or kind is bool


def canonical_json(value: Any) -> str:
    """Canonical JSON as the reference writes it, before ASCII escaping.

    Keys sorted by UTF-16 code units, no whitespace, `None` kept as `null` (an absent key is
    simply not in the dict), numbers as JavaScript renders them (`NaN`/`Infinity` as `null`).
    Anything else (bytes, sets, non-string keys, ...) raises FrameError.
    """
    try:
        if _is_plain(value):
            return _FAST_ENCODER.encode(value)
        out: list[str] = []
        _canonical(value, out)
    except RecursionError:
        raise FrameError(_UNSUPPORTED) from None
    return "".join(out)


def canonical_json_reference(value: Any) -> str:
    """`canonical_json` without the fast path: the definition, kept callable for tests."""
    out: list[str] = []
    try:
        _canonical(value, out)
    except RecursionError:
        raise FrameError(_UNSUPPORTED) from None
    return "".join(out)
