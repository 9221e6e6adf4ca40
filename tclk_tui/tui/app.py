"""The terminal app: the composition root of four panes over one wallet.

The wiring is deliberately thin. The app builds the panes' widgets and one controller per pane
(`tui/controllers/`), routes Textual's messages, keys and timers to them, and owns what every
pane uses: what the operator reads (`say`, `report`) and the one way a dialog opens
(`open_dialog`). Engine events arrive on one subscription and are drained in batches (the
events controller); operator actions become engine calls in the controller of their pane, and
every gated one goes through `GateScreen`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import Footer, TabbedContent, TabPane

from tclk_tui.engine.door import Door
from tclk_tui.engine.inert import clean_lines
from tclk_tui.tui.approvals_pane import ApprovalsPane
from tclk_tui.tui.arbitration_pane import ArbitrationPane
from tclk_tui.tui.board_pane import BoardPane
from tclk_tui.tui.calm_palette import CalmPalette
from tclk_tui.tui.commands import PaletteCommand, TclkCommands
from tclk_tui.tui.controllers.approvals import ApprovalsController
from tclk_tui.tui.controllers.board import BoardController
from tclk_tui.tui.controllers.deals import DealsController
from tclk_tui.tui.controllers.events import EventsController
from tclk_tui.tui.controllers.palette import PaletteController
from tclk_tui.tui.controllers.vault import FIRST_RUN_SECONDS, VaultController
from tclk_tui.tui.deal_room import DealRoomPane
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.header_bar import HeaderBar
from tclk_tui.tui.help_screen import HelpScreen, HelpSection
from tclk_tui.tui.key_desk import KeyDesk
from tclk_tui.tui.key_scopes import APP_BINDINGS, binding_scopes, fixed_ids
from tclk_tui.tui.keymap import binding_keys, load_keymap
from tclk_tui.tui.offer_table import OfferTable
from tclk_tui.tui.pane_tabs import PaneTabs
from tclk_tui.tui.panes import PANE_BY_ID, PANES, Pane
from tclk_tui.tui.safe import clean
from tclk_tui.tui.themes import DEFAULT_THEME, FALLBACK_THEME, load_themes
from tclk_tui.tui.transcript_table import TranscriptTable
from tclk_tui.tui.vault_pane import VaultPane


def _no_op(_name: str) -> None:
    return None


class TclkApp(KeyDesk):
    """The composition root: the panes' widgets, their controllers, and what routes to them."""

    TITLE = "tclk-tui"
    CSS_PATH = "app.tcss"
    COMMANDS: ClassVar[set[Any]] = {TclkCommands}
    TICK_SECONDS = 1.0

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    def __init__(self, door: Door, *, theme: str | None = None,
                 clock_ms: Callable[[], int] | None = None,
                 on_theme_change: Callable[[str], None] | None = None,
                 themes_dir: Path | None = None, agents: Any = None,
                 keymap_file: Path | None = None, user_themes_dir: Path | None = None,
                 first_run: bool = False, welcome: str = "") -> None:
        super().__init__()
        self.first_run = first_run
        self.welcome = welcome  # said once the app is up (the demo: how to reach it)
        # The operator's keymap file (`keymap.toml` in the config folder), when given: what
        # can be applied safely is, every other entry is reported once the app is up.
        loaded_keys = load_keymap(keymap_file, binding_scopes(), fixed_ids())
        self.keymap_file = keymap_file
        self.keymap: dict[str, str] = loaded_keys.keymap
        self.keymap_problems = loaded_keys.problems
        self.set_keymap(self.keymap)
        # The agents' desk (approvals, audit trail), when the wallet serves agents.
        self.agents = agents
        self.animation_level = "none"
        # The engine, through its one door: registry commands and read-only views.
        self.door = door
        self.clock_ms: Callable[[], int] = clock_ms or door.now_ms
        self._on_theme_change = on_theme_change or _no_op
        loaded = load_themes(themes_dir, user_themes_dir)
        self.theme_problems = loaded.problems
        for item in loaded.themes:
            self.register_theme(item)
        self.theme_names: tuple[str, ...] = tuple(t.name for t in loaded.themes) or (
            FALLBACK_THEME, "textual-light")
        self._theme_missing = theme if theme and theme not in self.available_themes else None
        if theme and theme in self.available_themes:
            self.theme = theme
        elif DEFAULT_THEME in self.available_themes:
            self.theme = DEFAULT_THEME
        else:
            self.theme = FALLBACK_THEME
        # One controller per pane, plus the event stream's and the palette's.
        self.events = EventsController(self)
        self.board = BoardController(self)
        self.deals = DealsController(self)
        self.vault = VaultController(self)
        self.approvals = ApprovalsController(self)
        self.palette = PaletteController(self)

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        door = self.door
        yield HeaderBar(profile=door.profile, did=door.did, venue_url=door.venue_url,
                        clock_ms=self.clock_ms, approvals=self.agents is not None, id="header")
        with PaneTabs(id="panes", initial="board"):
            for pane in self.panes:
                with TabPane(self.pane_title(pane), id=pane.id):
                    yield self._pane_widget(pane.id)
        yield Footer(id="footer", compact=True)

    @property
    def panes(self) -> tuple[Pane, ...]:
        """The panes this app shows: Approvals only when the wallet serves agents."""
        return tuple(pane for pane in PANES if self.agents is not None or not pane.agents_only)

    def _pane_widget(self, pane: str) -> Widget:
        if pane == "board":
            return BoardPane(clock_ms=self.clock_ms, id="board-pane")
        if pane == "deals":
            return DealRoomPane(clock_ms=self.clock_ms, own_did=self.door.did, id="deal-room")
        if pane == "vault":
            return VaultPane(id="vault-pane")
        if pane == "arbitration":
            return ArbitrationPane(self.door, id="arbitration-pane")
        return ApprovalsPane(id="approvals-pane")

    def keys_display(self, binding: Binding) -> str:
        """The keys `binding` answers to, after the keymap, as the footer writes them."""
        return ",".join(self.get_key_display(binding.with_key(key))
                        for key in binding_keys(binding, self.keymap))

    def pane_title(self, pane: Pane) -> str:
        return f"{self.keys_display(pane.binding())} {pane.label}"

    @property
    def board_pane(self) -> BoardPane:
        return self.query_one(BoardPane)

    @property
    def deal_room(self) -> DealRoomPane:
        return self.query_one(DealRoomPane)

    @property
    def vault_pane(self) -> VaultPane:
        return self.query_one(VaultPane)

    @property
    def active_pane(self) -> str:
        return str(self.query_one("#panes", TabbedContent).active)

    # -- what the operator reads ----------------------------------------------------------------

    def say(self, text: str, severity: str = "information") -> None:
        """Every message the app shows goes through here: literal text, never markup."""
        self.notify(text, severity=severity, markup=False)  # type: ignore[arg-type]

    def report(self, what: str, exc: BaseException, severity: str = "error") -> None:
        """An engine call failed: what the operator tried, then the engine's reason."""
        self.say(f"{what}: {describe_error(exc)}", severity)

    def open_dialog(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
                    ) -> bool:
        """Open a dialog over the main screen only: a second one on top (from a key that
        reached the pane underneath, or the palette) could post something while the first
        still waits for an answer. Textual gives focus back where it was when it closes."""
        if self.screen is not self.default_screen:
            self.say("close the dialog first", "warning")
            self.release_keys()  # a key that asked for this dialog held the keys after it
            return False
        self.push_screen(screen, callback)
        return True

    def _fatal_error(self) -> None:
        """Exit after an unhandled exception without printing local variables.

        Textual's own crash report renders every frame's locals, which could put a secret held
        by a caller on the screen or in a terminal's scrollback. The type, message and frames
        are enough to report a bug. Textual offers no public hook for its crash report, so this
        overrides the one it calls; the report itself goes out through the public `panic`.
        """
        from rich.traceback import Traceback

        self.bell()
        self.panic(Traceback(show_locals=False, width=None))

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        # Subscribe before the first reads so nothing published in between is missed.
        queue = self.door.events.subscribe()
        self.events.show_venue_status(self.door.venue_status)
        self.events.guarded("reading the board", self.board.requery_board)
        self.events.guarded("reading deals", self.deals.refresh_deals)
        self.vault.refresh_vault()
        self.query_one(OfferTable).focus()
        self.events.follow(queue)
        self.set_interval(self.TICK_SECONDS, self.events.tick)
        if self.agents is not None:
            self.agents.subscribe(lambda: self.call_later(self.approvals.refresh_approvals))
            self.approvals.refresh_approvals()
        if self._theme_missing:
            self.say(f"theme {clean(self._theme_missing, max_len=40)} not found; "
                     f"using {self.theme}", "warning")
        for problem in self.theme_problems:
            self.say(f"theme file refused: {clean(problem, max_len=200)}", "warning")
        for problem in self.keymap_problems:
            self.say(f"keymap: {clean(problem, max_len=300)}", "warning")
        if self.first_run:
            self.vault.first_run_notice()
        if self.welcome:
            self.notify(clean_lines(self.welcome), title="welcome", markup=False,
                        timeout=FIRST_RUN_SECONDS)
        self.events.show_alerts()  # what was raised while no screen was attached

    # -- panes' messages and keys, handed to their controllers --------------------------------

    @on(BoardPane.QueryChanged)
    def _query_changed(self) -> None:
        self.board.requery_board()

    @on(BoardPane.OfferChosen)
    def _offer_chosen(self, event: BoardPane.OfferChosen) -> None:
        self.board.offer_chosen(event.row)

    @on(BoardPane.AcceptRequested)
    def _accept_requested(self, event: BoardPane.AcceptRequested) -> None:
        self.board.accept_requested(event.row)

    @on(BoardPane.NewOfferRequested)
    def action_new_offer(self) -> None:
        self.board.new_offer()

    @on(BoardPane.RejectedRequested)
    def action_rejected(self) -> None:
        self.board.rejected()

    @on(DealRoomPane.DealSelected)
    def _deal_selected(self, event: DealRoomPane.DealSelected) -> None:
        self.deals.deal_selected()

    @on(DealRoomPane.ActionRequested)
    def _deal_action(self, event: DealRoomPane.ActionRequested) -> None:
        self.deals.run_deal_action(event.action, event.view.deal_id)

    @on(DealRoomPane.ActionNotValid)
    def _deal_action_not_valid(self, event: DealRoomPane.ActionNotValid) -> None:
        self.deals.explain_not_valid(event.action, event.view)

    @on(TranscriptTable.RecordChosen)
    def _record_chosen(self, event: TranscriptTable.RecordChosen) -> None:
        self.deals.show_record(event.record)

    @on(VaultPane.BackupRequested)
    def action_backup_seed(self) -> None:
        self.vault.backup_seed()

    @on(VaultPane.RestoreRequested)
    def action_restore_seed(self) -> None:
        self.vault.restore_seed()

    @on(VaultPane.RevealRequested)
    def _reveal_requested(self, event: VaultPane.RevealRequested) -> None:
        self.vault.reveal_secret(event.secret)

    @on(ApprovalsPane.ApproveRequested)
    def _approve_requested(self, event: ApprovalsPane.ApproveRequested) -> None:
        self.approvals.approve(event.approval_id)

    @on(ApprovalsPane.DenyRequested)
    def _deny_requested(self, event: ApprovalsPane.DenyRequested) -> None:
        self.approvals.deny(event.approval_id)

    def copy_to_clipboard(self, text: str) -> None:
        """Refuse whenever a secret is on screen or in the focused field."""
        if not self.vault.refuses_clipboard():
            super().copy_to_clipboard(text)

    def action_venue_status(self) -> None:
        self.events.say_venue_status()

    # -- panes, themes, help ------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Pane keys act on the main screen only, never underneath an open dialog, and only
        for the panes this app shows."""
        if action != "show_pane":
            return True
        if parameters and parameters[0] not in {pane.id for pane in self.panes}:
            return False
        return self.screen is self.default_screen

    def action_show_pane(self, name: str) -> None:
        tabs = self.query_one("#panes", TabbedContent)
        tabs.active = name
        self._focus_pane(name)

    @on(TabbedContent.TabActivated, "#panes")
    def _pane_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id or ""
        if not self.default_screen.query(DealRoomPane):
            return  # a tab message still queued while the app closes: the panes are gone
        if pane == "vault":
            self.vault.refresh_vault()
        elif pane == "deals":
            self.deals.refresh_deals()
        elif pane == "approvals":
            self.approvals.refresh_approvals()

    @on(PaneTabs.Chosen)
    def _pane_chosen(self, event: PaneTabs.Chosen) -> None:
        """A tab chosen on the strip (mouse or arrows) hands focus to its pane, as the number
        keys do, so the pane's keys work at once."""
        if self.screen is self.default_screen:
            self._focus_pane(event.pane)

    def _focus_pane(self, name: str) -> None:
        pane = PANE_BY_ID.get(name)
        # Focus is a convenience; a pane without its target widget is harmless. It moves at
        # once (Widget.focus waits for the next message), so the next key of a burst such as
        # "3b" already reaches the pane it switched to.
        for selector in pane.focus if pane is not None else ():
            with contextlib.suppress(NoMatches):
                self.screen.set_focus(self.query_one(selector))
                return

    def _theme_changed(self, theme: Theme) -> None:
        self.say(f"Theme: {clean(theme.name, max_len=40)}")
        try:
            self._on_theme_change(theme.name)
        except Exception as exc:
            self.report("could not remember the theme", exc, "warning")

    def action_next_theme(self) -> None:
        names = self.theme_names
        index = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(index + 1) % len(names)]

    def action_set_theme(self, name: str) -> None:
        if name in self.available_themes:
            self.theme = name

    def action_command_palette(self) -> None:
        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(CalmPalette(id="--command-palette"))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.help_sections(), self.keys_display,
                                        self.palette.keymap_note()))

    def help_sections(self) -> list[HelpSection]:
        return self.palette.help_sections()

    def palette_commands(self) -> list[PaletteCommand]:
        """What `TclkCommands` lists: the palette controller's entries, read now."""
        return self.palette.commands()
