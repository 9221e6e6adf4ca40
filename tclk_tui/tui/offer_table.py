"""A virtual offers table: draws only the rows on screen, updates one row in place.

The stock `DataTable` builds a row object per offer up front and needed seconds to first paint
20,000 offers; this widget keeps the engine's `OfferRow` values in a list, renders the visible
lines on demand (Textual's line API) and repaints a single line when an offer changes. Every
cell is built with `literal`, so nothing a sender wrote is ever parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tclk_tui.engine.views import OfferRow
from tclk_tui.tui.board_filter import sort_label
from tclk_tui.tui.formatting import capability_hint, countdown, short_did
from tclk_tui.tui.safe import literal


@dataclass(frozen=True, slots=True)
class OfferColumn:
    key: str  # the OfferRow field it shows and sorts by
    width: int  # cells at 80 columns
    right: bool = False
    grow: int = 0  # extra cells it may take on wider terminals

    @property
    def label(self) -> str:
        return HEADER_LABELS.get(self.key, sort_label(self.key))


HEADER_LABELS = {"expires_ms": "expiry", "claim_by_ms": "claim", "refund_after_ms": "refund"}
# Fits 79 cells plus a one-cell scrollbar: nothing scrolls sideways at 80x24.
COLUMNS: tuple[OfferColumn, ...] = (
    OfferColumn("amount", 9, right=True, grow=8),
    OfferColumn("asset", 6, grow=4),
    OfferColumn("lock", 5),
    OfferColumn("rails", 9, grow=16),
    OfferColumn("role", 5),
    OfferColumn("expires_ms", 6),
    OfferColumn("claim_by_ms", 6),
    OfferColumn("refund_after_ms", 6),
    OfferColumn("sender", 10),
    OfferColumn("status", 8, grow=2),
)
EMPTY_MESSAGE = "no offers match the filter"
TOO_LONG = "too long"


def layout_columns(width: int) -> list[int]:
    """Column widths for a viewport `width`: the base widths, extra space shared by `grow`."""
    widths = [column.width for column in COLUMNS]
    spare = width - (sum(widths) + len(widths) - 1)
    for index, column in enumerate(COLUMNS):
        if spare <= 0:
            break
        extra = min(column.grow, spare)
        widths[index] += extra
        spare -= extra
    return widths


def cell_text(key: str, row: OfferRow, now_ms: int) -> Text:
    """One cell, inert: venue text through `literal`, times as countdowns from `now_ms`."""
    if key == "sender":
        if row.mine:
            return Text("me")
        return Text(short_did(row.sender) + capability_hint(row.capability))
    if key == "rails":
        return literal(",".join(row.rails) or "-")
    if key in ("expires_ms", "claim_by_ms", "refund_after_ms"):
        return Text(countdown(int(getattr(row, key)) - now_ms))
    if key == "amount":  # the number as it reads in the asset's units (the engine's)
        return literal(row.amount_units)
    return literal(getattr(row, key, ""))


class OfferTable(ScrollView, can_focus=True):
    """Offers as rows; cursor with arrows/page keys; Enter chooses; header click sorts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="offers.up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="offers.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="offers.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False,
                id="offers.page_down"),
        Binding("home", "edge(0)", "First", show=False, id="offers.first"),
        Binding("end", "edge(1)", "Last", show=False, id="offers.last"),
        Binding("enter", "choose", "Details", show=False, id="offers.choose"),
    ]

    COMPONENT_CLASSES = {  # noqa: RUF012
        "offer-table--header",
        "offer-table--sorted",
        "offer-table--cursor",
        "offer-table--inactive",
        "offer-table--mine",
        "offer-table--empty",
    }

    DEFAULT_CSS = """
    OfferTable {
        height: 1fr;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        background: $surface;
    }
    OfferTable > .offer-table--header { text-style: bold underline; }
    OfferTable > .offer-table--sorted { text-style: bold underline; color: $accent; }
    OfferTable > .offer-table--cursor { background: $panel; text-style: bold; }
    OfferTable:focus > .offer-table--cursor { background: $primary 45%; text-style: bold; }
    OfferTable > .offer-table--inactive { color: $text-muted; }
    OfferTable > .offer-table--mine { text-style: italic; }
    OfferTable > .offer-table--empty { color: $text-muted; text-style: italic; }
    """

    class Highlighted(Message):
        """The cursor moved onto another offer (or off every offer)."""

        def __init__(self, table: OfferTable, row: OfferRow | None) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> OfferTable:
            return self.table

    class Chosen(Message):
        """Enter or a double click on an offer."""

        def __init__(self, table: OfferTable, row: OfferRow) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> OfferTable:
            return self.table

    class SortRequested(Message):
        """A header cell was clicked."""

        def __init__(self, table: OfferTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> OfferTable:
            return self.table

    def __init__(self, *, clock_ms: Callable[[], int], name: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._clock_ms = clock_ms
        self._rows: list[OfferRow] = []
        self._index: dict[str, int] = {}
        self._cursor = 0
        self._sort = "expires_ms"
        self._descending = False
        self._widths = layout_columns(80)
        self._last_highlight: OfferRow | None = None
        self._empty_message = EMPTY_MESSAGE

    # -- data ---------------------------------------------------------------------------------

    def set_empty_message(self, text: str) -> None:
        """What the table says when it has no rows (the board pane knows why it is empty)."""
        if text != self._empty_message:
            self._empty_message = text
            self.refresh()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def cursor(self) -> int:
        return self._cursor

    @property
    def cursor_row(self) -> OfferRow | None:
        if 0 <= self._cursor < len(self._rows):
            return self._rows[self._cursor]
        return None

    def row_at(self, index: int) -> OfferRow:
        return self._rows[index]

    def index_of(self, offer_id: str) -> int | None:
        return self._index.get(offer_id)

    def set_sort(self, key: str, descending: bool) -> None:
        """Only the header arrow: the rows arrive already sorted by the engine."""
        self._sort, self._descending = key, descending
        if self.is_mounted:
            self.refresh_line(0)

    def set_rows(self, rows: Iterable[OfferRow]) -> None:
        """Replace the whole result set (after a new filter or sort), keeping the cursor's offer."""
        keep = self.cursor_row.offer_id if self.cursor_row is not None else None
        self._rows = list(rows)
        self._index = {row.offer_id: index for index, row in enumerate(self._rows)}
        if keep is not None and keep in self._index:
            self._cursor = self._index[keep]
        else:
            self._cursor = max(min(self._cursor, len(self._rows) - 1), 0)
        self._update_virtual_size()
        self._scroll_cursor_into_view()
        self.refresh()
        self._announce()

    def update_rows(self, rows: Iterable[OfferRow]) -> int:
        """Swap changed offers in place and repaint only their lines; returns how many matched."""
        changed = 0
        top = int(self.scroll_offset.y)
        visible = self._visible_rows()
        for row in rows:
            index = self._index.get(row.offer_id)
            if index is None:
                continue
            self._rows[index] = row
            changed += 1
            if top <= index < top + visible:
                self.refresh_line(index + 1)
        if changed:
            self._announce()
        return changed

    def move_to(self, offer_id: str) -> bool:
        index = self._index.get(offer_id)
        if index is None:
            return False
        self._set_cursor(index)
        return True

    # -- actions ------------------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        self._set_cursor(self._cursor + step)

    def action_page(self, direction: int) -> None:
        self._set_cursor(self._cursor + direction * max(self._visible_rows() - 1, 1))

    def action_edge(self, end: int) -> None:
        self._set_cursor(len(self._rows) - 1 if end else 0)

    def action_choose(self) -> None:
        row = self.cursor_row
        if row is not None:
            self.post_message(self.Chosen(self, row))

    def _set_cursor(self, index: int) -> None:
        if not self._rows:
            return
        index = max(0, min(index, len(self._rows) - 1))
        if index == self._cursor:
            return
        old = self._cursor
        self._cursor = index
        self._scroll_cursor_into_view()
        self.refresh_line(old + 1)
        self.refresh_line(index + 1)
        self._announce()

    def _announce(self) -> None:
        row = self.cursor_row
        if row is not self._last_highlight:
            self._last_highlight = row
            self.post_message(self.Highlighted(self, row))

    # -- geometry -----------------------------------------------------------------------------

    def _visible_rows(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    def _update_virtual_size(self) -> None:
        width = sum(self._widths) + len(self._widths) - 1
        self.virtual_size = Size(width, len(self._rows) + 1)

    def _scroll_cursor_into_view(self) -> None:
        top = int(self.scroll_offset.y)
        visible = self._visible_rows()
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, force=True)
        elif self._cursor >= top + visible:
            self.scroll_to(y=self._cursor - visible + 1, animate=False, force=True)

    def on_resize(self, event: events.Resize) -> None:
        self._widths = layout_columns(self.scrollable_content_region.width)
        self._update_virtual_size()
        self._scroll_cursor_into_view()

    # -- mouse --------------------------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            key = self._column_at(offset.x + int(self.scroll_offset.x))
            if key is not None:
                self.post_message(self.SortRequested(self, key))
            return
        index = int(self.scroll_offset.y) + offset.y - 1
        if 0 <= index < len(self._rows):
            self._set_cursor(index)
            if event.chain >= 2:
                self.action_choose()

    def _column_at(self, x: int) -> str | None:
        position = 0
        for column, width in zip(COLUMNS, self._widths, strict=True):
            if position <= x < position + width + 1:
                return column.key
            position += width + 1
        return None

    # -- drawing ------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            strip = self._header_strip(base)
        else:
            index = int(scroll_y) + y - 1
            if index < len(self._rows):
                strip = self._row_strip(index, base)
            elif index == 0:
                style = base + self.get_component_rich_style("offer-table--empty")
                strip = self._text_strip(Text(self._empty_message), style)
            else:
                return Strip.blank(width, base)
        return strip.crop_extend(int(scroll_x), int(scroll_x) + width, base)

    def _header_strip(self, base: Style) -> Strip:
        line = Text(end="")
        sorted_style = self.get_component_rich_style("offer-table--sorted")
        for index, (column, width) in enumerate(zip(COLUMNS, self._widths, strict=True)):
            label = Text(column.label, style=sorted_style if column.key == self._sort else "")
            self._append_cell(line, label, width, column.right, first=index == 0)
        style = base + self.get_component_rich_style("offer-table--header")
        return self._text_strip(line, style, fill=True)

    def _row_strip(self, index: int, base: Style) -> Strip:
        row = self._rows[index]
        now = self._clock_ms()
        line = Text(end="")
        for position, (column, width) in enumerate(zip(COLUMNS, self._widths, strict=True)):
            self._append_cell(line, cell_text(column.key, row, now), width, column.right,
                              first=position == 0, whole=column.key == "amount")
        style = base
        if row.status != "open":
            style += self.get_component_rich_style("offer-table--inactive")
        if row.mine:
            style += self.get_component_rich_style("offer-table--mine")
        if index == self._cursor:
            style += self.get_component_rich_style("offer-table--cursor")
        return self._text_strip(line, style, fill=True)

    @staticmethod
    def _append_cell(line: Text, cell: Text, width: int, right: bool, *, first: bool,
                     whole: bool = False) -> None:
        if not first:
            line.append(" ")
        if whole and cell.cell_len > width:
            # An amount cut short could read as another: say it does not fit instead (Enter
            # shows the offer, its amount whole).
            cell = Text(TOO_LONG[:width], style="italic")
        cell.truncate(width, overflow="ellipsis")
        pad = width - cell.cell_len
        if pad > 0:
            cell = Text(" " * pad, end="") + cell if right else cell + Text(" " * pad, end="")
        line.append_text(cell)

    def _text_strip(self, text: Text, style: Style, *, fill: bool = False) -> Strip:
        strip = Strip(list(text.render(self.app.console, end=""))).apply_style(style)
        if fill:
            total = max(strip.cell_length, self.scrollable_content_region.width,
                        self.virtual_size.width)
            strip = strip.extend_cell_length(total, style)
        return strip
