"""Every key binding of the app by where it answers, for the keymap file and the help screen.

The app's own keys answer everywhere; a pane's keys answer while focus is inside that pane,
together with the keys of the Textual widgets it holds (a list's arrows, a table's Enter),
which a moved key must not land on either. Dialogs' keys are listed too, as fixed: their
confirm keys are guarded against typing through (`DeliberateKeys`), so they never move.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import DataTable, OptionList

from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.approvals_pane import ApprovalsPane
from tclk_tui.tui.arb_cases import CasesForm
from tclk_tui.tui.board_pane import BoardPane
from tclk_tui.tui.deal_room import DealRoomPane
from tclk_tui.tui.deny_screen import DenyScreen
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.help_screen import HelpScreen
from tclk_tui.tui.keymap import GLOBAL_SCOPE, as_bindings
from tclk_tui.tui.note_screen import HeartbeatScreen, ReceiptScreen
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.offer_table import OfferTable
from tclk_tui.tui.panes import PANES
from tclk_tui.tui.rejected_screen import RejectedScreen
from tclk_tui.tui.restore_screen import RestoreScreen
from tclk_tui.tui.secret_screen import SecretScreen
from tclk_tui.tui.vault_pane import VaultPane

FOCUS_NEXT = "focus.next"
FOCUS_PREVIOUS = "focus.previous"

APP_BINDINGS: list[BindingType] = [
    *(pane.binding() for pane in PANES),
    Binding("question_mark,f1", "help", "Help", id="app.help"),
    Binding("ctrl+t", "next_theme", "Theme", show=False, id="app.theme"),
    Binding("v", "venue_status", "Venue status in full", show=False, id="app.venue"),
    # Priority, so focus moves the moment the key arrives. As an ordinary binding, Tab
    # bubbles up through every container's queue before it runs, while the keys typed
    # after it are already being delivered to the field that still has focus: "FLOP",
    # Tab, "paper" typed quickly put "FLOPpaper" in one field.
    Binding("tab", "focus_next", "Next field", show=False, priority=True, id=FOCUS_NEXT),
    Binding("shift+tab", "focus_previous", "Previous field", show=False, priority=True,
            id=FOCUS_PREVIOUS),
]

DIALOGS: tuple[type[Screen[Any]], ...] = (
    GateScreen, AcceptScreen, ReceiptScreen, HeartbeatScreen, OfferFormScreen, DenyScreen,
    RestoreScreen, SecretScreen, RejectedScreen, HelpScreen)


def bindings_of(*holders: type[DOMNode]) -> list[Binding]:
    return [binding for holder in holders for binding in as_bindings(holder.BINDINGS)]


def textual_app_bindings() -> list[Binding]:
    """Keys Textual's App answers everywhere on its own (quit, the palette)."""
    return [*as_bindings(App.BINDINGS),
            Binding(App.COMMAND_PALETTE_BINDING, "command_palette", "Command palette")]


def binding_scopes() -> dict[str, list[Binding]]:
    """Every binding a keymap file may move, and every key it must not land on, by scope."""
    tables = [*as_bindings(DataTable.BINDINGS)]
    return {
        GLOBAL_SCOPE: [*as_bindings(APP_BINDINGS), *textual_app_bindings()],
        "board": bindings_of(BoardPane, OfferTable),
        "deals": [*bindings_of(DealRoomPane), *as_bindings(OptionList.BINDINGS), *tables],
        "vault": [*bindings_of(VaultPane), *tables],
        "approvals": [*bindings_of(ApprovalsPane), *tables],
        "arbitration": [*bindings_of(CasesForm), *tables],
    }


def fixed_ids() -> frozenset[str]:
    """Ids that keep their keys: every dialog's, and Tab's (a priority binding on a letter
    would take that letter from every text field)."""
    ids = {binding.id for binding in bindings_of(*DIALOGS) if binding.id}
    return frozenset({*ids, FOCUS_NEXT, FOCUS_PREVIOUS})
