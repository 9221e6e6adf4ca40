"""The app's controllers: one plain object per pane (and one for the engine's event stream and
one for the palette and help), each holding that pane's logic; `TclkApp` builds them and routes
Textual's messages, keys and timers to them."""
