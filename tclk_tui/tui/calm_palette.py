"""The command palette, closed for good once it closes.

Textual's palette searches in a worker started by every change of its input. Keys typed in a
burst with Enter (or Esc) queue input changes behind the keypress that closes it, and each one
started a search on a palette already taken off the screen, whose list it then looked for and
could not find: the app ended. This palette stops searching when it closes and starts none
after. Paging through a list not laid out yet (typed before the first results were drawn)
does nothing instead of looking up lines that do not exist.
"""

from __future__ import annotations

from typing import Any

from textual.await_complete import AwaitComplete
from textual.command import CommandList, CommandPalette


class CalmPalette(CommandPalette):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shut = False

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if self._shut or self.app.screen is not self:
            return AwaitComplete.nothing()
        self._shut = True
        self._cancel_gather_commands()
        return super().dismiss(result)

    def _gather_commands(self, search_value: str) -> Any:
        if self._shut:
            return None
        return super()._gather_commands(search_value)

    def _action_command_list(self, action: str) -> None:
        if action in ("page_up", "page_down"):
            listed = self.query_one(CommandList)
            if (listed.highlighted or 0) not in listed._index_to_line:
                return
        super()._action_command_list(action)
