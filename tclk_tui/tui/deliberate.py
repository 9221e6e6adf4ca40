"""A dialog that posts is answered by a person who has read it, not by the next key of a
sentence typed with focus in the wrong place.

Keys reach a dialog the moment it opens: typing "may" at the board opens the accept dialog on
`a` and would accept on `y`; `l` Enter Enter opens the lock gate and presses whatever has focus.
A key typed before the dialog opened, or within a reaction time after, is dropped with a bell
(the app asks `admits` before it hands a key to the screen, `key_desk.KeyDesk`); the same key
pressed again once the dialog has been read works. Esc always goes through: backing out is never
something to take back.

A form that takes typing ahead (the new offer: `n1000` Tab `FLOP`) sets `TAKES_TYPING_AHEAD`:
its text keys go through, and only its `CONFIRM_KEYS` (the key that posts) are held to the
reaction time.
"""

from __future__ import annotations

from textual import events
from textual.message import Message

ALWAYS_ADMITTED = frozenset({"escape"})


class DeliberateKeys:
    """Mix into a ModalScreen whose bindings in `CONFIRM_KEYS` post or spend."""

    CONFIRM_KEYS: frozenset[str] = frozenset({"y"})
    TAKES_TYPING_AHEAD = False
    # Less than anyone reads a dialog in; more than the gap between two keys of one word.
    REACTION_S = 0.3

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        # A message's `time` is on the clock Textual stamps key events with.
        self._opened_at = Message().time

    def admits(self, event: events.Key) -> bool:
        """Whether this key may reach the dialog: not one typed ahead of reading it."""
        if event.key in ALWAYS_ADMITTED:
            return True
        if self.TAKES_TYPING_AHEAD and event.key not in self.CONFIRM_KEYS:
            return True
        return event.time >= self._opened_at + self.REACTION_S

    def on_key(self, event: events.Key) -> None:
        """The same rule for a confirm key in an app that does not ask `admits` first."""
        if event.key in self.CONFIRM_KEYS and not self.admits(event):
            event.stop()
            event.prevent_default()
            self.app.bell()  # type: ignore[attr-defined]
