"""Check a posted vote commitment against a revealed verdict and salt (the registry's
`verify-vote`: it shows nothing secret, so it is not gated)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from tclk_tui.engine.door import Door
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.marks import PROBLEM
from tclk_tui.tui.safe import literal

FIELDS = (("commitment", "posted commitment"), ("contract", "0x contract id"),
          ("verdict", "revealed verdict"), ("salt", "revealed salt"))


class VerifyForm(Vertical):
    DEFAULT_CSS = """
    VerifyForm { height: 1fr; }
    VerifyForm .arb-row { height: 1; }
    VerifyForm .arb-label { width: 12; }
    VerifyForm .arb-row > Input { width: 1fr; }
    VerifyForm #verify-result { height: auto; }
    """

    def __init__(self, door: Door, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._door = door
        self.verdict_ok: bool | None = None

    def compose(self) -> ComposeResult:
        for name, hint in FIELDS:
            with Horizontal(classes="arb-row"):
                yield Static(Text(name), classes="arb-label")
                yield CalmInput(placeholder=hint, id=f"verify-{name}", compact=True)
        yield CalmButton("Verify", id="verify-go", compact=True)
        yield Static(Text(""), id="verify-result")

    @on(Button.Pressed, "#verify-go")
    @on(Input.Submitted)
    def verify(self) -> None:
        values = {name: self.query_one(f"#verify-{name}", Input).value for name, _ in FIELDS}
        self._run(values)

    @work(exclusive=True, group="verify")
    async def _run(self, values: dict[str, str]) -> None:
        result = self.query_one("#verify-result", Static)
        try:
            ok = (await self._door.run("verify-vote", values))["opens"]
        except Exception as exc:
            self.verdict_ok = None
            result.update(Text.assemble(Text("cannot verify: ", style=PROBLEM),
                                        literal(describe_error(exc))))
            return
        self.verdict_ok = bool(ok)
        result.update(Text("MATCHES: the reveal opens the commitment", style="bold") if ok
                      else Text("DOES NOT MATCH: this reveal does not open the commitment",
                                style="bold reverse"))
