"""The detail panel under the board: everything about the highlighted offer, literally."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Static

from tclk_tui.engine.views import OfferRow
from tclk_tui.tui.formatting import countdown, utc_hhmm, utc_stamp
from tclk_tui.tui.safe import join, literal

NOTHING = "no offer selected"


def offer_detail_text(row: OfferRow | None, now_ms: int) -> Text:
    if row is None:
        return Text(NOTHING, style="italic")

    def when(label: str, ms: int) -> str:
        return f"{label} {countdown(ms - now_ms)} ({utc_hhmm(ms)})"

    if row.capability is None:
        capability = Text("DID note: no tclk1 token")
    else:
        capability = join("DID note rails:", literal(",".join(row.capability) or "none"),
                          "(a hint, not proof)")
    lines = [
        join("offer", literal(row.offer_id)),
        join("from ", literal(row.sender)),
        join(literal(row.amount), literal(row.asset), "·", literal(row.lock), "lock · sender is",
             literal(row.role), "· rails", literal(",".join(row.rails) or "-"),
             *(("· job", literal(row.job)) if row.job else ())),
        Text(" · ".join((when("expires", row.expires_ms), when("claim by", row.claim_by_ms),
                         when("refund after", row.refund_after_ms)))),
        join("status", literal(row.status), "(mine)" if row.mine else "", "·", capability),
        join(f"posted {utc_stamp(row.ts_ms)} · seq {row.seq} ·", "line:",
             literal(row.line, max_len=400)),
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
