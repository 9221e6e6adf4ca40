"""The frames of one batch of records, each distinct line decoded once.

`decode_frame` is a function of the text alone, so the journal's redaction, the board and the
routing of accepts and cancels can share one answer per line instead of each parsing (and, for
an offer, re-hashing) it again. One instance lives for one batch; the frames it hands out are
read, never changed, by those who share them.
"""

from __future__ import annotations

from tclk_tui.protocol.codec import decode_frame, reparse_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.frames import Frame


class DecodedLines:
    """`decode_frame` answers by line text, computed on first use."""

    __slots__ = ("_answers",)

    def __init__(self) -> None:
        self._answers: dict[str, tuple[Frame | None, str | None]] = {}

    def decode(self, line: str) -> tuple[Frame | None, str | None]:
        """(frame, None), or (None, the decoder's reason) for a line that is not a frame."""
        answer = self._answers.get(line)
        if answer is None:
            try:
                answer = (decode_frame(line), None)
            except TclkError as exc:
                answer = (None, str(exc))
            self._answers[line] = answer
        return answer

    def decoded_before(self, line: str) -> None:
        """Take `line` as a frame this wallet's journal says decoded when it arrived: it is
        parsed again, not validated again (`reparse_frame`). A line that no longer parses is
        left to be decoded in full on first use."""
        if line not in self._answers:
            try:  # noqa: SIM105 - contextlib.suppress costs a microsecond, 20,000 times
                self._answers[line] = (reparse_frame(line), None)
            except TclkError:
                pass

    def frame(self, line: str) -> Frame | None:
        """`try_decode_frame(line)`."""
        return self.decode(line)[0]
