"""Where a key goes when it arrives faster than the screens change.

A terminal delivers a burst of keys before the app has acted on the first. Two rules decide
where the rest go:

- **Typing ahead into a form.** A key that opens a form (`n`, the new offer) is followed by
  the form's text: `n1000` Tab `FLOP` Tab `paper`. Textual runs a pane's binding only once the
  key has travelled up from the focused widget, and the form's fields exist only once it has
  mounted; the keys handled in between went to the screen underneath (the board's filter).
  So a key bound to one of `TYPE_AHEAD_BINDINGS` holds the keys after it the moment it
  arrives (unless a text field has focus and takes it as a letter); the form releases them once
  its first field has focus (`release_keys`), and they are handled in the order typed, Tab
  included, as if they had arrived then. A hold that is never released ends by itself after
  `HOLD_LIMIT_S`, so the keyboard can never stay dead.
- **Never typing into a confirmation.** A dialog that signs or spends says which keys it
  admits (`admits(event)`, see `DeliberateKeys`): keys typed before it opened, or within a
  reaction time after, are dropped with a bell before they reach any of its fields or buttons.
- **Never through a dialog that closed.** A key typed while a dialog was open was meant for
  it; when the dialog closed before the key was handled (Enter twice on Back out), the key is
  dropped rather than handed to the screen underneath, where the same Enter would open the
  highlighted offer. Keys typed after it closed go through.

Both rules are applied here, in the app, before Textual hands the key to a screen, because by
then it is too late: a field has already taken the letter, a button the Enter.
"""

from __future__ import annotations

from typing import Any, Protocol

from textual import events
from textual.app import App
from textual.message import Message
from textual.widgets import Input, TextArea

HOLD_LIMIT_S = 1.0
ALWAYS_THROUGH = frozenset({"ctrl+q"})  # quitting is never a key to hold back
# Bindings (by id) that open a form taking what is typed after their key.
TYPE_AHEAD_BINDINGS = frozenset({"board.new_offer"})


class AdmitsKeys(Protocol):
    def admits(self, event: events.Key) -> bool: ...


class KeysReleased(Message):
    """The form that asked for the keys typed ahead is ready for them."""


class KeyDesk(App[Any]):
    """Mixed into the app, before `App`: holds and admits keys as described above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: list[events.Key] | None = None
        self._closed_at = float("-inf")  # when a dialog last closed, on the keys' clock

    @property
    def holding_keys(self) -> bool:
        return self._held is not None

    def hold_keys(self) -> None:
        """Keep the keys that arrive from now on until `release_keys` (or the time limit)."""
        if self._held is None:
            self._held = []
            self.set_timer(HOLD_LIMIT_S, self.release_keys)

    def release_keys(self) -> None:
        """Hand the held keys on, after every key already queued (so in the order typed)."""
        if self._held is not None:
            self.post_message(KeysReleased())

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._held is not None:
                self._held.append(event)
                return
            if not self._admitted(event):
                return
            if self._opens_a_form(event):
                self.hold_keys()
        await super().on_event(event)

    async def _on_key(self, event: events.Key) -> None:
        """A key back from the widget it was handed to, for the app's bindings: Textual looks
        its binding up on the screen active now, so a key handed to a dialog that has closed
        since would act on the screen underneath. It acted where it was typed, or not at all."""
        if event.time < self._closed_at and event.key not in ALWAYS_THROUGH:
            event.prevent_default()  # App's own handler, next in line, looks bindings up
            event.stop()

    async def on_keys_released(self, _message: KeysReleased) -> None:
        held, self._held = self._held or [], None
        for event in held:
            if self._admitted(event):
                await super().on_event(event)

    def _opens_a_form(self, event: events.Key) -> bool:
        if isinstance(self.focused, Input | TextArea):
            return False  # the field takes the key as a letter
        active = self.active_bindings.get(event.key)
        return (active is not None and active.enabled
                and active.binding.id in TYPE_AHEAD_BINDINGS)

    def dialog_closed(self) -> None:
        """A dialog closed: keys typed before now were typed into it."""
        self._closed_at = Message().time

    def _admitted(self, event: events.Key) -> bool:
        if event.time < self._closed_at and event.key not in ALWAYS_THROUGH:
            self.bell()
            return False
        screen = self.screen
        admits = getattr(screen, "admits", None)
        if admits is None or admits(event):
            return True
        self.bell()
        return False


def release_keys(app: object) -> None:
    if isinstance(app, KeyDesk):
        app.release_keys()
