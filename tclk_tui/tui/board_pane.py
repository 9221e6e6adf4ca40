"""The offers board pane: filter line, status line, the virtual table and the detail panel.

It renders `OfferRow` values it is handed and says what the operator asked for with messages;
the app turns those into engine calls (`board.query`, `accept_offer`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from tclk_tui.engine.board.filter import FILTER_HINT, parse_filter
from tclk_tui.engine.events import VenueStatus
from tclk_tui.engine.views import BoardQuery, OfferRow
from tclk_tui.engine.words import plural
from tclk_tui.tui.board_filter import next_sort, sort_by, sort_label
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.marks import PROBLEM
from tclk_tui.tui.offer_detail import OfferDetail
from tclk_tui.tui.offer_table import EMPTY_MESSAGE, OfferTable
from tclk_tui.tui.safe import clean


class BoardPane(Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", id="board.filter"),
        Binding("a", "accept", "Accept", id="board.accept"),
        Binding("n", "new_offer", "New offer", id="board.new_offer"),
        Binding("s", "next_sort", "Sort", id="board.sort"),
        Binding("r", "reverse_sort", "Reverse", id="board.reverse"),
        Binding("exclamation_mark", "rejected", "Rejected", id="board.rejected"),
    ]

    DEFAULT_CSS = """
    BoardPane { height: 1fr; }
    BoardPane #board-filter { margin: 0 0 0 0; }
    BoardPane #board-status { height: 1; padding: 0 1; color: $text-muted; }
    """

    class QueryChanged(Message):
        def __init__(self, query: BoardQuery) -> None:
            super().__init__()
            self.board_query = query

    class AcceptRequested(Message):
        def __init__(self, row: OfferRow) -> None:
            super().__init__()
            self.row = row

    class OfferChosen(Message):
        def __init__(self, row: OfferRow) -> None:
            super().__init__()
            self.row = row

    class NewOfferRequested(Message):
        pass

    class RejectedRequested(Message):
        pass

    def __init__(self, *, clock_ms: Callable[[], int], id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._clock_ms = clock_ms
        self.board_query = BoardQuery()
        self.total = 0
        self.rejected = 0
        self.checking = 0  # records of the ring whose checks are not done yet
        self.unreachable_url: str | None = None  # set while the engine says it cannot reach it

    def compose(self) -> ComposeResult:
        yield CalmInput(placeholder=FILTER_HINT, id="board-filter", compact=True)
        yield Static(Text(""), id="board-status")
        yield OfferTable(clock_ms=self._clock_ms, id="offer-table")
        yield OfferDetail(clock_ms=self._clock_ms, id="offer-detail")

    @property
    def table(self) -> OfferTable:
        return self.query_one(OfferTable)

    @property
    def detail(self) -> OfferDetail:
        return self.query_one(OfferDetail)

    # -- what the app hands us ----------------------------------------------------------------

    def show_rows(self, rows: Iterable[OfferRow], *, total: int, rejected: int) -> None:
        self.total, self.rejected = total, rejected
        table = self.table
        table.set_sort(self.board_query.sort, self.board_query.descending)
        table.set_rows(rows)
        self.detail.show(table.cursor_row)
        self._update_status()

    def apply_updates(self, rows: Iterable[OfferRow]) -> int:
        """Swap changed offers in place; the detail panel is redrawn only if it shows one."""
        rows = list(rows)
        table = self.table
        changed = table.update_rows(rows)
        cursor = table.cursor_row
        if changed and cursor is not None and any(r.offer_id == cursor.offer_id for r in rows):
            self.detail.show(cursor)
        return changed

    def set_counts(self, *, total: int, rejected: int) -> None:
        if (total, rejected) != (self.total, self.rejected):
            self.total, self.rejected = total, rejected
            self._update_status()

    def set_checking(self, records: int) -> None:
        """How many of the ring's records are still being checked (rows shown are verified
        offers; more may come until this is 0)."""
        if records != self.checking:
            self.checking = records
            self._update_status()

    def show_venue(self, status: VenueStatus, url: str) -> None:
        """An empty board because the venue cannot be reached is not "no offers match": say
        which venue, from the engine's status (`v` in the app shows its whole sentence)."""
        unreachable = clean(url, max_len=60) if status.unreachable else None
        if unreachable == self.unreachable_url:
            return
        self.unreachable_url = unreachable
        self.table.set_empty_message(
            EMPTY_MESSAGE if unreachable is None else
            f"cannot reach the venue at {unreachable}: no offers read yet (v says why)")
        self._update_status()

    def tick(self) -> None:
        self.table.refresh()
        self.detail.tick()

    def selected(self) -> OfferRow | None:
        return self.table.cursor_row

    def _update_status(self) -> None:
        shown = self.table.row_count
        arrow = "descending" if self.board_query.descending else "ascending"
        checking = (f" · {plural(self.checking, 'record')} still being checked"
                    if self.checking else "")
        status = Text(f"{shown:,} shown of {plural(self.total, 'offer')}{checking} · sorted by "
                      f"{sort_label(self.board_query.sort)} {arrow}")
        if self.rejected:
            status.append(f" · {self.rejected:,} rejected (! lists)")
        if self.unreachable_url is not None:
            # First, so 80 columns show it; the offers shown are those read before.
            status = Text.assemble((f"venue {self.unreachable_url} unreachable", PROBLEM), " · ",
                                   status)
        self.query_one("#board-status", Static).update(status, layout=False)

    # -- operator input -----------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "board-filter":
            return
        event.stop()
        self.set_query(parse_filter(event.value, self.board_query))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "board-filter":
            event.stop()
            self.table.focus()

    def on_offer_table_highlighted(self, event: OfferTable.Highlighted) -> None:
        self.detail.show(event.row)

    def on_offer_table_chosen(self, event: OfferTable.Chosen) -> None:
        event.stop()
        self.post_message(self.OfferChosen(event.row))

    def on_offer_table_sort_requested(self, event: OfferTable.SortRequested) -> None:
        event.stop()
        self.set_query(sort_by(self.board_query, event.key))

    def set_query(self, query: BoardQuery) -> None:
        """The one way the board's query changes (filter, sort keys, header, palette)."""
        if query != self.board_query:
            self.board_query = query
            self.post_message(self.QueryChanged(query))

    def action_focus_filter(self) -> None:
        self.query_one("#board-filter", Input).focus()

    def action_accept(self) -> None:
        row = self.selected()
        if row is not None:
            self.post_message(self.AcceptRequested(row))

    def action_new_offer(self) -> None:
        self.post_message(self.NewOfferRequested())

    def action_next_sort(self) -> None:
        self.set_query(next_sort(self.board_query))

    def action_reverse_sort(self) -> None:
        self.set_query(sort_by(self.board_query, self.board_query.sort))

    def action_rejected(self) -> None:
        self.post_message(self.RejectedRequested())
