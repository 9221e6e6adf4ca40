"""A dialog that posts is answered by a person who has read it, not by the next key of a
sentence typed with focus in the wrong place.

Keys reach a dialog the moment it opens: typing "may" at the board opens the accept dialog on
`a` and would accept on `y`. A confirm key that was typed before the dialog opened, or within a
reaction time after, is dropped with a bell; the same key pressed again once the dialog has been
read works.
"""

from __future__ import annotations

from textual import events
from textual.message import Message


class DeliberateKeys:
    """Mix into a ModalScreen whose bindings in `CONFIRM_KEYS` post or spend."""

    CONFIRM_KEYS: frozenset[str] = frozenset({"y"})
    # Less than anyone reads a dialog in; more than the gap between two keys of one word.
    REACTION_S = 0.3

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        # A message's `time` is on the clock Textual stamps key events with.
        self._opened_at = Message().time

    def on_key(self, event: events.Key) -> None:
        if event.key in self.CONFIRM_KEYS and event.time < self._opened_at + self.REACTION_S:
            event.stop()
            event.prevent_default()
            self.app.bell()  # type: ignore[attr-defined]
