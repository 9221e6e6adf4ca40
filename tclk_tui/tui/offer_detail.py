"""The detail panel under the board: everything about the highlighted offer, literally."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Static

from tclk_tui.engine.views import OfferRow
from tclk_tui.engine.words import rails_phrase
from tclk_tui.tui.formatting import capability_legend, countdown, utc_hhmm, utc_stamp
from tclk_tui.tui.safe import join, literal

NOTHING = "no offer selected"


def offer_detail_text(row: OfferRow | None, now_ms: int, *, with_line: bool = True) -> Text:
    """The offer's facts, one line each. `with_line` False leaves out the raw line, for a
    place that shows it whole (`raw_line_text`)."""
    if row is None:
        return Text(NOTHING, style="italic")

    def when(label: str, ms: int) -> str:
        return f"{label} {countdown(ms - now_ms)} ({utc_hhmm(ms)})"

    capability = capability_legend(row.capability)
    lines = [
        join("offer", literal(row.offer_id)),
        join("from ", literal(row.sender)),
        join(literal(row.amount_text), "on", literal(rails_phrase(row.rails)),
             "·", literal(row.lock), "lock · sender is", literal(row.role),
             *(("· job", literal(row.job)) if row.job else ())),
        Text(" · ".join((when("expires", row.expires_ms), when("claim by", row.claim_by_ms),
                         when("refund after", row.refund_after_ms)))),
        join("status", literal(row.status), "(mine)" if row.mine else "", "·", capability),
        join(f"posted {utc_stamp(row.ts_ms)} · seq {row.seq} ·", "line:",
             literal(row.line, max_len=400)) if with_line else
        Text(f"posted {utc_stamp(row.ts_ms)} · seq {row.seq} · the line as posted:"),
    ]
    return Text("\n", end="").join(lines)


class OfferDetail(Static):
    """Shows one `OfferRow`; re-renders on `show` and on the clock tick (countdowns)."""

    DEFAULT_CSS = """
    OfferDetail {
        height: 7;
        padding: 0 1;
        border-top: solid $panel;
        overflow: hidden;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, *, clock_ms: Callable[[], int], id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(Text(NOTHING), id=id, classes=classes)
        self._clock_ms = clock_ms
        self.row: OfferRow | None = None

    def show(self, row: OfferRow | None) -> None:
        self.row = row
        self.tick()

    def tick(self) -> None:
        # Fixed height: a new text never changes the layout, so skip the reflow.
        self.update(offer_detail_text(self.row, self._clock_ms()), layout=False)


def json_pieces(line: str) -> list[str]:
    """The line cut after every comma that separates JSON members or items (not one inside a
    string), so a long frame wraps where a reader expects it to."""
    pieces: list[str] = []
    start = 0
    in_string = escaped = False
    for index, char in enumerate(line):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            pieces.append(line[start:index + 1])
            start = index + 1
    if start < len(line) or not pieces:
        pieces.append(line[start:])
    return pieces


def raw_line_text(line: str, width: int) -> Text:
    """The whole raw line, literally, in rows of at most `width` cells that break only between
    JSON members (a single member wider than that is folded by the widget)."""
    rows: list[Text] = []
    for piece in (literal(part) for part in json_pieces(line)):
        if rows and rows[-1].cell_len + piece.cell_len <= width:
            rows[-1].append_text(piece)
        else:
            rows.append(piece)
    return Text("\n", end="").join(rows)
