"""The tclk/1 wire codec: the `tclk1 ` line, from a frame and back.

The bytes inside a line are `canonical`'s (JavaScript `JSON.stringify` semantics, escaping per
UTF-16 code unit, DEL left raw so the printable-ASCII guard refuses it); this module adds the
line's rules around them: the prefix, the 4096-char cap, the guard, and the frame table's checks.

Encoding and decoding are deliberately asymmetric: decode validates the parsed value and accepts
JSON spellings the encoder never writes (key order, whitespace, escape variants, integral floats,
legacy rail spellings); encode adds the emission rules of `rails.check_emission_rails`. A reader
must keep a received line verbatim for signature checks and never assume
`encode_frame(decode_frame(line)) == line`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final, cast

from tclk_tui.protocol.canonical import canonical_json, to_ascii, utf16_len
from tclk_tui.protocol.canonical_lines import read_canonical as _read_canonical
from tclk_tui.protocol.errors import FrameError
from tclk_tui.protocol.frames import Frame, validate_frame
from tclk_tui.protocol.rails import check_emission_rails

TCLK_VERSION: Final = "tclk/1"
TCLK_PREFIX: Final = "tclk1 "
MAX_FRAME_CHARS: Final = 4096

PRINTABLE_ASCII_RE: Final = re.compile(r"[\x20-\x7e]*")
"""The line guard, prefix included; use with fullmatch."""


# --- lines ---------------------------------------------------------------------------------


def is_tclk_line(text: object) -> bool:
    """True when `text` starts with the six characters `tclk1 ` (case-sensitive)."""
    return isinstance(text, str) and text.startswith(TCLK_PREFIX)


def _cap_message(length: int) -> str:
    return f"tclk: frame exceeds the {MAX_FRAME_CHARS}-char room-message cap ({length})"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_MS_FIELDS: Final = ("claimByMs", "refundAfterMs", "expiresMs")
# Built once: `json.loads(..., parse_constant=...)` would build a new decoder per line. Its
# scanner is called on the line itself (from after the prefix), as `JSONDecoder.decode` would
# call it on a copy of the body: same values, same failures, no copy.
_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = (
    _DECODER.scan_once  # type: ignore[attr-defined]
)
_JSON_SPACE_RE: Final = re.compile(r"[ \t\n\r]*")  # json.decoder.WHITESPACE
_JSON_SPACE: Final = frozenset(" \t\n\r")


def _is_printable_ascii(text: str) -> bool:
    """`PRINTABLE_ASCII_RE.fullmatch(text)`: for ASCII text, `isprintable` admits exactly
    U+0020..U+007E (a test checks every ASCII code point), and both are C loops."""
    return text.isascii() and text.isprintable()


def _parse_body(text: str) -> Any:
    """`JSONDecoder.decode(text[6:])` without the copy; raises ValueError or RecursionError."""
    start = len(TCLK_PREFIX)
    if text[start:start + 1] in _JSON_SPACE:  # rarely: a frame starts right after the prefix
        lead = _JSON_SPACE_RE.match(text, start)  # always matches, maybe empty
        start = lead.end() if lead is not None else start
    try:
        value, end = _SCAN(text, start)
    except StopIteration:
        raise ValueError("Expecting value") from None
    if end != len(text):
        trail = _JSON_SPACE_RE.match(text, end)
        if (trail.end() if trail is not None else end) != len(text):
            raise ValueError("Extra data")
    return value


def encode_frame(frame: Mapping[str, Any]) -> str:
    """Validate, apply the emission rail rules, and render the `tclk1 ` line.

    Raises FrameError with the reference's message for the first violation.
    """
    validate_frame(frame)
    check_emission_rails(frame)
    line = TCLK_PREFIX + to_ascii(canonical_json(frame))
    if len(line) > MAX_FRAME_CHARS:  # ASCII after to_ascii, so len counts code units
        raise FrameError(_cap_message(len(line)))
    if not _is_printable_ascii(line):
        raise FrameError("tclk: frame line contains non-printable-ASCII characters")
    return line


def decode_frame(text: object) -> Frame:
    """Parse and validate one room message; raises FrameError, never anything else.

    Steps in the reference's order: prefix, 4096 cap (UTF-16 units, before the ASCII guard),
    printable-ASCII guard, JSON parse (NaN/Infinity literals refused), `validate_frame`.
    Integral ms values written as floats or exponents come back as ints.

    A canonical line of a common frame type is read by its one-regex grammar instead, which
    yields the same dict (see `canonical_lines`); every other line, and so every refusal,
    takes the full path, `decode_frame_reference`.
    """
    if type(text) is str:
        frame = _read_canonical(text)
        if frame is not None:
            return cast("Frame", frame)  # the grammar reads valid frames only
    return cast("Frame", decode_frame_reference(text))  # validated: one of the frame types


def decode_frame_reference(text: object) -> dict[str, Any]:
    """`decode_frame` without the canonical-line grammar: the definition, kept for tests."""
    if not isinstance(text, str) or not text.startswith(TCLK_PREFIX):  # is_tclk_line
        raise FrameError("tclk: not a tclk/1 line")
    length = len(text) if text.isascii() else utf16_len(text)
    if length > MAX_FRAME_CHARS:
        raise FrameError(_cap_message(length))
    if not _is_printable_ascii(text):
        raise FrameError("tclk: frame line contains non-printable-ASCII characters")
    try:
        parsed = _parse_body(text)
    except RecursionError:
        # The reference's parser would accept nesting this deep (only possible inside the
        # unchecked `job.type`/`presig.type` values); this port refuses it.
        raise FrameError("tclk: frame is nested too deeply") from None
    except ValueError:
        raise FrameError("tclk: frame is not valid JSON") from None
    try:
        frame = validate_frame(parsed)
    except RecursionError:
        raise FrameError("tclk: frame is nested too deeply") from None
    if frame.get("type") == "offer":
        for name in _MS_FIELDS:
            value = frame[name]
            if type(value) is float:
                frame[name] = int(value)
    return frame


def reparse_frame(text: str) -> Frame:
    """The frame of a line that `decode_frame` accepted before, parsed without checking again.

    `validate_frame` neither coerces nor copies, so for such a line this equals
    `decode_frame(text)` (a property test holds the two together). It exists for a journal
    replay, where the wallet's own record says the line was checked when it arrived and
    checking 20,000 offers again would cost more than the rest of the start-up. For any other
    text it answers nothing reliable; a text that is not JSON after the prefix raises FrameError.
    """
    try:
        frame = _parse_body(text)
    except (ValueError, RecursionError):
        raise FrameError("tclk: frame is not valid JSON") from None
    if type(frame) is not dict:
        raise FrameError("tclk: frame must be an object")
    if frame.get("type") == "offer":
        for name in _MS_FIELDS:
            value = frame.get(name)
            if type(value) is float:
                frame[name] = int(value)
    return cast("Frame", frame)  # decoded before: one of the frame types


def try_decode_frame(text: object) -> Frame | None:
    """`decode_frame`, or None for any line that is not a valid frame (foreign or hostile)."""
    try:
        return decode_frame(text)
    except FrameError:
        return None
