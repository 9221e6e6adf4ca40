"""Both deadlines and the last safe moment as countdowns, coloured by the engine's level.

The level (calm, soon, danger, past) comes from `Deadlines.level`; this widget never decides
how dangerous a moment is, it only makes the engine's judgement hard to miss, in colour and in
words (so it still reads with NO_COLOR).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tclk_tui.engine.views import Deadlines
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.formatting import LEVEL_CLASS, LEVEL_LABEL, LEVEL_STYLE, countdown, utc_hhmm
from tclk_tui.tui.safe import clean, literal


def times_text(deadlines: Deadlines, now_ms: int) -> Text:
    def part(label: str, ms: int) -> str:
        return f"{label} {countdown(ms - now_ms)} ({utc_hhmm(ms)})"

    return Text(" · ".join((part("expires", deadlines.expires_ms),
                            part("claim by", deadlines.claim_by_ms),
                            part("refund after", deadlines.refund_after_ms))))


def safe_text(deadlines: Deadlines, now_ms: int) -> Text:
    if not deadlines.last_safe_ms:
        return Text.assemble("nothing pending: ", literal(deadlines.last_safe_what))
    level = deadlines.level
    out = Text(f"{LEVEL_LABEL.get(level, clean(level, max_len=12))}:",
               style=LEVEL_STYLE.get(level, ""))
    left = deadlines.last_safe_ms - now_ms
    when = f"in {countdown(left)}" if left > 0 else "passed"
    out.append(f" last safe moment {when} ({utc_hhmm(deadlines.last_safe_ms)} UTC): ")
    out.append_text(literal(plain_words(deadlines.last_safe_what)))
    return out


class DeadlineStrip(Vertical):
    DEFAULT_CSS = """
    DeadlineStrip { height: auto; padding: 0 1; }
    DeadlineStrip > Static { height: auto; }
    DeadlineStrip.-soon #deadline-safe { color: $warning; }
    DeadlineStrip.-danger #deadline-safe { color: $error; }
    DeadlineStrip.-past #deadline-safe { color: $error; }
    """

    def __init__(self, *, clock_ms: Callable[[], int], id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._clock_ms = clock_ms
        self.deadlines: Deadlines | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(""), id="deadline-times")
        yield Static(Text(""), id="deadline-safe")

    def show(self, deadlines: Deadlines | None) -> None:
        self.deadlines = deadlines
        for name in LEVEL_CLASS.values():
            self.remove_class(name)
        if deadlines is not None and deadlines.last_safe_ms:
            self.add_class(LEVEL_CLASS.get(deadlines.level, "-calm"))
        self.tick()

    def tick(self) -> None:
        times = self.query_one("#deadline-times", Static)
        safe = self.query_one("#deadline-safe", Static)
        if self.deadlines is None:
            times.update(Text(""))
            safe.update(Text(""))
            return
        now = self._clock_ms()
        times.update(times_text(self.deadlines, now))
        safe.update(safe_text(self.deadlines, now))
