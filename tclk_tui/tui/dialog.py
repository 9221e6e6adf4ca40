"""The base of every dialog: it answers once, and closes once.

Keys arrive faster than a dialog settles. Enter pressed twice on a focused button presses it
twice before the first press is handled; Esc and Enter together ask a dialog both to back out
and to confirm; a worker can finish while another screen (the palette, help) is on top. Textual's
`dismiss` pops whatever screen is on top, so a second dismiss either pops the screen under the
dialog (the main screen: `ScreenStackError`, the app ends) or a dialog opened since, answering it
with the wrong result. Here:

- `dismiss` acts once. Later calls do nothing; a dialog that is not the active screen when its
  answer comes keeps the answer and closes as soon as it is active again.
- `answer(call, refused)` runs the engine call that answers the dialog, one at a time: the dialog
  is busy from the moment it is asked (not from when a worker starts, so a second Enter in the
  same burst finds it busy), closes with the call's result, or stays open showing the refusal.
- `closing` and `busy` are what every button handler checks before it acts.
- Closing tells the app (`KeyDesk.dialog_closed`), so keys typed into the dialog before it
  closed do not fall through to the screen underneath.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from textual import on
from textual.await_complete import AwaitComplete
from textual.events import ScreenResume
from textual.screen import ModalScreen, ScreenResultType

Answer = Callable[[], Awaitable[Any] | Any]
Refused = Callable[[BaseException], None]


class Dialog(ModalScreen[ScreenResultType]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.closing = False
        self.busy = False
        self._kept: tuple[Any] | None = None  # an answer that came while covered

    @property
    def idle(self) -> bool:
        """Whether the dialog may still act on a key: neither closing nor answering."""
        return not (self.closing or self.busy)

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if self.closing or self not in self.app.screen_stack:
            return AwaitComplete.nothing()
        if self.app.screen is not self:
            self._kept = (result,)
            return AwaitComplete.nothing()
        self.closing = True
        closed = getattr(self.app, "dialog_closed", None)  # the app's KeyDesk, when it has one
        if callable(closed):
            closed()
        return super().dismiss(result)

    @on(ScreenResume)
    def _close_with_kept_answer(self) -> None:
        if self._kept is not None:
            (result,) = self._kept
            self._kept = None
            self.dismiss(result)

    def busy_changed(self) -> None:
        """Redraw what depends on `busy` (a button's disabled state); nothing by default."""

    def answer(self, call: Answer, refused: Refused) -> bool:
        """Run `call` (the engine's answer to this dialog) unless one runs or the dialog is
        closing; close with its result, or hand its exception to `refused` and stay open."""
        if not self.idle:
            return False
        self.busy = True
        self.busy_changed()
        self.run_worker(self._answer(call, refused), group="dialog-answer")
        return True

    async def _answer(self, call: Answer, refused: Refused) -> None:
        try:
            result = call()
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:
            self.busy = False
            refused(exc)
            self.busy_changed()
            return
        self.dismiss(result)  # still busy: nothing else runs before it closes
