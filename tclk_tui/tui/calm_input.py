"""Inputs that never blink, and a secret input that never reaches the clipboard."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input


class CalmInput(Input):
    """An `Input` with a steady cursor: nothing on screen moves unless the operator moves it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cursor_blink = False


class SecretInput(CalmInput):
    """A masked input for seeds, preimages and witnesses; copy and cut are refused."""

    HOLDS_SECRET = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["password"] = True
        super().__init__(*args, **kwargs)

    def action_copy(self) -> None:
        self.app.bell()

    def action_cut(self) -> None:
        self.app.bell()
