"""What the app offers, listed: the command palette's entries and the help screen's sections.

Both are read from the app's state when asked (the panes it shows, the selected deal's valid
actions, the themes it has, the keys as the keymap bound them), so neither can list something
the app would refuse. A palette entry that moves between panes runs only where the pane keys
could: never underneath a dialog.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from tclk_tui.tui.approvals_pane import ApprovalsPane
from tclk_tui.tui.arb_cases import CasesForm
from tclk_tui.tui.arbitration_pane import SECTIONS, ArbitrationPane
from tclk_tui.tui.board_filter import SORT_COLUMNS, sort_by
from tclk_tui.tui.board_pane import BoardPane
from tclk_tui.tui.commands import PaletteCommand, engine_command
from tclk_tui.tui.controllers.base import Controller
from tclk_tui.tui.deal_room import DealRoomPane
from tclk_tui.tui.formatting import short_hex
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.help_screen import HelpSection
from tclk_tui.tui.key_scopes import bindings_of, textual_app_bindings
from tclk_tui.tui.keymap import KEYMAP_FILE, as_bindings
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.offer_table import OfferTable
from tclk_tui.tui.panes import PANE_BY_ID, PANES
from tclk_tui.tui.vault_pane import VaultPane


class PaletteController(Controller):
    """The palette's commands and the help screen's sections, for the app as it is now."""

    def commands(self) -> list[PaletteCommand]:
        app = self.app
        cmds = [PaletteCommand(f"Show {pane.label.lower()}", f"Switch to the {pane.label} pane "
                               f"(key {app.keys_display(pane.binding())})",
                               partial(self.on_main_screen,
                                       partial(app.action_show_pane, pane.id)),
                               name=pane.label)
                for pane in app.panes]
        board = app.board_pane
        cmds += [
            engine_command("offer", app.action_new_offer, title="New offer"),
            engine_command("accept", board.action_accept, title="Accept highlighted offer"),
            PaletteCommand("Filter offers", "Focus the board filter",
                           partial(self.on_main_screen, self._filter)),
            PaletteCommand("Show rejected board lines", "Counts of refused lines by reason",
                           app.action_rejected),
            PaletteCommand("Reverse sort order", "Flip the board's sort direction",
                           board.action_reverse_sort),
        ]
        for key, label in SORT_COLUMNS:
            cmds.append(PaletteCommand(f"Sort offers by {label}", "Sort the board",
                                       partial(self._sort, key)))
        view = app.deal_room.view
        if view is not None:
            for action in sorted(view.actions):
                cmds.append(engine_command(action,
                                           partial(app.deals.run_deal_action, action,
                                                   view.deal_id),
                                           target=f"deal {short_hex(view.deal_id)}"))
        cmds += [
            PaletteCommand("Back up master seed", "Show the seed once, behind a confirm",
                           app.action_backup_seed),
            PaletteCommand("Restore master seed", "Restore from a backup",
                           app.action_restore_seed),
            PaletteCommand("Show highlighted secret", "Reveal one secret behind a typed code",
                           app.vault.reveal_highlighted),
        ]
        for name, label in SECTIONS:
            cmds.append(PaletteCommand(f"Arbitration: {label.lower()}", "Open the arbiter desk",
                                       partial(self.on_main_screen,
                                               partial(self._arbitration, name)),
                                       name=label))
        for name in app.theme_names:
            cmds.append(PaletteCommand(f"Theme: {name}", "Switch theme (remembered)",
                                       partial(app.action_set_theme, name), name=name))
        cmds += [
            PaletteCommand("Keys and help", "List every key binding", app.action_help),
            PaletteCommand("Quit", "Leave the app (the engine keeps its journal)",
                           app.action_quit),
        ]
        return cmds

    def on_main_screen(self, run: Callable[[], object]) -> None:
        """Run a palette entry that moves between panes only if the pane keys could: the
        palette can be opened over a dialog, and nothing may change underneath it."""
        if self.app.check_action("show_pane", ()):
            run()
        else:
            self.say("close the dialog first", "warning")

    def _filter(self) -> None:
        self.app.action_show_pane("board")
        self.app.board_pane.action_focus_filter()

    def _sort(self, key: str) -> None:
        board = self.app.board_pane
        query = board.board_query
        if query.sort != key:
            board.set_query(sort_by(query, key))

    def _arbitration(self, name: str) -> None:
        self.app.action_show_pane("arbitration")
        self.app.query_one(ArbitrationPane).show_section(name)

    # -- help ---------------------------------------------------------------------------------

    def help_sections(self) -> list[HelpSection]:
        """Each place's keys, as bound: the help screen writes them through the keymap."""
        app = self.app
        shown = {pane.id for pane in app.panes}
        hidden = {pane.binding_id for pane in PANES if pane.id not in shown}
        approvals = PANE_BY_ID["approvals"]
        dialog = {b.id: b for b in bindings_of(GateScreen, OfferFormScreen)}
        return [
            ("Everywhere", [*(b for b in as_bindings(app.BINDINGS) if b.id not in hidden),
                            *(b for b in textual_app_bindings() if b.description)]),
            ("Offers board", bindings_of(BoardPane, OfferTable)),
            ("Deal room (only the actions valid now are active)", bindings_of(DealRoomPane)),
            ("Vault", bindings_of(VaultPane)),
            ("Arbiter: cases (deals naming this wallet as arbiter or juror)",
             bindings_of(CasesForm)),
            *([(f"Approvals ({app.keys_display(approvals.binding())}): agents' calls waiting "
                f"for you", bindings_of(ApprovalsPane))] if "approvals" in shown else []),
            # Dialogs' keys are fixed (key_scopes.fixed_ids): a confirm key is guarded, so
            # no id is shown for a keymap file to name.
            ("Dialogs (these keys stay as they are)", [
                replace(dialog["gate.cancel"], description="Back out / close", id=None),
                replace(dialog["gate.confirm"], id=None,
                        description="Confirm / accept (when no code is asked)"),
                replace(dialog["offer_form.post"], description="Post (offer form)", id=None)]),
        ]

    def keymap_note(self) -> str:
        keymap_file = self.app.keymap_file
        where = str(keymap_file) if keymap_file is not None else KEYMAP_FILE
        return (f"To move a key, name its id (the right column) in {where}, e.g. "
                f'"board.new_offer" = "o"; several keys are separated by commas. Tab, '
                f"ctrl+q and dialogs' keys stay as they are.")
