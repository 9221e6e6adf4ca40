"""A button without the press flash: nothing on screen animates, and a second press is never
swallowed by a running effect."""

from __future__ import annotations

from typing import Any

from textual.widgets import Button


class CalmButton(Button):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.active_effect_duration = 0
