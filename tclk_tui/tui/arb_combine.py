"""Combine shares back into the secret and say whether it opens a given statement (the
registry's `combine`).

The rebuilt secret is shown only through the command's gate: the engine states first whether
it opens the statement, and once the operator confirms, the value goes to `SecretScreen` once.
Only whether it opens (not a secret) stays on this form. The shares typed in are cleared once
the value is shown.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Select, Static

from tclk_tui.engine.door import Door
from tclk_tui.tui.arb_gate import open_gate
from tclk_tui.tui.arb_split import KINDS
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput, SecretInput
from tclk_tui.tui.errors import describe_error
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

    def __init__(self, door: Door, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._door = door
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
            open_gate(self, self._door, "combine",
                      {"kind": kind, "shares": split_shares(field.value),
                       "statement": statement}, self._shown)
        except Exception as exc:
            self.opens = None
            error.update(literal(describe_error(exc)))
            opens.update(Text(""))
            return
        error.update(Text(""))

    def _shown(self, answer: dict[str, Any] | None) -> None:
        """The confirmed combine's value, on the secret screen; backed out, nothing."""
        if answer is None:
            return
        self.opens = answer["opens"]
        self.query_one("#combine-opens", Static).update(opens_text(answer["opens"]))
        self.query_one("#combine-shares", Input).value = ""
        self.app.push_screen(SecretScreen(f"The rebuilt {answer['kind']}", answer["value"],
                                          COMBINED_WARNING))
