"""One calm line at the top: who I am, where I am connected, how the venue feed is, and the time.

The clock is UTC and comes from the app's clock (the wallet's, or a pinned one in tests).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from tclk_tui.engine.events import VenueStatus
from tclk_tui.tui.formatting import VENUE_CLASS, short_did, utc_time, venue_text
from tclk_tui.tui.safe import literal


def identity_text(profile: str, did: str, venue_url: str) -> Text:
    out = Text("tclk ", style="bold")
    out.append_text(literal(profile, max_len=16))
    out.append(" · ")
    out.append(short_did(did))
    out.append(" · ")
    out.append_text(literal(venue_url, max_len=32))
    return out


def approvals_text(count: int) -> Text:
    if count == 0:
        return Text("approvals 0", style="dim")
    return Text(f"{count} approval{'s' if count != 1 else ''} waiting")


class HeaderBar(Horizontal):
    DEFAULT_CSS = """
    HeaderBar { dock: top; height: 1; background: $panel; }
    HeaderBar > Static { height: 1; padding: 0 1; }
    HeaderBar #hdr-identity { width: 1fr; }
    HeaderBar #hdr-status { width: auto; }
    HeaderBar #hdr-clock { width: auto; }
    HeaderBar #hdr-approvals { width: auto; }
    HeaderBar #hdr-approvals.-waiting { color: $warning; text-style: bold reverse; }
    HeaderBar #hdr-status.-following { color: $success; }
    HeaderBar #hdr-status.-connecting { color: $text-muted; }
    HeaderBar #hdr-status.-warn { color: $warning; text-style: bold; }
    HeaderBar #hdr-status.-bad { color: $error; text-style: bold reverse; }
    """

    def __init__(self, *, profile: str, did: str, venue_url: str, clock_ms: Callable[[], int],
                 approvals: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self._approvals = approvals
        self._identity = identity_text(profile, did, venue_url)
        self._clock_ms = clock_ms
        self.status = VenueStatus("connecting")

    def compose(self) -> ComposeResult:
        yield Static(self._identity, id="hdr-identity")
        yield Static(venue_text(self.status.state), id="hdr-status")
        if self._approvals:
            yield Static(approvals_text(0), id="hdr-approvals")
        yield Static(Text(self._clock_text()), id="hdr-clock")

    def _clock_text(self) -> str:
        return f"{utc_time(self._clock_ms())} UTC"

    def show_status(self, status: VenueStatus) -> None:
        self.status = status
        widget = self.query_one("#hdr-status", Static)
        for name in VENUE_CLASS.values():
            widget.remove_class(name)
        widget.add_class(VENUE_CLASS.get(status.state, "-bad"))
        # The word only, so the line fits 80 columns; `v` shows the engine's whole sentence.
        widget.update(venue_text(status.state))

    def show_approvals(self, count: int) -> None:
        """How many agent calls wait for the operator (shown when the wallet serves agents)."""
        if not self._approvals:
            return
        widget = self.query_one("#hdr-approvals", Static)
        widget.set_class(count > 0, "-waiting")
        widget.update(approvals_text(count))

    def tick(self) -> None:
        # The clock text always has the same width, so no reflow is needed.
        self.query_one("#hdr-clock", Static).update(Text(self._clock_text()), layout=False)
