"""The venue's single-line sweep.

The venue stores a swept copy of every text and verifies signatures over that copy, so a client
must sign exactly what the sweep produces: every code point of category Cc, Cf, Cs, Co, Zl or Zp
becomes one space, and so does the manual's named set of assigned default-ignorable code points
that render as nothing but sit in Mn or Lo (variation selectors, Hangul fillers and the like);
then Unicode whitespace is stripped from both ends (Python's `str.strip`, which is what the
service itself runs).
"""

from __future__ import annotations

import unicodedata

SWEPT_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})

# Default_Ignorable_Code_Point members outside the swept categories (Mn or Lo).
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180D),  # Mongolian free variation selectors
    (0x180F, 0x180F),
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0100, 0xE01EF),  # variation selectors supplement
)
SWEPT_CODEPOINTS = frozenset(
    cp for lo, hi in _IGNORABLE_RANGES for cp in range(lo, hi + 1)
)


def _swept(ch: str) -> bool:
    return ord(ch) in SWEPT_CODEPOINTS or unicodedata.category(ch) in SWEPT_CATEGORIES


def single_line_sweep(text: str) -> str:
    """Return `text` as the venue would store it."""
    if text.isascii() and text.isprintable():
        return text.strip()
    return "".join(" " if _swept(ch) else ch for ch in text).strip()


def survives_sweep(text: str) -> bool:
    """True when the venue would store `text` unchanged (so a signature over it re-verifies)."""
    return single_line_sweep(text) == text
