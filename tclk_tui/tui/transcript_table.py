"""A deal's signed transcript: one row per record with its verification badge.

Small by nature (a deal has a handful of records), so the stock `DataTable` is fine here; cells
are `Text` built by `literal`, and rows are only appended when the transcript grew.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import DataTable

from tclk_tui.engine.views import RecordView
from tclk_tui.tui.formatting import short_did, utc_time
from tclk_tui.tui.safe import literal

BADGE_OK = "ok"
BADGE_REJECTED = "REJ"
BADGE_UNVERIFIED = "BAD"


def badge(record: RecordView) -> Text:
    """`ok` verified and accepted by the fold; `REJ` verified but refused; `BAD` signature."""
    if not record.verified:
        return Text(BADGE_UNVERIFIED, style="bold reverse")
    if not record.ok:
        return Text(BADGE_REJECTED, style="bold")
    return Text(BADGE_OK)


def record_cells(record: RecordView) -> tuple[Text, ...]:
    sender = Text("me") if record.mine else Text(short_did(record.sender))
    what = literal(record.summary, max_len=200)
    if record.reason:
        what.append(" (")
        what.append_text(literal(record.reason, max_len=120))
        what.append(")")
    return (badge(record), Text(str(record.seq), justify="right"), Text(utc_time(record.ts_ms)),
            sender, what)


class TranscriptTable(DataTable):
    DEFAULT_CSS = """
    TranscriptTable { height: 1fr; scrollbar-size-vertical: 1; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=False)
        self.records: tuple[RecordView, ...] = ()

    def on_mount(self) -> None:
        self.add_column(Text("sig"), key="badge", width=3)
        self.add_column(Text("seq"), key="seq", width=4)
        self.add_column(Text("time"), key="time", width=8)
        self.add_column(Text("sender"), key="sender", width=9)
        self.add_column(Text("frame"), key="frame")

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
