"""Every key binding, grouped by where it works, built from the bindings themselves."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

HelpSection = tuple[str, Sequence[BindingType]]


def _as_bindings(items: Iterable[BindingType]) -> list[Binding]:
    out: list[Binding] = []
    for item in items:
        if isinstance(item, Binding):
            out.append(item)
        else:
            key, action, *rest = item
            out.append(Binding(key, action, rest[0] if rest else ""))
    return out


def key_label(key: str) -> str:
    names = {"slash": "/", "exclamation_mark": "!", "question_mark": "?", "escape": "esc",
             "pageup": "PgUp", "pagedown": "PgDn"}
    return ",".join(names.get(part, part) for part in key.split(","))


def help_text(sections: Iterable[HelpSection]) -> Text:
    out = Text(end="")
    for title, bindings in sections:
        out.append(f"{title}\n", style="bold underline")
        for binding in _as_bindings(bindings):
            description = binding.description or binding.action
            out.append(f"  {key_label(binding.key):<14}")
            out.append(f"{description}\n")
        out.append("\n")
    return out


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close"),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90%; max-width: 80; height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen VerticalScroll { height: 1fr; }
    """

    def __init__(self, sections: Sequence[HelpSection]) -> None:
        super().__init__()
        self.sections = tuple(sections)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Keys (Esc closes; Ctrl+P opens the command palette)",
                              style="bold"))
            with VerticalScroll(id="help-scroll"):
                yield Static(help_text(self.sections), id="help-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
