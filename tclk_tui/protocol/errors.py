"""Exception types for tclk/1.

Every error derives from ValueError so callers that only care about "bad input" can catch one
thing; messages carry the reference implementation's wording and never echo secret values.
"""

from __future__ import annotations

from typing import Literal

RailErrorKind = Literal["malformed", "unknown"]


class TclkError(ValueError):
    """Any tclk/1 rule violation."""


class FrameError(TclkError):
    """A frame failed to encode, decode, validate or build."""


class RailError(TclkError):
    """A rail id is malformed (not a usable string) or not in the registry."""

    def __init__(self, message: str, kind: RailErrorKind = "malformed") -> None:
        super().__init__(message)
        self.kind: RailErrorKind = kind
