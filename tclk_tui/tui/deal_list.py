"""The list of the operator's deals, newest first, each with its status and danger mark."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tclk_tui.engine.views import DealView
from tclk_tui.tui.formatting import LEVEL_LABEL, LEVEL_STYLE, short_did, short_hex
from tclk_tui.tui.safe import literal

# The danger level in a word (calm says nothing): a bare `!` meant nothing to a newcomer.
LEVEL_MARK = {level: "" if level == "calm" else label for level, label in LEVEL_LABEL.items()}
MARK_WIDTH = max(len(mark) for mark in LEVEL_MARK.values()) + 1


def deal_option_text(view: DealView) -> Text:
    level = view.deadlines.level if view.deadlines.last_safe_ms else "calm"
    out = Text(f"{LEVEL_MARK.get(level, ''):<{MARK_WIDTH}}", style=LEVEL_STYLE.get(level, ""))
    status = literal(view.status, max_len=9)
    status.pad_right(10 - status.cell_len)
    out.append_text(status)
    out.append_text(literal(view.amount_text))  # whole: a cut amount could read as another
    out.append(" · ")
    out.append_text(literal(view.role, max_len=8))
    out.append(f" · {short_hex(view.deal_id, keep=10)}")
    if view.counterparty:
        out.append(f" · with {short_did(view.counterparty)}")
    return out


class DealList(OptionList):
    DEFAULT_CSS = """
    DealList, DealList:focus {
        height: auto; max-height: 4; border: none; border-bottom: solid $panel;
        scrollbar-size-vertical: 1; padding: 0;
    }
    DealList:focus { border-bottom: solid $primary; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._views: tuple[DealView, ...] = ()

    @property
    def deal_ids(self) -> list[str]:
        return [view.deal_id for view in self._views]

    def show(self, views: Iterable[DealView], *, selected: str | None = None) -> None:
        views = tuple(views)
        if views == self._views:
            return
        keep = selected if selected is not None else self.highlighted_deal()
        self._views = views
        self.clear_options()
        self.add_options([Option(deal_option_text(view), id=view.deal_id) for view in views])
        if not views:
            return
        ids = self.deal_ids
        self.highlighted = ids.index(keep) if keep in ids else 0

    def highlighted_deal(self) -> str | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self._views):
            return None
        return self._views[index].deal_id

    def select_deal(self, deal_id: str) -> bool:
        ids = self.deal_ids
        if deal_id not in ids:
            return False
        self.highlighted = ids.index(deal_id)
        return True

    def _move_page(self, direction: Literal[-1, 1]) -> None:
        """Page up or down before the list has laid out its lines (just refilled, or on a
        pane not drawn yet) goes to the first or last deal: Textual's own paging looks the
        highlighted deal's line up and fails when there is none yet."""
        if (self.highlighted or 0) in self._index_to_line:
            super()._move_page(direction)
        elif direction < 0:
            self.action_first()
        else:
            self.action_last()
