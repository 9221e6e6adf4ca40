"""A deal's signed transcript: one row per record with its verification badge and the room it
was read from.

Small by nature (a deal has a handful of records), so the stock `DataTable` is fine here; cells
are `Text` built by `literal`, and rows are only appended when the transcript grew. The frame
column takes the width that is left and a longer line ends in an ellipsis, never a silent cut;
Enter on a row asks for the whole record.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import DataTable

from tclk_tui.engine.views import RecordView
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.formatting import short_did, utc_time
from tclk_tui.tui.marks import PROBLEM
from tclk_tui.tui.safe import literal

BADGE_OK = "ok"
BADGE_REJECTED = "REJ"
BADGE_UNVERIFIED = "BAD"


def badge(record: RecordView) -> Text:
    """`ok` verified and accepted by the fold; `REJ` verified but refused; `BAD` signature.
    Both problems are drawn as problems (`marks.PROBLEM`), told apart by their words."""
    if not record.verified:
        return Text(BADGE_UNVERIFIED, style="bold reverse")
    if not record.ok:
        return Text(BADGE_REJECTED, style=PROBLEM)
    return Text(BADGE_OK)


# (key, heading, width); the frame column gets what is left.
FIXED_COLUMNS = (("badge", "sig", 3), ("seq", "seq", 4), ("time", "time", 8),
                 ("room", "room", 12), ("sender", "sender", 9))
MIN_FRAME_WIDTH = 12


def _cut(text: Text) -> Text:
    """One cell line: too long ends in an ellipsis."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def record_cells(record: RecordView) -> tuple[Text, ...]:
    sender = Text("me") if record.mine else Text(short_did(record.sender))
    what = literal(plain_words(record.summary), max_len=200)
    if record.reason:
        what.append(" (")
        what.append_text(literal(plain_words(record.reason), max_len=120))
        what.append(")")
    return (badge(record), Text(str(record.seq), justify="right"), Text(utc_time(record.ts_ms)),
            _cut(literal(record.room)), _cut(sender), _cut(what))


class TranscriptTable(DataTable):
    DEFAULT_CSS = """
    TranscriptTable { height: 1fr; scrollbar-size-vertical: 1; }
    """

    class RecordChosen(Message):
        """Enter on a row: the operator wants the whole record."""

        def __init__(self, record: RecordView) -> None:
            super().__init__()
            self.record = record

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=False)
        self.records: tuple[RecordView, ...] = ()
        self._frame_width = 0

    def on_mount(self) -> None:
        self._lay_out(self.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self._lay_out(event.size.width)

    def frame_width(self, table_width: int) -> int:
        padding = 2 * self.cell_padding * (len(FIXED_COLUMNS) + 1)
        scrollbar = 1
        fixed = sum(width for _, _, width in FIXED_COLUMNS)
        return max(MIN_FRAME_WIDTH, table_width - fixed - padding - scrollbar)

    def _lay_out(self, table_width: int) -> None:
        """(Re)build the columns so the frame column ends at the table's edge; the rows are
        few, so drawing them again is cheap."""
        width = self.frame_width(table_width)
        if width == self._frame_width:
            return
        self._frame_width = width
        cursor = self.cursor_row
        self.clear(columns=True)
        for key, heading, fixed in FIXED_COLUMNS:
            self.add_column(Text(heading), key=key, width=fixed)
        self.add_column(Text("frame"), key="frame", width=width)
        for record in self.records:
            self.add_row(*record_cells(record))
        if self.records:
            self.move_cursor(row=min(max(cursor, 0), len(self.records) - 1), animate=False)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        record = self.highlighted_record()
        if record is not None:
            event.stop()
            self.post_message(self.RecordChosen(record))

    def show(self, records: Iterable[RecordView]) -> None:
        records = tuple(records)
        if records == self.records:
            return
        grew = records[: len(self.records)] == self.records
        if not grew:
            self.clear()
            start = 0
        else:
            start = len(self.records)
        self.records = records
        for record in records[start:]:
            self.add_row(*record_cells(record))
        if records and (not grew or self.cursor_row >= start - 1):
            self.move_cursor(row=len(records) - 1, animate=False)

    def highlighted_record(self) -> RecordView | None:
        if not self.records or not 0 <= self.cursor_row < len(self.records):
            return None
        return self.records[self.cursor_row]
