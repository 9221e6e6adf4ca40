"""The confirm modal every gated action passes through.

It shows the engine's `GateRequest` facts as they are (ok / blocks / note), asks for what the
request demands (the first 4 hex of the contract id for a reveal, an explicit tick for a late
reveal), and then hands the operator's answer to the engine's confirm call. The engine re-checks
everything; a refusal is shown here, in the modal, and the modal stays open. The secret itself
never passes through this screen.

The engine's answer changes while the modal is open (claimByMs passes, a lock is verified, the
refund window opens), so when the caller gives a `refresh` the request is fetched again every
second and after every refusal, and the facts, blockers and late tick follow it. What the
operator typed is kept; a new answer never confirms by itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Button, Checkbox, Footer, Input, Static

from tclk_tui.engine.actions import GATE_TITLES
from tclk_tui.engine.gates import GateFact, GateRefused, GateRequest
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.safe import literal

# perform(request, typed_code, acknowledge_late) -> the engine's result (a DealView, a seed,
# ...); `request` is the newest answer the screen holds.
Perform = Callable[[GateRequest, str | None, bool], Awaitable[Any] | Any]
# refresh() -> the engine's answer now, e.g. `deal.request_reveal`.
Refresh = Callable[[], GateRequest]

ACTION_TITLES = GATE_TITLES  # the action table's (engine.actions), by gated action
MARK_OK = "ok  "
MARK_BLOCKS = "NO  "
MARK_NOTE = "note"
LATE_ACK = "I understand this reveal is late: the payer may already be refunding"


def fact_text(fact: GateFact) -> Text:
    if fact.ok is True:
        mark = Text(MARK_OK, style="bold")
    elif fact.ok is False:
        mark = Text(MARK_BLOCKS, style="bold reverse")
    else:
        mark = Text(MARK_NOTE, style="dim")
    out = Text.assemble(mark, " ", literal(plain_words(fact.label), style="bold"), ": ")
    out.append_text(literal(plain_words(fact.detail), max_len=300))
    return out


def title_text(request: GateRequest) -> Text:
    keys = "type the code, then enter" if request.confirm_code is not None else "y confirm"
    return Text.assemble((ACTION_TITLES.get(request.action, request.action), "bold"),
                         (f"   {keys} · esc back out", "dim"))


def about_text(request: GateRequest) -> Text:
    about = Text("deal ")
    about.append_text(literal(request.deal_id, max_len=70))
    if request.contract:
        about.append("\ncontract ")
        about.append_text(literal(request.contract, max_len=70))
    return about


def blockers_text(request: GateRequest) -> Text:
    out = Text("The engine will refuse this now:\n", style="bold")
    for reason in request.blockers:
        out.append(" - ")
        out.append_text(literal(plain_words(reason), max_len=300))
        out.append("\n")
    return out


def code_prompt(request: GateRequest) -> Text:
    """What to type, in the engine's words (`GateRequest.prompt`)."""
    return literal(request.prompt or "Type the code to confirm:", max_len=300)


