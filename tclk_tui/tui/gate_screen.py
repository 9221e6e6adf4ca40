"""The confirm modal every gated action passes through.

It shows the engine's `GateRequest` facts as they are (ok / blocks / note), asks for what the
request demands (the first 4 hex of the contract id for a reveal, an explicit tick for a late
reveal), and then hands the operator's answer to the engine's confirm call. The engine re-checks
everything; a refusal is shown here, in the modal, and the modal stays open. The secret itself
never passes through this screen.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Static

from tclk_tui.engine.gates import GateFact, GateRequest
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.safe import literal

# perform(typed_code, acknowledge_late) -> the engine's result (a DealView, a seed, ...)
Perform = Callable[[str | None, bool], Awaitable[Any] | Any]

ACTION_TITLES = {
    "lock": "Lock funds on the rail",
    "reveal": "Reveal the secret (claim)",
    "cancel": "Cancel the deal",
    "refund": "Refund the lock",
    "seed-backup": "Show the master seed backup",
    "secret-reveal": "Show one secret on screen",
}
MARK_OK = "ok "
MARK_BLOCKS = "NO "
MARK_NOTE = " · "
LATE_ACK = "I understand this reveal is late: the payer may already be refunding"


def fact_text(fact: GateFact) -> Text:
    if fact.ok is True:
        mark = Text(MARK_OK, style="bold")
    elif fact.ok is False:
        mark = Text(MARK_BLOCKS, style="bold reverse")
    else:
        mark = Text(MARK_NOTE, style="dim")
    out = Text.assemble(mark, " ", literal(fact.label, style="bold"), ": ")
    out.append_text(literal(fact.detail, max_len=300))
    return out


def code_prompt(request: GateRequest) -> Text:
    """What to type: the code is read off the screen, so confirming is a deliberate act."""
    code = request.confirm_code or ""
    if request.contract and request.contract[2:6].lower() == code.lower():
        return Text("Type the first 4 hex digits of the contract id to confirm:")
    if request.deal_id and request.deal_id[2:6].lower() == code.lower():
        return Text("Type the first 4 hex digits of the deal id to confirm:")
    return Text.assemble("Type ", literal(code, style="bold"), " to confirm:")


class GateScreen(ModalScreen[Any]):
    """Dismisses with the engine's result on success, or None when the operator backs out."""

    BINDINGS: list[BindingType] = [  # noqa: RUF012
        Binding("escape", "cancel", "Back out"),
        Binding("y", "confirm", "Confirm"),
    ]

    DEFAULT_CSS = """
    GateScreen { align: center middle; }
    GateScreen > Vertical {
        width: 90%; max-width: 96; height: auto; max-height: 95%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    GateScreen #gate-title { text-style: bold; height: auto; }
    GateScreen #gate-facts { height: auto; max-height: 12; }
    GateScreen #gate-blockers { color: $error; height: auto; }
    GateScreen #gate-refused { color: $error; text-style: bold; height: auto; }
    GateScreen #gate-code { width: 1fr; }
    GateScreen #gate-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    GateScreen Button { margin: 0 0 0 2; min-width: 12; }
    """

    def __init__(self, request: GateRequest, perform: Perform) -> None:
        super().__init__()
        self.request = request
        self._perform = perform
        self.refusal: str | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        request = self.request
        keys = ("type the code, then enter" if request.confirm_code is not None
                else "y confirm")
        title = Text.assemble((ACTION_TITLES.get(request.action, request.action), "bold"),
                              (f"   {keys} · esc back out", "dim"))
        with Vertical():
            yield Static(title, id="gate-title")
            about = Text("deal ")
            about.append_text(literal(request.deal_id, max_len=70))
            if request.contract:
                about.append("\ncontract ")
                about.append_text(literal(request.contract, max_len=70))
            yield Static(about, id="gate-about")
            with VerticalScroll(id="gate-facts"):
                for fact in request.facts:
                    yield Static(fact_text(fact), classes="gate-fact")
            if request.blockers:
                blockers = Text("The engine will refuse this now:\n", style="bold")
                for reason in request.blockers:
                    blockers.append(" - ")
                    blockers.append_text(literal(reason, max_len=300))
                    blockers.append("\n")
                yield Static(blockers, id="gate-blockers")
            if request.late:
                yield Checkbox(LATE_ACK, id="gate-late")
            if request.confirm_code is not None:
                yield Static(code_prompt(request), id="gate-code-prompt")
                yield CalmInput(placeholder="confirmation code", id="gate-code", max_length=16,
                                compact=True)
            yield Static(Text(""), id="gate-refused")
            with Horizontal(id="gate-buttons"):
                yield CalmButton("Back out", id="gate-cancel", compact=True)
                yield CalmButton("Confirm", id="gate-confirm", variant="warning", disabled=True,
                                 compact=True)

    def on_mount(self) -> None:
        self._sync()
        if self.request.confirm_code is not None:
            self.query_one("#gate-code", Input).focus()
        else:
            self.query_one("#gate-cancel", Button).focus()

    # -- state --------------------------------------------------------------------------------

    @property
    def typed_code(self) -> str | None:
        if self.request.confirm_code is None:
            return None
        return self.query_one("#gate-code", Input).value.strip()

    @property
    def acknowledged(self) -> bool:
        if not self.request.late:
            return False
        return self.query_one("#gate-late", Checkbox).value

    def ready(self) -> bool:
        """Whether Confirm may be pressed: nothing blocks, the code matches, late is ticked."""
        request = self.request
        if request.blockers or self.busy:
            return False
        if request.confirm_code is not None:
            typed = self.typed_code or ""
            if typed.lower() != request.confirm_code.lower():
                return False
        return not (request.late and not self.acknowledged)

    def _sync(self) -> None:
        self.query_one("#gate-confirm", Button).disabled = not self.ready()

    @on(Input.Changed, "#gate-code")
    @on(Checkbox.Changed, "#gate-late")
    def _changed(self) -> None:
        self._sync()

    @on(Input.Submitted, "#gate-code")
    def _submitted(self) -> None:
        if self.ready():
            self._confirm()

    @on(Button.Pressed, "#gate-cancel")
    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)

    @on(Button.Pressed, "#gate-confirm")
    def action_confirm(self) -> None:
        if self.ready():
            self._confirm()

    @work(exclusive=True, group="gate-confirm")
    async def _confirm(self) -> None:
        self.busy = True
        self._sync()
        self._show_refusal(None)
        try:
            result = self._perform(self.typed_code, self.acknowledged)
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:
            self.busy = False
            self._show_refusal(describe_error(exc))
            self._sync()
            return
        self.busy = False
        self.dismiss(result)

    def _show_refusal(self, reason: str | None) -> None:
        self.refusal = reason
        text = Text("") if reason is None else Text.assemble(
            Text("Refused: ", style="bold"), literal(reason))
        self.query_one("#gate-refused", Static).update(text)
