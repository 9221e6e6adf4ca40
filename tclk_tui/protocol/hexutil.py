"""The protocol's one hex convention: `0x`-prefixed, whole bytes, lowercase on output.

Decoding accepts hex digits of either case because the reference does; the wire regexes
(`HEX32_RE`, `HEX33_RE`) are the stricter, lowercase-only forms frames must use. Error messages
give only a length or a type, never the value: the value may be a preimage or a witness.
"""

from __future__ import annotations

import re

from tclk_tui.protocol.errors import TclkError

HEX32_RE = re.compile(r"0x[0-9a-f]{64}")
"""A 32-byte wire value (hash statement, secret, contract id); use with fullmatch."""

HEX33_RE = re.compile(r"0x[0-9a-f]{66}")
"""A 33-byte wire value (point statement, payment key); use with fullmatch."""

_HEX_RE = re.compile(r"0x(?:[0-9a-fA-F]{2})*")


def _js_typeof(value: object) -> str:
    """Name the value's type the way the reference's messages do (`typeof`)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "object"
    if callable(value):
        return "function"
    return "object"


def _utf16_len(text: str) -> int:
    """Length as JavaScript counts it (UTF-16 code units), so messages match the reference."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def is_hex(value: object) -> bool:
    """True for a `0x`-prefixed, even-length hex string of either case (`0x` itself included)."""
    return isinstance(value, str) and _HEX_RE.fullmatch(value) is not None


def hex_to_bytes(value: object) -> bytes:
    """Decode `0x`-hex; `0x` is zero bytes. Raises TclkError for anything else, `""` included."""
    if not isinstance(value, str):
        raise TclkError(f"tclk: expected 0x-prefixed even-length hex, got {_js_typeof(value)}")
    if _HEX_RE.fullmatch(value) is None:
        raise TclkError(
            f"tclk: expected 0x-prefixed even-length hex, got {_utf16_len(value)} chars"
        )
    return bytes.fromhex(value[2:])


def bytes_to_hex(value: bytes | bytearray | memoryview) -> str:
    """`0x` + lowercase hex; `0x` for no bytes."""
    return "0x" + bytes(value).hex()