class GateScreen(DeliberateKeys, Dialog[Any]):
    """Dismisses with the engine's result on success, or None when the operator backs out."""

    REFRESH_SECONDS = 1.0

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back out", id="gate.cancel"),
        Binding("y", "confirm", "Confirm", id="gate.confirm"),
    ]

    DEFAULT_CSS = """
    GateScreen { align: center middle; }
    GateScreen > Vertical {
        width: 90%; max-width: 96; height: auto; max-height: 100%; overflow-y: auto;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    GateScreen #gate-title { text-style: bold; height: auto; }
    GateScreen #gate-facts { height: auto; max-height: 12; }
    GateScreen #gate-blockers { color: $error; height: auto; }
    GateScreen #gate-refused, GateScreen #gate-recheck, GateScreen #gate-code-wrong {
        color: $error; text-style: bold; height: auto;
    }
    GateScreen #gate-code { width: 1fr; }
    /* Docked, so however many facts and blockers the engine states, the buttons stay on a
       small terminal's screen and the rest scrolls above them. */
    GateScreen #gate-buttons {
        dock: bottom; height: auto; align-horizontal: right; margin-top: 1;
    }
    GateScreen Button { margin: 0 0 0 2; min-width: 12; }
    """

    def __init__(self, request: GateRequest, perform: Perform, *,
                 refresh: Refresh | None = None) -> None:
        super().__init__()
        self.request = request
        self._perform = perform
        self._refresh = refresh
        self.refusal: str | None = None
        # Why the last re-fetch failed; while set, Confirm stays off (fail closed).
        self.recheck_error: str | None = None

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical():
            yield Static(title_text(request), id="gate-title")
            yield Static(about_text(request), id="gate-about")
            with VerticalScroll(id="gate-facts"):
                for fact in request.facts:
                    yield Static(fact_text(fact), classes="gate-fact")
            blockers = Static(blockers_text(request), id="gate-blockers")
            blockers.display = bool(request.blockers)
            yield blockers
            late = Checkbox(LATE_ACK, id="gate-late")
            late.display = request.late
            yield late
            needs_code = request.confirm_code is not None
            prompt = Static(code_prompt(request), id="gate-code-prompt")
            prompt.display = needs_code
            yield prompt
            code = CalmInput(placeholder="confirmation code", id="gate-code", max_length=16,
                             compact=True)
            code.display = needs_code
            yield code
            wrong = Static(Text(""), id="gate-code-wrong")
            wrong.display = False
            yield wrong
            recheck = Static(Text(""), id="gate-recheck")
            recheck.display = False
            yield recheck
            yield Static(Text(""), id="gate-refused")
            with Horizontal(id="gate-buttons"):
                yield CalmButton("Back out", id="gate-cancel", compact=True)
                yield CalmButton("Confirm", id="gate-confirm", variant="warning", disabled=True,
                                 compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._sync()
        if self.request.confirm_code is not None:
            self.query_one("#gate-code", Input).focus()
        else:
            self.query_one("#gate-cancel", Button).focus()
        if self._refresh is not None:
            self.set_interval(self.REFRESH_SECONDS, self.refresh_request)

    # -- the engine's answer --------------------------------------------------------------------

    def refresh_request(self) -> None:
        """Ask the engine again and show its newest answer (never while a confirm runs)."""
        if self._refresh is None or self.busy:
            return
        try:
            fresh = self._refresh()
            if not isinstance(fresh, GateRequest):
                raise TypeError("the engine's answer is not a GateRequest")
            if (fresh.action, fresh.deal_id) != (self.request.action, self.request.deal_id):
                raise GateRefused("the engine answered for another action or deal")
        except Exception as exc:
            self._show_recheck(describe_error(exc))
            self._sync()
            return
        self._show_recheck(None)
        self._show_request(fresh)
        self._sync()

    def _show_request(self, fresh: GateRequest) -> None:
        old, self.request = self.request, fresh
        if fresh == old:
            return
        self.query_one("#gate-title", Static).update(title_text(fresh))
        self.query_one("#gate-about", Static).update(about_text(fresh))
        if fresh.facts != old.facts:
            facts = self.query_one("#gate-facts", VerticalScroll)
            facts.remove_children()
            facts.mount_all([Static(fact_text(fact), classes="gate-fact")
                             for fact in fresh.facts])
        blockers = self.query_one("#gate-blockers", Static)
        blockers.update(blockers_text(fresh))
        blockers.display = bool(fresh.blockers)
        late = self.query_one("#gate-late", Checkbox)
        if not (fresh.late and old.late):
            # A reveal that has just become late needs a fresh, deliberate tick.
            late.value = False
        late.display = fresh.late
        needs_code = fresh.confirm_code is not None
        prompt = self.query_one("#gate-code-prompt", Static)
        prompt.update(code_prompt(fresh))
        prompt.display = needs_code
        self.query_one("#gate-code", Input).display = needs_code

    def _show_recheck(self, problem: str | None) -> None:
        self.recheck_error = problem
        text = Text("") if problem is None else Text.assemble(
            Text("Could not re-check with the engine: ", style="bold"), literal(problem))
        recheck = self.query_one("#gate-recheck", Static)
        recheck.update(text)
        recheck.display = problem is not None

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
        if request.blockers or not self.idle or self.recheck_error is not None:
            return False
        if request.confirm_code is not None:
            typed = self.typed_code or ""
            if typed.lower() != request.confirm_code.lower():
                return False
        return not (request.late and not self.acknowledged)

    def code_is_wrong(self) -> bool:
        """A full-length code that does not match: said at once, not only by a dim button."""
        code = self.request.confirm_code
        typed = self.typed_code or ""
        return code is not None and len(typed) >= len(code) and typed.lower() != code.lower()

    def _sync(self) -> None:
        wrong = self.query_one("#gate-code-wrong", Static)
        if self.code_is_wrong():
            wrong.update(Text("That is not the code: check the digits shown above."))
            wrong.display = True
        else:
            wrong.display = False
        self.query_one("#gate-confirm", Button).disabled = not self.ready()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows `y` dimmed while Confirm is off."""
        if action == "confirm":
            try:
                return True if self.ready() else None
            except NoMatches:  # asked before the fields exist
                return None
        return True

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

    def _confirm(self) -> None:
        request, typed, late = self.request, self.typed_code, self.acknowledged
        self._show_refusal(None)
        self.answer(lambda: self._perform(request, typed, late), self._refused)

    def _refused(self, exc: BaseException) -> None:
        self._show_refusal(describe_error(exc))
        # The refusal often means the answer changed: show the engine's answer now.
        self.refresh_request()

    def busy_changed(self) -> None:
        self._sync()

    def _show_refusal(self, reason: str | None) -> None:
        self.refusal = reason
        text = Text("") if reason is None else Text.assemble(
            Text("Refused: ", style="bold"), literal(reason))
        self.query_one("#gate-refused", Static).update(text)
