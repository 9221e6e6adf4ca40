"""Combine shares back into the secret and say whether it opens a given statement.

The rebuilt secret goes to `SecretScreen` once; only whether it opens the statement (not a
secret) stays on this form. The shares typed in are cleared once the combine succeeds.
"""

from __future__ import annotations

import re

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Select, Static

from tclk_tui.tui.arb_split import KINDS
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput, SecretInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.ports import ArbitrationPort
from tclk_tui.tui.safe import literal
from tclk_tui.tui.secret_screen import SecretScreen

SEPARATORS = re.compile(r"[\s,;]+")
COMBINED_WARNING = "Anyone who reads this value can claim or prove the lock it opens."


def split_shares(text: str) -> list[str]:
    return [share for share in SEPARATORS.split(text) if share]


def opens_text(opens: bool | None) -> Text:
    if opens is None:
        return Text("no statement given: cannot say whether it opens anything")
    if opens:
        return Text("OPENS the statement", style="bold")
    return Text("does NOT open the statement", style="bold reverse")


class CombineForm(Vertical):
    DEFAULT_CSS = """
    CombineForm { height: 1fr; }
    CombineForm .arb-row { height: 1; }
    CombineForm .arb-label { width: 12; }
    CombineForm .arb-row > Input, CombineForm .arb-row > Select { width: 1fr; }
    CombineForm #combine-error { color: $error; height: auto; }
    """

    def __init__(self, desk: ArbitrationPort, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._desk = desk
        # Whether the last rebuilt value opened the statement: public, so it may stay.
        self.opens: bool | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="arb-row"):
            yield Static(Text("kind"), classes="arb-label")
            yield Select([(Text(label), value) for label, value in KINDS], value="preimage",
                         allow_blank=False, id="combine-kind", compact=True)
        with Horizontal(classes="arb-row"):
            yield Static(Text("shares"), classes="arb-label")
            yield SecretInput(placeholder="all shares, separated by spaces (masked)",
                              id="combine-shares", compact=True)
        with Horizontal(classes="arb-row"):
            yield Static(Text("statement"), classes="arb-label")
            yield CalmInput(placeholder="optional: 0x statement to check against",
                            id="combine-statement", compact=True)
        yield CalmButton("Combine", id="combine-go", compact=True)
        yield Static(Text(""), id="combine-error")
        yield Static(Text(""), id="combine-opens")

    @on(Button.Pressed, "#combine-go")
    @on(Input.Submitted)
    def combine(self) -> None:
        kind = str(self.query_one("#combine-kind", Select).value)
        field = self.query_one("#combine-shares", Input)
        statement = self.query_one("#combine-statement", Input).value.strip() or None
        error = self.query_one("#combine-error", Static)
        opens = self.query_one("#combine-opens", Static)
        try:
            result = self._desk.combine(kind, split_shares(field.value),  # type: ignore[arg-type]
                                        statement)
        except Exception as exc:
            self.opens = None
            error.update(literal(describe_error(exc)))
            opens.update(Text(""))
            return
        self.opens = result.opens
        error.update(Text(""))
        opens.update(opens_text(result.opens))
        field.value = ""
        self.app.push_screen(SecretScreen(f"The rebuilt {kind}", result.value, COMBINED_WARNING))
