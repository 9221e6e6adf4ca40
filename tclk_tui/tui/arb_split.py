"""Split a preimage or witness into N shares for arbiters (the registry's `split`).

The shares are secrets, so the split is gated like every command that shows one: the request
the engine states comes first, and only once the operator confirms it do the shares go to
`SecretScreen`, once. This form keeps none of them, nor the secret typed in (the field is
cleared once the split is shown).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Select, Static

from tclk_tui.engine.door import Door
from tclk_tui.engine.words import plural
from tclk_tui.tui.arb_gate import open_gate
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput, SecretInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.safe import literal
from tclk_tui.tui.secret_screen import SecretScreen

KINDS = (("preimage (hash lock)", "preimage"), ("witness (point lock)", "witness"))
SHARES_WARNING = ("Give each arbiter exactly one share, privately. All of them together rebuild "
                  "the secret; keep no copy you do not need. These shares are not shown again "
                  "(a new split makes different ones).")


class SplitForm(Vertical):
    DEFAULT_CSS = """
    SplitForm { height: 1fr; }
    SplitForm .arb-row { height: 1; }
    SplitForm .arb-label { width: 12; }
    SplitForm .arb-row > Input, SplitForm .arb-row > Select { width: 1fr; }
    SplitForm #split-error { color: $error; height: auto; }
    """

    def __init__(self, door: Door, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._door = door

    def compose(self) -> ComposeResult:
        with Horizontal(classes="arb-row"):
            yield Static(Text("kind"), classes="arb-label")
            yield Select([(Text(label), value) for label, value in KINDS], value="preimage",
                         allow_blank=False, id="split-kind", compact=True)
        with Horizontal(classes="arb-row"):
            yield Static(Text("secret"), classes="arb-label")
            yield SecretInput(placeholder="0x + 64 hex (masked)", id="split-secret",
                              compact=True)
        with Horizontal(classes="arb-row"):
            yield Static(Text("shares"), classes="arb-label")
            yield CalmInput(value="3", placeholder="how many shares", id="split-parts",
                            type="integer", compact=True)
        yield CalmButton("Split", id="split-go", compact=True)
        yield Static(Text(""), id="split-error")

    @on(Button.Pressed, "#split-go")
    @on(Input.Submitted)
    def split(self) -> None:
        kind = str(self.query_one("#split-kind", Select).value)
        field = self.query_one("#split-secret", Input)
        error = self.query_one("#split-error", Static)
        try:
            parts = int(self.query_one("#split-parts", Input).value or "0")
            open_gate(self, self._door, "split",
                      {"kind": kind, "secret": field.value, "parts": parts}, self._shown)
        except Exception as exc:
            error.update(literal(describe_error(exc)))
            return
        error.update(Text(""))

    def _shown(self, answer: dict[str, Any] | None) -> None:
        """The confirmed split's shares, on the secret screen; backed out, nothing."""
        if answer is None:
            return
        shares, kind = answer["shares"], answer["kind"]
        self.query_one("#split-secret", Input).value = ""
        self.app.push_screen(SecretScreen(
            f"{plural(len(shares), 'share')} of the {kind}", shares, SHARES_WARNING))
