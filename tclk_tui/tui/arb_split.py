"""Split a preimage or witness into N shares for arbiters (through the arbitration desk)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Select, Static

from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput, SecretInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.ports import ArbitrationPort
from tclk_tui.tui.safe import literal
from tclk_tui.tui.secret_screen import SecretValue

KINDS = (("preimage (hash lock)", "preimage"), ("witness (point lock)", "witness"))


class SplitForm(Vertical):
    DEFAULT_CSS = """
    SplitForm { height: 1fr; }
    SplitForm .arb-row { height: 1; }
    SplitForm .arb-label { width: 12; }
    SplitForm .arb-row > Input, SplitForm .arb-row > Select { width: 1fr; }
    SplitForm #split-result { height: auto; }
    SplitForm #split-error { color: $error; height: auto; }
    """

    def __init__(self, desk: ArbitrationPort, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._desk = desk
        self.shares: list[str] = []

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
        yield SecretValue(Text(""), id="split-result")

    @on(Button.Pressed, "#split-go")
    @on(Input.Submitted)
    def split(self) -> None:
        kind = str(self.query_one("#split-kind", Select).value)
        secret = self.query_one("#split-secret", Input).value
        error = self.query_one("#split-error", Static)
        try:
            parts = int(self.query_one("#split-parts", Input).value or "0")
            shares = self._desk.split(kind, secret, parts)  # type: ignore[arg-type]
        except Exception as exc:
            self.shares = []
            error.update(literal(describe_error(exc)))
            self.query_one("#split-result", SecretValue).update(Text(""))
            return
        self.shares = list(shares)
        error.update(Text(""))
        out = Text(f"{len(shares)} shares; give each arbiter one. All are needed to rebuild "
                   "the secret.\n", style="bold")
        for index, share in enumerate(shares, start=1):
            out.append(f"{index:>2}. ")
            out.append_text(literal(share))
            out.append("\n")
        self.query_one("#split-result", SecretValue).update(out)
