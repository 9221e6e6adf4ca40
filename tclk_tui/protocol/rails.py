"""The settlement-rail registry, id normalisation, matching, and capability tokens.

Three spellings coexist on purpose. New emissions use canonical registered ids only. Decoders
keep the wider legacy grammar verbatim, because historical offer ids commit to the exact array.
Configuration and negotiation input is normalised (JavaScript `trim`, ASCII-only lowercase,
aliases) so that `" PaperRail "` and `paper` name the same rail. "Malformed" and "unknown" ids are
distinct errors, and both differ from two valid rail sets that simply do not overlap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from tclk_tui.protocol.errors import FrameError, RailError
from tclk_tui.protocol.quoting import quote

RAIL_REGISTRY: Final = (
    "btc-htlc",
    "evm-htlc",
    "flop-htlc",
    "memory",
    "near-htlc",
    "paper",
    "x402",
)
"""Canonical rail ids, lexical order; closed for tclk/1 emissions."""

CANONICAL_RAIL_RE: Final = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""Grammar of a canonical id (use with fullmatch)."""

LEGACY_RAIL_RE: Final = re.compile(r"(?:[a-z0-9][a-z0-9._-]{0,63}|PaperRail)")
"""What a tclk/1 decoder admits for a rail (use with fullmatch)."""

RAIL_ALIASES: Final[Mapping[str, str]] = MappingProxyType(
    {"paperrail": "paper", "paper-rail": "paper"}
)
"""Applied to the trimmed, lowercased spelling after the grammar check."""

RAIL_MOVES_VALUE: Final[Mapping[str, bool]] = MappingProxyType(
    {
        "btc-htlc": True,
        "evm-htlc": True,
        "flop-htlc": True,
        "memory": False,
        "near-htlc": True,
        "paper": False,
        "x402": True,
    }
)
"""Whether a rail holds real value; `paper` and `memory` back the lifecycle with nothing."""

CAPABILITY_PREFIX: Final = "tclk1:"

_REGISTRY_SET: Final = frozenset(RAIL_REGISTRY)

# ECMAScript WhiteSpace + LineTerminator: what String.prototype.trim strips and `\s` matches.
# Unlike Python's str.strip() it includes U+FEFF and excludes U+001C-U+001F and U+0085.
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_WHITESPACE_RUN_RE: Final = re.compile("[" + JS_WHITESPACE + "]+")
_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def js_trim(text: str) -> str:
    """JavaScript `String.prototype.trim`."""
    return text.strip(JS_WHITESPACE)


def ascii_lower(text: str) -> str:
    """Lowercase A-Z only (Python's lower() would also fold e.g. KELVIN SIGN to `k`)."""
    return text.translate(_ASCII_LOWER)


def normalize_rail_id(value: object) -> str:
    """The canonical registered id for `value`, or RailError (kind `malformed`/`unknown`).

    Messages echo the original, untrimmed value as the reference does.
    """
    if not isinstance(value, str) or js_trim(value) == "":
        raise RailError("tclk: rail id must be a non-empty string", "malformed")
    spelling = ascii_lower(js_trim(value))
    if CANONICAL_RAIL_RE.fullmatch(spelling) is None:
        raise RailError(f"tclk: malformed rail id: {quote(value)}", "malformed")
    canonical = RAIL_ALIASES.get(spelling, spelling)
    if canonical not in _REGISTRY_SET:
        raise RailError(f"tclk: unknown rail id: {quote(value)}", "unknown")
    return canonical


def _require_rail_list(values: object) -> Sequence[Any]:
    if not isinstance(values, list | tuple) or len(values) == 0:
        raise RailError("tclk: rails must be a non-empty array", "malformed")
    return values


def normalize_rail_ids(values: object) -> list[str]:
    """Normalise each id (first error propagates), de-duplicate, sort lexically."""
    items = _require_rail_list(values)
    return sorted({normalize_rail_id(item) for item in items})


