"""The arbiter's and juror's console: Cases (deals naming me as referee, release, vote
rounds), the payee's Committee progress, and the desk's calculators (split, combine, commit,
verify, tally).

The pane holds a `Door` and nothing else of the engine: every computation is one registry
command through it (`door.run`, a gated one confirmed after `door.state`'s request in the gate
modal) or one of its read-only views; the forms only collect input and show the engine's
answers (or its refusal, in its words).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TabbedContent, TabPane

from tclk_tui.engine.door import Door
from tclk_tui.tui.arb_cases import CasesForm
from tclk_tui.tui.arb_combine import CombineForm
from tclk_tui.tui.arb_committee import CommitteeForm
from tclk_tui.tui.arb_split import SplitForm
from tclk_tui.tui.arb_tally import TallyForm
from tclk_tui.tui.arb_verify import VerifyForm
from tclk_tui.tui.arb_vote import VoteForm

NO_DESK = "This wallet offers no arbitration desk, so there is nothing to do here."
SECTIONS = (("cases", "Cases"), ("committee", "Committee"), ("split", "Split"),
            ("combine", "Combine"), ("vote", "Commit vote"), ("verify", "Verify vote"),
            ("tally", "Tally"))


class ArbitrationPane(Vertical):
    DEFAULT_CSS = """
    ArbitrationPane { height: 1fr; }
    ArbitrationPane TabPane { padding: 0 1; }
    """

    def __init__(self, door: Door | None, *, id: str | None = None) -> None:
        """`door` None: no engine behind this face offers the desk, and the pane says so."""
        super().__init__(id=id)
        self._door = door

    def compose(self) -> ComposeResult:
        door = self._door
        if door is None:
            yield Static(Text(NO_DESK), id="arb-missing")
            return
        referee = door.serves_referee
        with TabbedContent(id="arb-tabs", initial="arb-cases" if referee else "arb-split"):
            if referee:
                with TabPane("Cases", id="arb-cases"):
                    yield CasesForm(door, id="cases-form")
                with TabPane("Committee", id="arb-committee"):
                    yield CommitteeForm(door, id="committee-form")
            with TabPane("Split", id="arb-split"):
                yield SplitForm(door, id="split-form")
            with TabPane("Combine", id="arb-combine"):
                yield CombineForm(door, id="combine-form")
            with TabPane("Commit vote", id="arb-vote"):
                yield VoteForm(door, id="vote-form")
            with TabPane("Verify vote", id="arb-verify"):
                yield VerifyForm(door, id="verify-form")
            with TabPane("Tally", id="arb-tally"):
                yield TallyForm(door, id="tally-form")

    def show_section(self, name: str) -> None:
        if self._door is None:
            return
        if name in ("cases", "committee") and not self._door.serves_referee:
            return
        self.query_one("#arb-tabs", TabbedContent).active = f"arb-{name}"
