"""Every key binding, grouped by where it works, built from the bindings themselves.

The keys shown are the ones bound, written as the footer writes them (`App.get_key_display`),
after the operator's keymap file moved any: help never lists a key that does something else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Footer, Static

from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.keymap import TWIN_SUFFIX, as_bindings

HelpSection = tuple[str, Sequence[BindingType]]
# How the app writes one binding's keys once its keymap is applied (`TclkApp.keys_display`).
KeysDisplay = Callable[[Binding], str]


def help_text(sections: Iterable[HelpSection], keys_display: KeysDisplay,
              note: str = "") -> Text:
    out = Text(end="")
    for title, bindings in sections:
        out.append(f"{title}\n", style="bold underline")
        for binding in as_bindings(bindings):
            if binding.id and binding.id.endswith(TWIN_SUFFIX):
                continue  # a deal key's twin, which says why: the key is listed once
            description = binding.description or binding.action
            out.append(f"  {keys_display(binding):<12}")
            out.append(f"{description:<24}")
            # The id is what the keymap file names to move the key.
            out.append(f"{binding.id or ''}\n", style="dim")
        out.append("\n")
    if note:
        out.append(note, style="dim")
    return out


class HelpScreen(Dialog[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close", id="help.close"),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90%; max-width: 80; height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen VerticalScroll { height: 1fr; }
    """

    def __init__(self, sections: Sequence[HelpSection], keys_display: KeysDisplay,
                 note: str = "") -> None:
        super().__init__()
        self.sections = tuple(sections)
        self._keys_display = keys_display
        self._note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Keys (Esc closes; Ctrl+P opens the command palette)",
                              style="bold"))
            with VerticalScroll(id="help-scroll"):
                yield Static(help_text(self.sections, self._keys_display, self._note),
                             id="help-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
