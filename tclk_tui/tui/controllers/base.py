"""What every controller shares: the app it serves, and the door to the engine behind it.

A controller is a plain object, not a widget: it holds one pane's logic (which engine call an
operator's action becomes, and how the answer reaches the screen). Every action is a registry
command through the app's door (`engine.door.Door`: `run`, and `state` for a gated command's
request); everything else a controller reads is one of the door's read-only views. The app
stays the
composition root: it builds the widgets and the controllers, routes Textual's messages, keys
and timers to them, and owns what every pane uses (`say`, `report`, `open_dialog`), which a
controller reaches through the app so every message still goes out one way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, cast

from textual.css.query import NoMatches
from textual.screen import Screen
from textual.worker import WorkType

if TYPE_CHECKING:
    from tclk_tui.engine.door import Door
    from tclk_tui.tui.app import TclkApp


@contextlib.contextmanager
def closing_quietly() -> Iterator[None]:
    """Messages and timers can still fire while the app tears its screen down; a pane that is
    already gone then has nothing to update."""
    try:
        yield
    except NoMatches:
        return


class Controller:
    """One pane's logic over the app that shows it."""

    def __init__(self, app: TclkApp) -> None:
        self.app = app

    @property
    def door(self) -> Door:
        return self.app.door

    @property
    def agents(self) -> Any:
        return self.app.agents

    def say(self, text: str, severity: str = "information") -> None:
        self.app.say(text, severity)

    def report(self, what: str, exc: BaseException, severity: str = "error") -> None:
        self.app.report(what, exc, severity)

    def open_dialog(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
                    ) -> bool:
        return self.app.open_dialog(screen, callback)

    def run_worker(self, work: Callable[[], Coroutine[Any, Any, None]], *, name: str,
                   group: str, exclusive: bool = False) -> None:
        """Run `work` as the app's worker, as `@work(group=..., exclusive=...)` on an app
        method would: named after it, and exiting the app on an error it does not handle."""
        self.app.run_worker(cast("WorkType[None]", work), name=name, group=group,
                            exclusive=exclusive, exit_on_error=True)
