"""The terminal app: four panes over one wallet, every action one engine call.

The wiring is deliberately thin. Engine events arrive on one subscription, are drained in
batches (so a burst of board updates costs one repaint, not hundreds) and become widget
updates; operator actions become engine calls, and every gated one goes through `GateScreen`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, TabbedContent, TabPane

from tclk_tui.engine.events import (
    Alert,
    BoardChanged,
    DeadlineWarning,
    DealAdvanced,
    Event,
    Notice,
    VenueStatus,
)
from tclk_tui.engine.gates import GateRefused, GateRequest
from tclk_tui.engine.inert import clean_lines
from tclk_tui.engine.views import DealView, HeldSecret, OfferRow
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.approvals_pane import ApprovalsPane
from tclk_tui.tui.arb_cases import CasesForm
from tclk_tui.tui.arbitration_pane import SECTIONS, ArbitrationPane
from tclk_tui.tui.board_filter import SORT_COLUMNS, sort_by
from tclk_tui.tui.board_pane import BoardPane
from tclk_tui.tui.calm_palette import CalmPalette
from tclk_tui.tui.commands import PaletteCommand, TclkCommands, engine_command
from tclk_tui.tui.deal_room import ACTION_LABELS, GATED_ACTIONS, DealRoomPane
from tclk_tui.tui.deny_screen import DenyScreen
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.formatting import LEVEL_LABEL, countdown, short_hex, venue_text
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.header_bar import HeaderBar
from tclk_tui.tui.help_screen import HelpScreen, HelpSection
from tclk_tui.tui.key_desk import KeyDesk
from tclk_tui.tui.key_scopes import (
    APP_BINDINGS,
    binding_scopes,
    bindings_of,
    fixed_ids,
    textual_app_bindings,
)
from tclk_tui.tui.keymap import KEYMAP_FILE, as_bindings, binding_keys, load_keymap
from tclk_tui.tui.note_screen import HeartbeatScreen, ReceiptScreen
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.offer_table import OfferTable
from tclk_tui.tui.pane_tabs import PaneTabs
from tclk_tui.tui.panes import PANE_BY_ID, PANES, Pane
from tclk_tui.tui.ports import WalletPort
from tclk_tui.tui.record_screen import RecordScreen
from tclk_tui.tui.rejected_screen import RejectedScreen
from tclk_tui.tui.restore_screen import RestoreScreen
from tclk_tui.tui.safe import clean
from tclk_tui.tui.secret_screen import SecretScreen
from tclk_tui.tui.themes import DEFAULT_THEME, FALLBACK_THEME, load_themes
from tclk_tui.tui.transcript_table import TranscriptTable
from tclk_tui.tui.vault_pane import VaultPane
from tclk_tui.tui.venue_budget_text import budget_lines

SEVERITY = {"info": "information", "warning": "warning", "error": "error"}
SEED_WARNING = ("Write this down on paper now and keep it offline. Anyone who reads it can "
                "rebuild every secret of this profile. The Vault pane can show it again.")
SECRET_WARNING = "Anyone who reads this value can claim or prove this deal's lock."  # noqa: S105
FIRST_RUN_SECONDS = 60  # long enough to read, and to press 3 then b
LEVEL_SEVERITY = {"soon": "warning", "danger": "error", "past": "error"}


def _no_op(_name: str) -> None:
    return None


@contextlib.contextmanager
def _closing_quietly() -> Iterator[None]:
    """Messages and timers can still fire while the app tears its screen down; a pane that is
    already gone then has nothing to update."""
    try:
        yield
    except NoMatches:
        return


class TclkApp(KeyDesk):
    TITLE = "tclk-tui"
    CSS_PATH = "app.tcss"
    COMMANDS: ClassVar[set[Any]] = {TclkCommands}
    TICK_SECONDS = 1.0
    REQUERY_MIN_INTERVAL = 0.25

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    def __init__(self, wallet: WalletPort, *, theme: str | None = None,
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
        self.wallet = wallet
        self.clock_ms: Callable[[], int] = clock_ms or wallet.now_ms
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
        self._last_requery = 0.0
        self._requery_timer: Timer | None = None
        self._warned: dict[str, str] = {}
        self.events_applied = 0

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        wallet = self.wallet
        yield HeaderBar(profile=wallet.profile, did=wallet.did, venue_url=wallet.venue_url,
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
        wallet = self.wallet
        if pane == "board":
            return BoardPane(clock_ms=self.clock_ms, id="board-pane")
        if pane == "deals":
            return DealRoomPane(clock_ms=self.clock_ms, own_did=wallet.did, id="deal-room")
        if pane == "vault":
            return VaultPane(id="vault-pane")
        if pane == "arbitration":
            # The desk is optional so a wallet without one still opens every other pane.
            return ArbitrationPane(getattr(wallet, "arbitration", None), wallet=wallet,
                                   id="arbitration-pane")
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
        queue = self.wallet.events.subscribe()
        self.show_venue_status(self.wallet.venue_status)
        self._guarded("reading the board", self.requery_board)
        self._guarded("reading deals", self.refresh_deals)
        self.refresh_vault()
        self.query_one(OfferTable).focus()
        self._follow_events(queue)
        self.set_interval(self.TICK_SECONDS, self._tick)
        if self.agents is not None:
            self.agents.subscribe(lambda: self.call_later(self.refresh_approvals))
            self.refresh_approvals()
        if self._theme_missing:
            self.say(f"theme {clean(self._theme_missing, max_len=40)} not found; "
                     f"using {self.theme}", "warning")
        for problem in self.theme_problems:
            self.say(f"theme file refused: {clean(problem, max_len=200)}", "warning")
        for problem in self.keymap_problems:
            self.say(f"keymap: {clean(problem, max_len=300)}", "warning")
        if self.first_run:
            self._welcome()
        if self.welcome:
            self.notify(clean_lines(self.welcome), title="welcome", markup=False,
                        timeout=FIRST_RUN_SECONDS)
        self._show_alerts()  # what was raised while no screen was attached

    def _welcome(self) -> None:
        """A new profile: where its secrets are, and a nudge to back up the seed."""
        try:
            where = self.wallet.vault_status().backend
        except Exception as exc:
            where = f"a vault that cannot say where ({describe_error(exc)})"
        pane_key = self.keys_display(PANE_BY_ID["vault"].binding())
        backup_key = self.keys_display(next(binding for binding in VaultPane.BINDINGS
                                            if isinstance(binding, Binding)
                                            and binding.id == "vault.backup"))
        self.notify(f"New profile {clean(self.wallet.profile, max_len=40)}: its secrets are "
                    f"kept in {clean(where, max_len=160)}. Back up the master seed now: Vault "
                    f"pane ({pane_key}), then {backup_key}. That one backup restores this "
                    "identity and every live deal's secrets.", title="first run",
                    severity="warning", markup=False, timeout=FIRST_RUN_SECONDS)

    # -- engine events ------------------------------------------------------------------------

    @work(group="engine-events", exclusive=True)
    async def _follow_events(self, queue: asyncio.Queue[Event]) -> None:
        try:
            while True:
                batch: list[Event] = [await queue.get()]
                while True:
                    try:
                        batch.append(queue.get_nowait())
                    except asyncio.QueueEmpty:
                        break
                with _closing_quietly():
                    self._guarded("applying engine events", partial(self.apply_events, batch))
        finally:
            self.wallet.events.unsubscribe(queue)

    def _guarded(self, what: str, call: Callable[[], object]) -> None:
        """Run a screen update; a failure is reported and the app keeps following."""
        try:
            call()
        except NoMatches:
            raise
        except Exception as exc:
            self.report(f"{what} failed", exc)

    def apply_events(self, batch: Iterable[Event]) -> None:
        """Fold a batch of engine events into one round of widget updates."""
        added: set[str] = set()
        updated: set[str] = set()
        checking: int | None = None
        board_touched = False
        deals_touched = False
        alerted = False
        for event in batch:
            self.events_applied += 1
            if isinstance(event, BoardChanged):
                added.update(event.added)
                updated.update(event.updated)
                checking = event.checking if event.checking is not None else checking
                board_touched = True
            elif isinstance(event, DealAdvanced):
                deals_touched = True
            elif isinstance(event, DeadlineWarning):
                deals_touched = True
                self._warn_deadline(event)
            elif isinstance(event, VenueStatus):
                self.show_venue_status(event)
            elif isinstance(event, Alert):
                alerted = True
            elif isinstance(event, Notice):
                self.say(clean(event.text, max_len=400),
                         SEVERITY.get(event.level, "information"))
        if alerted:
            self._show_alerts()
        if board_touched:
            self._board_changed(added, updated - added, checking)
        if deals_touched:
            self.refresh_deals()
            if self.active_pane == "vault":
                self.refresh_vault()

    def _show_alerts(self) -> None:
        """Ring the bell and show each alert no face has shown yet (the engine raised it while
        we were away, or just now); each is shown once."""
        try:
            alerts = self.wallet.take_alerts()
        except Exception as exc:
            self.report("reading the alerts", exc, "warning")
            return
        if alerts:
            self.bell()
        for alert in alerts:
            self.say(f"ALERT: {clean(alert.text, max_len=400)}", "warning")

    def show_venue_status(self, status: VenueStatus) -> None:
        self.query_one(HeaderBar).show_status(status)
        self.board_pane.show_venue(status, self.wallet.venue_url)

    def _board_changed(self, added: set[str], updated: set[str],
                       checking: int | None = None) -> None:
        board = self.wallet.board
        pane = self.board_pane
        requery = bool(added)
        if checking is not None:
            # The last check done: the rows shown while checking give way to the board's.
            requery = requery or (checking == 0 and pane.checking > 0)
            pane.set_checking(checking)
        if requery:
            self._schedule_requery()
        elif updated:
            rows = [row for oid in updated if (row := board.get(oid)) is not None]
            pane.apply_updates(rows)
        pane.set_counts(total=len(board), rejected=sum(board.rejected().values()))

    def _schedule_requery(self) -> None:
        if self._requery_timer is not None:
            return
        wait = self._last_requery + self.REQUERY_MIN_INTERVAL - time.monotonic()
        if wait <= 0:
            self.requery_board()
        else:
            self._requery_timer = self.set_timer(wait, self._timed_requery)

    def _timed_requery(self) -> None:
        self._requery_timer = None
        with _closing_quietly():  # the board may fill while the app is quitting
            self.requery_board()

    def requery_board(self) -> None:
        board = self.wallet.board
        pane = self.board_pane
        rows = board.query(pane.board_query)
        pane.show_rows(rows, total=len(board), rejected=sum(board.rejected().values()))
        self._last_requery = time.monotonic()

    def _warn_deadline(self, event: DeadlineWarning) -> None:
        if self._warned.get(event.deal_id) == event.level:
            return
        self._warned[event.deal_id] = event.level
        level = LEVEL_LABEL.get(event.level, clean(event.level, max_len=12))
        text = (f"deal {short_hex(event.deal_id)}: {level}"
                f" - {clean(plain_words(event.what), max_len=120)}"
                f" ({countdown(event.ms_left)} left)")
        self.say(text, LEVEL_SEVERITY.get(event.level, "information"))

    # -- periodic -----------------------------------------------------------------------------

    def _tick(self) -> None:
        with _closing_quietly():
            self._guarded("redrawing", self._tick_panes)

    def _tick_panes(self) -> None:
        """Redraw countdowns and the clock. Expiry and deadline warnings are the engine's own
        tick; they arrive as events."""
        self.query_one(HeaderBar).tick()
        if self.agents is not None:
            self._lapse_approvals()
        pane = self.active_pane
        if pane == "board":
            self.board_pane.tick()
        elif pane == "deals":
            self.show_selected_deal()
            self.deal_room.tick()

    # -- deals --------------------------------------------------------------------------------

    def refresh_deals(self, *, select: str | None = None) -> None:
        views = self.wallet.deals()
        room = self.deal_room
        room.show_deals(views, selected=select)
        self.show_selected_deal()

    def show_selected_deal(self) -> None:
        deal_id = self.deal_room.selected_deal()
        if deal_id is None:
            self.deal_room.show_deal(None)
            return
        try:
            view = self.wallet.deal(deal_id).view()
        except Exception as exc:
            self.report("cannot read deal", exc)
            return
        self.deal_room.show_deal(view)
        if self.agents is not None:
            calls = self.agents.ledger.calls(deal_id=view.deal_id, limit=20)
            self.deal_room.show_agents([(c.agent, c.tool, c.decision, c.transport)
                                        for c in reversed(calls)])

    # -- agents' approvals --------------------------------------------------------------------

    def refresh_approvals(self) -> None:
        if self.agents is None:
            return
        with _closing_quietly():
            pending = self.agents.pending()
            self.query_one(HeaderBar).show_approvals(len(pending))
            self.query_one(ApprovalsPane).show(pending)

    @work(group="approvals-lapse", exclusive=True)
    async def _lapse_approvals(self) -> None:
        """Lapse what the engine no longer states as the agent saw it; redraw the count."""
        if self.agents.pending():
            try:
                await self.agents.refresh()
            except Exception as exc:
                self.report("approvals", exc)
        self.refresh_approvals()

    @on(ApprovalsPane.ApproveRequested)
    def _approve_requested(self, event: ApprovalsPane.ApproveRequested) -> None:
        row = self.agents.approval(event.approval_id)
        if row is None or row.state != "pending":
            self.refresh_approvals()
            return
        try:
            deal = self.wallet.deal(row.deal_id)
            ask = (partial(deal.request_lock, row.params.get("rail")) if row.tool == "lock"
                   else self._deal_request(deal, row.tool))
            if ask is None:
                return
            request = ask()
        except Exception as exc:
            self.report("approve", exc)
            return
        desk = self.agents

        async def perform(newest: GateRequest, typed: str | None, acknowledge: bool) -> Any:
            from tclk_tui.agents.desk import ApprovalError

            try:
                decided = await desk.approve(row.id, typed, acknowledge_late=acknowledge)
            except ApprovalError as exc:
                raise GateRefused(exc.reason) from None
            if decided.state != "approved":
                raise GateRefused(decided.reason or decided.state)
            return decided

        self.open_dialog(GateScreen(request, perform, refresh=ask), self._approval_done)

    def _approval_done(self, decided: Any) -> None:
        self.refresh_approvals()
        if decided is not None:
            self.say(f"approved: {clean(decided.agent, max_len=30)}'s {decided.tool}")
            if decided.deal_id:
                self.refresh_deals(select=decided.deal_id)

    @on(ApprovalsPane.DenyRequested)
    def _deny_requested(self, event: ApprovalsPane.DenyRequested) -> None:
        row = self.agents.approval(event.approval_id)
        if row is None or row.state != "pending":
            self.refresh_approvals()
            return

        def denied(reason: str | None) -> None:
            if reason is None:
                return
            try:
                self.agents.deny(row.id, reason)
            except Exception as exc:
                self.report("deny", exc)
            self.refresh_approvals()

        self.open_dialog(DenyScreen(row.agent, row.tool), denied)

    def open_deal(self, deal_id: str) -> None:
        self.refresh_deals(select=deal_id)
        self.deal_room.select_deal(deal_id)
        self.show_selected_deal()
        self.action_show_pane("deals")

    @on(DealRoomPane.DealSelected)
    def _deal_selected(self, event: DealRoomPane.DealSelected) -> None:
        with _closing_quietly():
            self.show_selected_deal()

    @on(DealRoomPane.ActionRequested)
    def _deal_action(self, event: DealRoomPane.ActionRequested) -> None:
        self.run_deal_action(event.action, event.view.deal_id)

    def run_deal_action(self, action: str, deal_id: str) -> None:
        wallet = self.wallet
        if action == "accept":
            row = wallet.board.get(deal_id)
            if row is None:
                self.say("that offer is not on the board", "warning")
            else:
                self.open_accept(row)
            return
        try:
            deal = wallet.deal(deal_id)
            if action == "heartbeat":
                self.open_dialog(HeartbeatScreen(deal.heartbeat), self._deal_result)
                return
            if action == "receipt":
                self.open_dialog(ReceiptScreen(deal.view().status, deal.receipt),
                                 self._deal_result)
                return
            if action == "reconcile":
                self._reconcile(deal_id)
                return
            ask = self._deal_request(deal, action)
            if ask is None:
                return
            request = ask()
        except Exception as exc:
            self.report(action, exc)
            return

        async def perform(newest: GateRequest, typed: str | None, acknowledge: bool) -> DealView:
            return await deal.confirm(newest, typed_code=typed, acknowledge_late=acknowledge)

        self.open_dialog(GateScreen(request, perform, refresh=ask), self._deal_result)

    @on(DealRoomPane.ActionNotValid)
    def _deal_action_not_valid(self, event: DealRoomPane.ActionNotValid) -> None:
        self.explain_not_valid(event.action, event.view)

    def explain_not_valid(self, action: str, view: DealView) -> None:
        """A deal key pressed when its action is not valid now: say why in the engine's words
        (the view's `unavailable`, or a gated action's blockers), never nothing."""
        label = ACTION_LABELS.get(action, clean(action, max_len=20))
        reason = dict(view.unavailable).get(action)
        if reason is None and action in GATED_ACTIONS:
            try:
                ask = self._deal_request(self.wallet.deal(view.deal_id), action)
                request = ask() if ask is not None else None
            except Exception as exc:
                reason = describe_error(exc)
            else:
                if request is not None and request.blockers:
                    reason = "; ".join(request.blockers)
        if reason is None:
            reason = f"the deal is {view.status}"
        self.say(f"{label} is not possible now: {clean(reason, max_len=300)}", "warning")

    def _deal_request(self, deal: Any, action: str) -> Callable[[], GateRequest] | None:
        """The engine call that states this action's facts; the gate asks it again while open."""
        if action == "lock":
            view = self.deal_room.view
            rail = view.rail if view is not None and view.deal_id == deal.deal_id else None
            return partial(deal.request_lock, rail)
        if action == "reveal":
            return deal.request_reveal
        if action == "refund":
            return deal.request_refund
        if action == "cancel":
            return deal.request_cancel
        self.say(f"unknown action {clean(action, max_len=20)}", "error")
        return None

    def _deal_result(self, view: DealView | None) -> None:
        if isinstance(view, DealView):
            self.refresh_deals(select=view.deal_id)
            self.deal_room.show_deal(view)

    @work(group="reconcile")
    async def _reconcile(self, deal_id: str) -> None:
        """Re-read the rail and re-fold a deal whose rail and transcript disagree."""
        try:
            view = await self.wallet.deal(deal_id).reconcile()
        except Exception as exc:
            self.report("reconcile", exc)
            return
        self.say("rail re-read: " + (clean(view.disagreement, max_len=200) or
                                     f"rail and transcript agree ({view.status})"))
        self._deal_result(view)

    # -- board --------------------------------------------------------------------------------

    @on(BoardPane.QueryChanged)
    def _query_changed(self) -> None:
        self.requery_board()

    @on(BoardPane.OfferChosen)
    def _offer_chosen(self, event: BoardPane.OfferChosen) -> None:
        if event.row.mine:
            self.open_deal(event.row.offer_id)
        else:
            self.open_accept(event.row)

    @on(BoardPane.AcceptRequested)
    def _accept_requested(self, event: BoardPane.AcceptRequested) -> None:
        if event.row.mine:
            self.say("that offer is yours; its deal is on the Deals pane")
            return
        self.open_accept(event.row)

    def open_accept(self, row: OfferRow) -> None:
        async def accept(rail: str | None) -> DealView:
            return await self.wallet.accept_offer(row.offer_id, rail=rail)

        board = self.wallet.board
        offer_id = row.offer_id
        self.open_dialog(AcceptScreen(row, self.clock_ms, accept,
                                      row_source=lambda: board.get(offer_id)),
                         self._opened_deal)

    def _opened_deal(self, view: DealView | None) -> None:
        if isinstance(view, DealView):
            self.open_deal(view.deal_id)

    @on(TranscriptTable.RecordChosen)
    def _record_chosen(self, event: TranscriptTable.RecordChosen) -> None:
        self.open_dialog(RecordScreen(event.record))

    @on(BoardPane.NewOfferRequested)
    def action_new_offer(self) -> None:
        self.open_dialog(OfferFormScreen(self.wallet.validate_offer_draft,
                                         self.wallet.post_offer), self._opened_deal)

    @on(BoardPane.RejectedRequested)
    def action_rejected(self) -> None:
        self.open_dialog(RejectedScreen(self.wallet.board.rejected()))

    # -- vault --------------------------------------------------------------------------------

    def refresh_vault(self) -> None:
        try:
            status = self.wallet.vault_status()
            secrets = self.wallet.held_secrets()
        except Exception as exc:
            self.report("vault", exc)
            return
        self.vault_pane.show(status, secrets)

    @on(VaultPane.BackupRequested)
    def action_backup_seed(self) -> None:
        wallet = self.wallet
        try:
            request = wallet.request_seed_backup()
        except Exception as exc:
            self.report("backup", exc)
            return

        def perform(newest: GateRequest, typed: str | None, _acknowledge: bool) -> str:
            if newest.confirm_code is None:
                return wallet.confirm_seed_backup(newest)
            return wallet.confirm_seed_backup(newest, typed or "")

        # No refresh: these facts do not move with time, and asking again would read the
        # vault's seed every second.
        self.open_dialog(GateScreen(request, perform),
                         partial(self._show_secret, "Master seed backup", SEED_WARNING,
                                 grouped=True))

    @on(VaultPane.RestoreRequested)
    def action_restore_seed(self) -> None:
        """The backup text, then the engine's gate: which seed it replaces, what derives
        from that one; the engine holds the backup until the operator confirms."""
        wallet = self.wallet
        stated: list[GateRequest] = []

        async def ask(text: str) -> None:
            stated.append(wallet.request_seed_restore(text))

        def perform(newest: GateRequest, typed: str | None, _acknowledge: bool) -> str:
            return wallet.confirm_seed_restore(newest, typed or "")

        def confirm(done: bool | None) -> None:
            if done and stated:
                self.open_dialog(GateScreen(stated[-1], perform), self._restored)

        self.open_dialog(RestoreScreen(ask), confirm)

    def _restored(self, fingerprint: object) -> None:
        if fingerprint:
            self.say("master seed restored")
            self.refresh_vault()

    @on(VaultPane.RevealRequested)
    def _reveal_requested(self, event: VaultPane.RevealRequested) -> None:
        self.reveal_secret(event.secret)

    def reveal_secret(self, secret: HeldSecret) -> None:
        if secret.kind == "master":
            self.action_backup_seed()
            return
        wallet = self.wallet
        try:
            request = wallet.request_secret_reveal(secret.deal_id)
        except Exception as exc:
            self.report("reveal", exc)
            return

        def perform(newest: GateRequest, typed: str | None, _acknowledge: bool) -> str:
            return wallet.confirm_secret_reveal(newest, typed or "")

        title = f"{clean(secret.kind, max_len=20)} for deal {short_hex(secret.deal_id)}"
        self.open_dialog(GateScreen(request, perform,
                                    refresh=partial(wallet.request_secret_reveal,
                                                    secret.deal_id)),
                         partial(self._show_secret, title, SECRET_WARNING))

    def _show_secret(self, title: str, warning: str, value: object, *,
                     grouped: bool = False) -> None:
        if isinstance(value, str) and value:
            self.open_dialog(SecretScreen(title, value, warning, grouped=grouped))

    def copy_to_clipboard(self, text: str) -> None:
        """Refuse whenever a secret is on screen or in the focused field."""
        if getattr(self.screen, "HOLDS_SECRET", False) or getattr(self.focused, "HOLDS_SECRET",
                                                                  False):
            self.bell()
            self.say("secrets are never copied to the clipboard", "warning")
            return
        super().copy_to_clipboard(text)

    # -- panes, themes, help ------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Pane keys act on the main screen only, never underneath an open dialog, and only
        for the panes this app shows."""
        if action != "show_pane":
            return True
        if parameters and parameters[0] not in {pane.id for pane in self.panes}:
            return False
        return self.screen is self.default_screen

    def _on_main_screen(self, run: Callable[[], object]) -> None:
        """Run a palette entry that moves between panes only if the pane keys could: the
        palette can be opened over a dialog, and nothing may change underneath it."""
        if self.check_action("show_pane", ()):
            run()
        else:
            self.say("close the dialog first", "warning")

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
            self.refresh_vault()
        elif pane == "deals":
            self.refresh_deals()
        elif pane == "approvals":
            self.refresh_approvals()

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

    def help_sections(self) -> list[HelpSection]:
        """Each place's keys, as bound: the help screen writes them through the keymap."""
        shown = {pane.id for pane in self.panes}
        hidden = {pane.binding_id for pane in PANES if pane.id not in shown}
        approvals = PANE_BY_ID["approvals"]
        dialog = {b.id: b for b in bindings_of(GateScreen, OfferFormScreen)}
        return [
            ("Everywhere", [*(b for b in as_bindings(self.BINDINGS) if b.id not in hidden),
                            *(b for b in textual_app_bindings() if b.description)]),
            ("Offers board", bindings_of(BoardPane, OfferTable)),
            ("Deal room (only the actions valid now are active)", bindings_of(DealRoomPane)),
            ("Vault", bindings_of(VaultPane)),
            ("Arbiter: cases (deals naming this wallet as arbiter or juror)",
             bindings_of(CasesForm)),
            *([(f"Approvals ({self.keys_display(approvals.binding())}): agents' calls waiting "
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
        where = str(self.keymap_file) if self.keymap_file is not None else KEYMAP_FILE
        return (f"To move a key, name its id (the right column) in {where}, e.g. "
                f'"board.new_offer" = "o"; several keys are separated by commas. Tab, '
                f"ctrl+q and dialogs' keys stay as they are.")

    def action_venue_status(self) -> None:
        status = self.query_one(HeaderBar).status
        text = venue_text(status.state).plain
        if status.detail:
            text += f": {clean(status.detail, max_len=400)}"
        try:
            budget = self.wallet.venue_budget()
        except Exception as exc:  # an owner gone away: the status still says what it knows
            budget, text = None, text + f" (budgets unknown: {describe_error(exc)})"
        lines = budget_lines(budget) if budget is not None else []
        self.say("\n".join([f"venue {clean(self.wallet.venue_url, max_len=80)}: {text}",
                            *lines]))

    def action_command_palette(self) -> None:
        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(CalmPalette(id="--command-palette"))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.help_sections(), self.keys_display,
                                        self.keymap_note()))

    def palette_commands(self) -> list[PaletteCommand]:
        cmds = [PaletteCommand(f"Show {pane.label.lower()}", f"Switch to the {pane.label} pane "
                               f"(key {self.keys_display(pane.binding())})",
                               partial(self._on_main_screen,
                                       partial(self.action_show_pane, pane.id)),
                               name=pane.label)
                for pane in self.panes]
        board = self.board_pane
        cmds += [
            engine_command("offer", self.action_new_offer, title="New offer"),
            engine_command("accept", board.action_accept, title="Accept highlighted offer"),
            PaletteCommand("Filter offers", "Focus the board filter",
                           partial(self._on_main_screen, self._palette_filter)),
            PaletteCommand("Show rejected board lines", "Counts of refused lines by reason",
                           self.action_rejected),
            PaletteCommand("Reverse sort order", "Flip the board's sort direction",
                           board.action_reverse_sort),
        ]
        for key, label in SORT_COLUMNS:
            cmds.append(PaletteCommand(f"Sort offers by {label}", "Sort the board",
                                       partial(self._palette_sort, key)))
        view = self.deal_room.view
        if view is not None:
            for action in sorted(view.actions):
                cmds.append(engine_command(action,
                                           partial(self.run_deal_action, action, view.deal_id),
                                           target=f"deal {short_hex(view.deal_id)}"))
        cmds += [
            PaletteCommand("Back up master seed", "Show the seed once, behind a confirm",
                           self.action_backup_seed),
            PaletteCommand("Restore master seed", "Restore from a backup",
                           self.action_restore_seed),
            PaletteCommand("Show highlighted secret", "Reveal one secret behind a typed code",
                           self._palette_reveal),
        ]
        for name, label in SECTIONS:
            cmds.append(PaletteCommand(f"Arbitration: {label.lower()}", "Open the arbiter desk",
                                       partial(self._on_main_screen,
                                               partial(self._palette_arbitration, name)),
                                       name=label))
        for name in self.theme_names:
            cmds.append(PaletteCommand(f"Theme: {name}", "Switch theme (remembered)",
                                       partial(self.action_set_theme, name), name=name))
        cmds += [
            PaletteCommand("Keys and help", "List every key binding", self.action_help),
            PaletteCommand("Quit", "Leave the app (the engine keeps its journal)",
                           self.action_quit),
        ]
        return cmds

    def _palette_filter(self) -> None:
        self.action_show_pane("board")
        self.board_pane.action_focus_filter()

    def _palette_sort(self, key: str) -> None:
        board = self.board_pane
        query = board.board_query
        if query.sort != key:
            board.set_query(sort_by(query, key))

    def _palette_reveal(self) -> None:
        secret = self.vault_pane.highlighted()
        if secret is None:
            self.say("no secret highlighted on the Vault pane")
            return
        self.reveal_secret(secret)

    def _palette_arbitration(self, name: str) -> None:
        self.action_show_pane("arbitration")
        self.query_one(ArbitrationPane).show_section(name)
