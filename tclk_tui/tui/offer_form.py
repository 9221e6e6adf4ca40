"""The new-offer form: validated by the engine on every keystroke, posted only when clean.

The form never decides what a valid offer is; it calls `validate(draft)` (the wallet's
`validate_offer_draft`) on every change and shows each `FieldProblem` under its field once the
operator has touched that field (a form that opens covered in errors reads as broken). Post
stays off while any problem remains, touched or not; asking to post shows them all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import fields
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Select, Static

from tclk_tui.engine.views import DealView, FieldProblem, OfferDraft
from tclk_tui.engine.words import field_word, plain_words, rehearsal_rails
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.key_desk import release_keys
from tclk_tui.tui.safe import literal

Validate = Callable[[OfferDraft], list[FieldProblem]]
Post = Callable[[OfferDraft], Awaitable[DealView]]

TEXT_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("amount", "amount", "integer, rail-native minimal units"),
    ("asset", "asset", "e.g. FLOP"),
    ("rails", "rails", f"comma-separated; {' and '.join(rehearsal_rails())} settle nothing"),
    ("claim_in_s", "claim in (s)", "seconds until claim by"),
    ("refund_gap_s", "refund gap (s)", "seconds from claim by to refund after"),
    ("expires_in_s", "expires in (s)", "seconds the offer stays open"),
    ("job", "job", "optional proto:id"),
    ("panel", "arbiter/panel", "optional: the arbiter's DID, or jurors' DIDs comma-separated"),
)
SELECT_FIELDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("role", "I am the", ("payer", "payee")),
    ("lock", "lock", ("hash", "point")),
)
DRAFT_FIELDS = frozenset(f.name for f in fields(OfferDraft))


class OfferFormScreen(DeliberateKeys, Dialog[DealView | None]):
    """Takes what is typed ahead of it (`n1000` Tab `FLOP` ...) into its fields; only Ctrl+S,
    which posts, waits for the form to have been read."""

    CONFIRM_KEYS = frozenset({"ctrl+s"})
    TAKES_TYPING_AHEAD = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back out", id="offer_form.cancel"),
        Binding("ctrl+s", "post", "Post offer", id="offer_form.post"),
    ]

    DEFAULT_CSS = """
    OfferFormScreen { align: center middle; }
    OfferFormScreen > Vertical {
        width: 90%; max-width: 90; height: 90%; max-height: 30;
        border: round $primary; background: $surface; padding: 0 1;
    }
    OfferFormScreen .form-row { height: 1; }
    OfferFormScreen .form-label { width: 16; }
    OfferFormScreen .form-row > Input, OfferFormScreen .form-row > Select { width: 1fr; }
    OfferFormScreen .form-problem { color: $error; height: auto; padding-left: 16; }
    OfferFormScreen #form-general { color: $error; height: auto; }
    OfferFormScreen #form-buttons { height: auto; align-horizontal: right; }
    OfferFormScreen Button { margin-left: 2; }
    """

    def __init__(self, validate: Validate, post: Post,
                 draft: OfferDraft | None = None) -> None:
        super().__init__()
        self._validate = validate
        self._post = post
        self._initial = draft or OfferDraft()
        self.problems: list[FieldProblem] = []
        self.touched: set[str] = set()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("New offer (checked as you type; Ctrl+S posts)", style="bold"))
            with VerticalScroll(id="form-fields"):
                for name, label, options in SELECT_FIELDS:
                    with Horizontal(classes="form-row"):
                        yield Static(Text(label), classes="form-label")
                        yield Select([(Text(o), o) for o in options],
                                     value=getattr(self._initial, name), allow_blank=False,
                                     id=f"field-{name}", compact=True)
                    yield Static(Text(""), id=f"problem-{name}", classes="form-problem")
                for name, label, hint in TEXT_FIELDS:
                    with Horizontal(classes="form-row"):
                        yield Static(Text(label), classes="form-label")
                        yield CalmInput(value=getattr(self._initial, name), placeholder=hint,
                                        id=f"field-{name}", compact=True)
                    yield Static(Text(""), id=f"problem-{name}", classes="form-problem")
            yield Static(Text(""), id="form-general")
            with Horizontal(id="form-buttons"):
                yield CalmButton("Back out", id="form-cancel", compact=True)
                yield CalmButton("Post offer", id="form-post", variant="primary", disabled=True,
                                 compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._revalidate()
        # Focus at once (not after the next refresh), then take the keys typed ahead.
        self.set_focus(self.query_one("#field-amount", Input))
        release_keys(self.app)

    def draft(self) -> OfferDraft:
        values: dict[str, Any] = {}
        for name, _, _ in SELECT_FIELDS:
            values[name] = str(self.query_one(f"#field-{name}", Select).value)
        for name, _, _ in TEXT_FIELDS:
            values[name] = self.query_one(f"#field-{name}", Input).value
        return OfferDraft(**values)

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self, event: Input.Changed | Select.Changed) -> None:
        widget = event.input if isinstance(event, Input.Changed) else event.select
        name = (widget.id or "").removeprefix("field-")
        if name in DRAFT_FIELDS and event.value != getattr(self._initial, name):
            self.touched.add(name)
        self._revalidate()

    def _revalidate(self) -> None:
        try:
            problems = list(self._validate(self.draft()))
        except Exception as exc:
            problems = [FieldProblem("", describe_error(exc))]
        self.problems = problems
        by_field: dict[str, list[str]] = {}
        general: list[str] = []
        for problem in problems:
            if problem.field in DRAFT_FIELDS:
                by_field.setdefault(problem.field, []).append(problem.message)
            else:
                label = f"{field_word(problem.field)}: " if problem.field else ""
                general.append(label + problem.message)
        for name in DRAFT_FIELDS:
            messages = by_field.get(name, []) if name in self.touched else []
            widget = self.query_one(f"#problem-{name}", Static)
            widget.update(literal(plain_words("; ".join(messages))))
            widget.display = bool(messages)
        self.query_one("#form-general", Static).update(literal(plain_words("\n".join(general))))
        self.query_one("#form-post", Button).disabled = bool(problems) or not self.idle

    @on(Button.Pressed, "#form-cancel")
    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)

    @on(Button.Pressed, "#form-post")
    def action_post(self) -> None:
        if self.problems:
            self.touched.update(DRAFT_FIELDS)
            self._revalidate()
        elif self.idle:
            draft = self.draft()
            self.answer(lambda: self._post(draft), self._refused)

    def _refused(self, exc: BaseException) -> None:
        self.query_one("#form-general", Static).update(
            Text.assemble(Text("Not posted: ", style="bold"), literal(describe_error(exc))))

    def busy_changed(self) -> None:
        self.query_one("#form-post", Button).disabled = bool(self.problems) or not self.idle
