"""The deal room pane: the deal list, and for the selected deal its terms, deadlines,
transcript, timeline and the actions valid now.

Which actions are valid is `DealView.actions`, decided by the engine; the pane only shows those
as key bindings and asks the app to run them (every gated one goes through a confirm modal).
Those the deal's status admits but the engine refuses now are listed as "not now" with the
engine's reason (`DealView.unavailable`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, OptionList, Static

from tclk_tui.engine.views import DealView, RecordView, TimelineEntry
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.board_pane import BoardPane
from tclk_tui.tui.deadline_strip import DeadlineStrip
from tclk_tui.tui.deal_list import DealList
from tclk_tui.tui.formatting import short_did, short_hex, utc_hhmm, utc_time
from tclk_tui.tui.keymap import bound_keys
from tclk_tui.tui.safe import join, literal
from tclk_tui.tui.transcript_table import TranscriptTable

DEAL_ACTIONS = ("accept", "lock", "reveal", "refund", "cancel", "heartbeat", "receipt",
                "reconcile")
GATED_ACTIONS = frozenset({"lock", "reveal", "refund", "cancel"})
ACTION_LABELS = {"accept": "Accept", "lock": "Lock", "reveal": "Reveal", "refund": "Refund",
                 "cancel": "Cancel", "heartbeat": "Heartbeat", "receipt": "Receipt",
                 "reconcile": "Reconcile"}


def no_deals_text(accept_key: str = "a", new_offer_key: str = "n") -> Text:
    return Text(f"No deals yet. On the board: {accept_key} accepts the highlighted offer, "
                f"{new_offer_key} posts a new one.")


def summary_text(view: DealView, reconcile_key: str = "g") -> Text:
    parts: list[Text | str] = [
        literal(view.role, style="bold"), "·",
        literal(view.amount_text), "·", literal(view.lock), "lock ·",
        literal(view.status.upper(), style="bold"),
    ]
    if view.counterparty:
        parts += ["· with", Text(short_did(view.counterparty))]
    if view.secret_held:
        parts.append("· secret held")
    line1 = join(*parts)
    rail = literal(view.rail) if view.rail else literal(",".join(view.rails) or "-")
    parts2: list[Text | str] = ["rail", rail]
    if view.rail_ref:
        parts2 += ["ref", literal(view.rail_ref, max_len=20)]
    if view.rail and not view.rail_moves_value:
        parts2.append("(no real value)")
    parts2 += ["· contract", Text(short_hex(view.contract, keep=14)) if view.contract
               else Text("not yet")]
    line2 = join(*parts2)
    lines = [line1, line2]
    if view.disagreement:
        lines.append(join(Text("UNKNOWN:", style="bold reverse"), literal(view.disagreement),
                          f"· {reconcile_key} reconciles: re-reads the rail and re-folds"))
    if view.refused_accepts:  # another accept came for this offer: say which one binds it
        who, why = view.refused_accepts[0]
        lines.append(join("accepted by:", literal(view.accepted_by or "none yet", max_len=120),
                          f"· refused {len(view.refused_accepts)} other accept(s), first from",
                          Text(short_did(who)), "-", literal(why, max_len=100)))
    if view.lock_facts:
        lines.append(join(*[literal(f"{label} {value}", max_len=60)
                            for label, value in view.lock_facts]))
    if view.rail_account:
        lines.append(literal(view.rail_account, max_len=120))
    if view.note:
        lines.append(join("their note:", literal(view.note, max_len=120)))
    if view.unavailable:  # the engine's reasons, word for word
        not_now = Text("not now: ", style="dim")
        for index, (action, reason) in enumerate(view.unavailable):
            if index:
                not_now.append("; ")
            not_now.append_text(literal(action, style="bold"))
            not_now.append(" - ")
            not_now.append_text(literal(reason, max_len=100))
        lines.append(not_now)
    return Text("\n", end="").join(lines)


def timeline_text(entries: Iterable[TimelineEntry], own_did: str | None = None,
                  counterparty: str | None = None) -> Text:
    out = Text("timeline: ", style="bold", end="")
    first = True
    for entry in entries:
        if not first:
            out.append(" > ")
        first = False
        out.append_text(literal(entry.status))
        if own_did and entry.by == own_did:
            who = "me"
        elif counterparty and entry.by == counterparty:
            who = "them"
        else:
            who = short_did(entry.by)
        out.append(f" {utc_hhmm(entry.ts_ms)} {who}")
    if first:
        out.append("-")
    return out


def record_detail_text(record: RecordView | None) -> Text:
    """Three lines, each ending in an ellipsis when it does not fit; Enter shows it whole."""
    if record is None:
        return Text("")
    out = literal(plain_words(record.summary), max_len=600)
    if record.reason:
        out.append(" | refused: ")
        out.append_text(literal(plain_words(record.reason), max_len=200))
    out.append("\n")
    out.append_text(join(f"seq {record.seq} at {utc_time(record.ts_ms)} UTC in room",
                         literal(record.room), "· enter: whole record"))
    out.append("\n")
    out.append_text(join("from", literal(record.sender), "(me)" if record.mine else ""))
    return out


def agents_text(calls: list[tuple[str, str, str, str]]) -> Text:
    out = Text("agents: ", style="bold")
    for i, (agent, tool, decision, transport) in enumerate(calls[-8:]):
        if i:
            out.append(" · ")
        out.append_text(literal(agent, max_len=24))
        out.append(" ")
        out.append_text(literal(f"{tool} ({decision}, {transport})", max_len=60))
    return out


class DealRoomPane(Vertical):
    DEAL_KEYS = (("accept", "a"), ("lock", "l"), ("reveal", "r"), ("refund", "f"),
                 ("cancel", "x"), ("heartbeat", "h"), ("receipt", "e"), ("reconcile", "g"))
    # Every deal key answers, valid now or not. A valid action's binding is on the footer; one
    # that is not valid is off it (check_action), so Textual tries the next binding of that
    # key, its hidden twin, which says why: a key that silently does nothing reads as broken.
    # The twin's id is the action's id + ".why"; the keymap moves both together.
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"deal('{action}')", ACTION_LABELS[action], id=f"deal.{action}")
          for action, key in DEAL_KEYS),
        *(Binding(key, f"not_valid('{action}')", ACTION_LABELS[action], show=False,
                  id=f"deal.{action}.why")
          for action, key in DEAL_KEYS),
    ]

    DEFAULT_CSS = """
    DealRoomPane { height: 1fr; }
    DealRoomPane #deal-main { height: 1fr; }
    DealRoomPane #deal-summary { height: auto; padding: 0 1; }
    DealRoomPane #record-detail {
        height: 4; padding: 0 1; border-top: solid $panel; overflow: hidden;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    DealRoomPane #deal-timeline { height: auto; max-height: 2; padding: 0 1; }
    DealRoomPane #deal-empty { padding: 1 2; color: $text-muted; }
    DealRoomPane #deal-agents { height: auto; max-height: 3; padding: 0 1; display: none; }
    """

    class DealSelected(Message):
        def __init__(self, deal_id: str) -> None:
            super().__init__()
            self.deal_id = deal_id

    class ActionRequested(Message):
        def __init__(self, action: str, view: DealView) -> None:
            super().__init__()
            self.action = action
            self.view = view

    class ActionNotValid(Message):
        """A deal key was pressed whose action the engine does not offer now."""

        def __init__(self, action: str, view: DealView) -> None:
            super().__init__()
            self.action = action
            self.view = view

    def __init__(self, *, clock_ms: Callable[[], int], own_did: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._clock_ms = clock_ms
        self._own_did = own_did
        self.view: DealView | None = None

    def compose(self) -> ComposeResult:
        yield DealList(id="deal-list")
        with Vertical(id="deal-main"):
            yield Static(self._no_deals(), id="deal-summary")
            yield DeadlineStrip(clock_ms=self._clock_ms, id="deadlines")
            yield TranscriptTable(id="transcript")
            yield Static(Text(""), id="record-detail")
            yield Static(Text(""), id="deal-timeline")
            yield Static(Text(""), id="deal-agents")

    def _no_deals(self) -> Text:
        """Names the board's keys bound now (a keymap file may have moved them)."""
        return no_deals_text(bound_keys(self, "board.accept", BoardPane.BINDINGS),
                             bound_keys(self, "board.new_offer", BoardPane.BINDINGS))

    # -- what the app hands us ----------------------------------------------------------------

    def show_deals(self, views: Iterable[DealView], *, selected: str | None = None) -> None:
        self.query_one(DealList).show(views, selected=selected)

    def show_deal(self, view: DealView | None) -> None:
        if view == self.view:
            return
        self.view = view
        summary = self.query_one("#deal-summary", Static)
        transcript = self.query_one(TranscriptTable)
        if view is None:
            summary.update(self._no_deals())
            self.query_one(DeadlineStrip).show(None)
            transcript.show(())
            self.query_one("#deal-timeline", Static).update(Text(""))
        else:
            summary.update(summary_text(view, bound_keys(self, "deal.reconcile",
                                                         self.BINDINGS)))
            self.query_one(DeadlineStrip).show(view.deadlines)
            transcript.show(view.records)
            self.query_one("#deal-timeline", Static).update(
                timeline_text(view.timeline, self._own_did, view.counterparty))
        self._show_record(transcript.highlighted_record())
        self.refresh_bindings()

    def show_agents(self, calls: list[tuple[str, str, str, str]]) -> None:
        """Which agent triggered which action of this deal (agent, tool, decision, transport);
        hidden for a deal no agent touched."""
        widget = self.query_one("#deal-agents", Static)
        widget.display = bool(calls)
        if calls:
            widget.update(agents_text(calls))

    def select_deal(self, deal_id: str) -> bool:
        return self.query_one(DealList).select_deal(deal_id)

    def selected_deal(self) -> str | None:
        return self.query_one(DealList).highlighted_deal()

    def tick(self) -> None:
        self.query_one(DeadlineStrip).tick()

    # -- operator input -----------------------------------------------------------------------

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.DealSelected(event.option.id))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_record(self.query_one(TranscriptTable).highlighted_record())

    def _show_record(self, record: RecordView | None) -> None:
        self.query_one("#record-detail", Static).update(record_detail_text(record))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "deal":
            return True
        return self.view is not None and bool(parameters) and parameters[0] in self.view.actions

    def action_deal(self, action: str) -> None:
        if self.view is not None and action in self.view.actions:
            self.post_message(self.ActionRequested(action, self.view))

    def action_not_valid(self, action: str) -> None:
        if self.view is not None:
            self.post_message(self.ActionNotValid(action, self.view))
