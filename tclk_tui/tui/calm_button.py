"""A button without the press flash, that says in words when it cannot be pressed.

Nothing on screen animates, and a second press is never swallowed by a running effect. A
disabled button is drawn in dimmer colours, which a 16-colour palette may fold into the enabled
ones and NO_COLOR removes: its label says "(not yet)" as well, so a Confirm that is off reads as
off on every terminal.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Button

NOT_YET = " (not yet)"


class CalmButton(Button):
    def __init__(self, label: str = "", *args: Any, **kwargs: Any) -> None:
        super().__init__(label, *args, **kwargs)
        self.active_effect_duration = 0
        self._own_label = label
        self.label = self._label_for(self.disabled)

    def _label_for(self, disabled: bool) -> Text:
        return Text(self._own_label + (NOT_YET if disabled else ""))

    def watch_disabled(self, disabled: bool) -> None:
        super().watch_disabled(disabled)
        self.label = self._label_for(disabled)
