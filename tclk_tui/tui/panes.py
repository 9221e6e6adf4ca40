"""The main panes as one table: id, label, key and the widget that takes focus.

The tab titles, the pane keys, the palette's "Show ..." entries, the help screen and the focus
hand-off all read this table, so a pane is named, keyed and focused in one place and nothing
parses a label back into a key.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class Pane:
    id: str  # the TabPane's id, and what `show_pane` takes
    label: str
    key: str  # the default key; a keymap file may move it (binding id `pane.<id>`)
    # Selectors of the widget that takes focus when the pane is shown, tried in order: the
    # first one present takes it (the Arbiter pane's cases list exists only with a referee).
    focus: tuple[str, ...]
    agents_only: bool = False  # shown only when the wallet serves agents

    @property
    def binding_id(self) -> str:
        return f"pane.{self.id}"

    def binding(self) -> Binding:
        return Binding(self.key, f"show_pane('{self.id}')", self.label, show=False,
                       id=self.binding_id)


PANES: tuple[Pane, ...] = (
    Pane("board", "Board", "1", ("#offer-table",)),
    Pane("deals", "Deals", "2", ("#deal-list",)),
    Pane("vault", "Vault", "3", ("#vault-secrets",)),
    Pane("arbitration", "Arbiter", "4", ("#cases-table", "#arb-tabs Tabs")),
    Pane("approvals", "Approvals", "5", ("#approvals-table",), agents_only=True),
)
PANE_BY_ID = {pane.id: pane for pane in PANES}
