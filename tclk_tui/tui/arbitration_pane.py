"""The arbiter's and juror's console: Cases (deals naming me as referee, release, vote
rounds), the payee's Committee progress, and the desk's calculators (split, combine, commit,
verify, tally).

Every computation is one call on `wallet.referee`, the wallet, or `wallet.arbitration`; the
forms only collect input and show the engine's answers (or its refusal, in its words).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TabbedContent, TabPane

from tclk_tui.tui.arb_cases import CasesForm
from tclk_tui.tui.arb_combine import CombineForm
from tclk_tui.tui.arb_committee import CommitteeForm
from tclk_tui.tui.arb_split import SplitForm
from tclk_tui.tui.arb_tally import TallyForm
from tclk_tui.tui.arb_verify import VerifyForm
from tclk_tui.tui.arb_vote import VoteForm
from tclk_tui.tui.ports import ArbitrationPort

NO_DESK = "This wallet offers no arbitration desk, so there is nothing to do here."
SECTIONS = (("cases", "Cases"), ("committee", "Committee"), ("split", "Split"),
            ("combine", "Combine"), ("vote", "Commit vote"), ("verify", "Verify vote"),
            ("tally", "Tally"))


class ArbitrationPane(Vertical):
    DEFAULT_CSS = """
    ArbitrationPane { height: 1fr; }
    ArbitrationPane TabPane { padding: 0 1; }
    """

    def __init__(self, desk: ArbitrationPort | None, *, wallet: Any = None,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self._desk = desk
        self._wallet = wallet

    def compose(self) -> ComposeResult:
        if self._desk is None:
            yield Static(Text(NO_DESK), id="arb-missing")
            return
        referee = getattr(self._wallet, "referee", None)
        with TabbedContent(id="arb-tabs", initial="arb-cases" if referee else "arb-split"):
            if referee is not None:
                with TabPane("Cases", id="arb-cases"):
                    yield CasesForm(referee, id="cases-form")
                with TabPane("Committee", id="arb-committee"):
                    yield CommitteeForm(self._wallet, id="committee-form")
            with TabPane("Split", id="arb-split"):
                yield SplitForm(self._desk, id="split-form")
            with TabPane("Combine", id="arb-combine"):
                yield CombineForm(self._desk, id="combine-form")
            with TabPane("Commit vote", id="arb-vote"):
                yield VoteForm(self._desk, id="vote-form")
            with TabPane("Verify vote", id="arb-verify"):
                yield VerifyForm(self._desk, id="verify-form")
            with TabPane("Tally", id="arb-tally"):
                yield TallyForm(self._desk, id="tally-form")

    def show_section(self, name: str) -> None:
        if self._desk is None:
            return
        if name in ("cases", "committee") and getattr(self._wallet, "referee", None) is None:
            return
        self.query_one("#arb-tabs", TabbedContent).active = f"arb-{name}"
