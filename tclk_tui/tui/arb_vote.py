"""Commit a vote: a commitment to post now and a fresh salt to keep for the reveal (the
registry's `commit-vote`, which posts nothing).

The salt is a secret until the reveal round (with the verdict it opens the commitment), so the
command is gated: once the operator confirms the request the engine states, the salt goes to
`SecretScreen` once and is not kept. The commitment is public and stays on the form.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from tclk_tui.engine.door import Door
from tclk_tui.tui.arb_gate import open_gate
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.safe import literal
from tclk_tui.tui.secret_screen import SecretScreen

SALT_WARNING = ("Keep it private until the reveal round, then reveal it with your verdict. "
                "Without it the vote cannot be revealed, and it is not shown again: write it "
                "down now.")


class VoteForm(Vertical):
    DEFAULT_CSS = """
    VoteForm { height: 1fr; }
    VoteForm .arb-row { height: 1; }
    VoteForm .arb-label { width: 12; }
    VoteForm .arb-row > Input { width: 1fr; }
    VoteForm #vote-error { color: $error; height: auto; }
    VoteForm #vote-result { height: auto; }
    """

    def __init__(self, door: Door, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._door = door
        self.commitment: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="arb-row"):
            yield Static(Text("contract"), classes="arb-label")
            yield CalmInput(placeholder="0x contract id", id="vote-contract", compact=True)
        with Horizontal(classes="arb-row"):
            yield Static(Text("verdict"), classes="arb-label")
            yield CalmInput(placeholder="e.g. claimed or refunded", id="vote-verdict",
                            compact=True)
        yield CalmButton("Commit", id="vote-go", compact=True)
        yield Static(Text(""), id="vote-error")
        yield Static(Text(""), id="vote-result")

    @on(Button.Pressed, "#vote-go")
    @on(Input.Submitted)
    def commit_vote(self) -> None:
        contract = self.query_one("#vote-contract", Input).value.strip()
        verdict = self.query_one("#vote-verdict", Input).value.strip()
        error = self.query_one("#vote-error", Static)
        result = self.query_one("#vote-result", Static)
        try:
            open_gate(self, self._door, "commit-vote",
                      {"contract": contract, "verdict": verdict}, self._shown)
        except Exception as exc:
            self.commitment = None
            error.update(literal(describe_error(exc)))
            result.update(Text(""))
            return
        error.update(Text(""))

    def _shown(self, answer: dict[str, Any] | None) -> None:
        """The confirmed commitment on the form, its salt on the secret screen; backed out,
        nothing."""
        if answer is None:
            return
        self.commitment = answer["commitment"]
        self.query_one("#vote-result", Static).update(
            Text.assemble("commitment (post this now): ", literal(answer["commitment"])))
        self.app.push_screen(SecretScreen("Vote salt (for the reveal round)", answer["salt"],
                                          SALT_WARNING))
