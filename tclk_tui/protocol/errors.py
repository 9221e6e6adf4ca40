"""Exception types for tclk/1.

Every error derives from ValueError so callers that only care about "bad input" can catch one
thing; messages carry the reference implementation's wording. A message may quote a malformed
wire value (as the reference's do), so code that checks a secret it holds does so before
building a frame and reports it without the value (see `builders.make_reveal`).
"""

from __future__ import annotations

from typing import Literal

RailErrorKind = Literal["malformed", "unknown"]


class TclkError(ValueError):
    """Any tclk/1 rule violation."""


class FrameError(TclkError):
    """A frame failed to encode, decode, validate or build."""


class LineError(TclkError):
    """A signed plain line beside the frames (`tclk1-statement`, `tclk1-vote`) failed to encode
    or parse."""


class RailError(TclkError):
    """A rail id is malformed (not a usable string) or not in the registry."""

    def __init__(self, message: str, kind: RailErrorKind = "malformed") -> None:
        super().__init__(message)
        self.kind: RailErrorKind = kind
