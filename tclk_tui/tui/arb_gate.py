"""One gated registry command behind the confirm modal, for the arbitration pane's forms.

The request shown is the one the registry states (`door.state`), and confirming runs the
command with its confirmation (`engine.door.perform`), so the engine states and re-checks it
again: the form never decides, and a secret it shows (shares, a rebuilt value, a salt) is the
answer of a command the operator confirmed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from textual.widget import Widget

from tclk_tui.engine.door import Door, perform
from tclk_tui.tui.gate_screen import GateScreen


def open_gate(widget: Widget, door: Door, name: str, params: Mapping[str, Any],
              done: Callable[[Any], None], *, follow: bool = False) -> None:
    """State `name`'s request now (a refusal raises, for the caller to say in its words) and
    open it in the gate modal; `done` gets the performed answer, or None when the operator
    backed out. `follow`: ask the request again while the modal is open, for facts that move
    with time (a case's deadline, its lock); a calculator's facts do not, so it passes none."""
    params = dict(params)
    request = door.state(name, params)
    gate = GateScreen(request, lambda _newest, typed, late: perform(door, name, params, typed,
                                                                    late),
                      refresh=(lambda: door.state(name, params)) if follow else None)
    opener = getattr(widget.app, "open_dialog", None)
    if opener is not None:
        opener(gate, done)
    else:
        widget.app.push_screen(gate, done)