def matching_rails(offered: object, supported: object) -> list[str]:
    """The normalised offered rails that `supported` also names (sorted, no duplicates).

    `supported` is normalised first, so a bad local configuration is reported before a bad
    offer. Malformed or unknown ids raise; an empty result is a valid "no overlap".
    """
    supported_set = set(normalize_rail_ids(supported))
    return [rail for rail in normalize_rail_ids(offered) if rail in supported_set]


def rail_sets_match(a: object, b: object) -> bool:
    """Non-empty intersection after normalisation (never equality or subset)."""
    return len(matching_rails(a, b)) > 0


def offer_includes_rail(offered: Iterable[object], selected: object) -> bool:
    """True iff some offered rail normalises to `selected`'s canonical id.

    Like the reference, an offered item that cannot be normalised raises when it is reached
    before a match.
    """
    if not isinstance(offered, list | tuple):
        raise RailError("tclk: rails must be a non-empty array", "malformed")
    wanted = normalize_rail_id(selected)
    return any(normalize_rail_id(item) == wanted for item in offered)


def _try_normalize(value: object) -> str | None:
    try:
        return normalize_rail_id(value)
    except RailError:
        return None


def rail_in_offer(offered_rails: object, rail: object) -> bool:
    """The state machine's lock-rail membership rule; never raises.

    Exact string membership first (a legacy custom id completes its contract only that way),
    then canonical comparison where offered items that cannot be normalised are skipped, so a
    mixed legacy offer does not poison registered ids.
    """
    if not isinstance(offered_rails, list | tuple):
        return False
    if isinstance(rail, str) and rail in offered_rails:
        return True
    wanted = _try_normalize(rail)
    if wanted is None:
        return False
    return any(_try_normalize(item) == wanted for item in offered_rails)


def _check_emitted_rail(rail: object) -> None:
    try:
        canonical = normalize_rail_id(rail)
    except RailError as err:
        raise FrameError(str(err)) from err
    if canonical != rail:
        raise FrameError(f"tclk: non-canonical rail id: {quote(rail)}; use {canonical}")


def check_emission_rails(frame: Mapping[str, Any]) -> None:
    """Rail rules that apply when a frame is emitted, never when one is decoded.

    Offer rails, `lock.rail` and `receipt.rail` must already be canonical registered ids, and an
    offer must not repeat a rail. Order is not enforced (only `make_offer` sorts). Violations
    raise FrameError carrying the reference's message (a RailError is the cause).
    """
    kind = frame.get("type")
    if kind == "offer":
        rails = frame.get("rails")
        if not isinstance(rails, list | tuple):
            raise FrameError("tclk: rails must be a non-empty array")
        for rail in rails:
            _check_emitted_rail(rail)
        if len(set(rails)) != len(rails):
            raise FrameError("tclk: rails must not contain duplicates")
    elif kind == "lock" or (kind == "receipt" and "rail" in frame):
        _check_emitted_rail(frame.get("rail"))


def capability_token(rails: object) -> str:
    """`tclk1:<rail>,<rail>` for a DID note, normalised, de-duplicated and sorted."""
    if isinstance(rails, list | tuple) and len(rails) == 0:
        raise RailError("tclk: capability token needs at least one rail", "malformed")
    return CAPABILITY_PREFIX + ",".join(normalize_rail_ids(rails))


def parse_capability_token(note: object) -> list[str] | None:
    """The rails of the first `tclk1:` token in a DID note, or None.

    Tokens are separated by JavaScript whitespace. Any bad entry (empty, malformed, unknown)
    makes the whole token unusable, and a bad first token is not rescued by a later good one.
    """
    if not isinstance(note, str):
        return None
    token = next(
        (part for part in _JS_WHITESPACE_RUN_RE.split(note) if part.startswith(CAPABILITY_PREFIX)),
        None,
    )
    if token is None:
        return None
    try:
        return normalize_rail_ids(token[len(CAPABILITY_PREFIX) :].split(","))
    except RailError:
        return None
