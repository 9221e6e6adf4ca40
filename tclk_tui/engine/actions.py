"""The deal actions and the gated actions, each declared once: every other list derives from here.

A deal action is something the operator (or an agent under its grant) does to one deal: accept
an offer, lock, reveal, refund, cancel, post a heartbeat or a receipt, reconcile. Its row says
everything the layers above need to know about it, so a new action is a row here plus its own
code (its builder, its engine method, its tests), never another list:

- `name`: the registry command that runs it (`engine.commands`), the deal room's binding id
  (`deal.<name>`), the agents' tool; for an action that posts a frame, the frame's type (the
  protocol's own list of frame types stays in `protocol.frames`, and the table is checked
  against it);
- `label` and `key`: the deal room's key binding (the keymap file can move the key);
- `gated`, `confirm`, `request`, `title`: a gated action is a stated request (the deal's
  `request` method), then a confirmation through the command's `confirm` param, in a dialog
  titled `title`;
- `builder`: the frame it would post (`engine.prospects`); an action with a builder is legal
  now exactly when that frame passes the protocol's `apply_frame` (`engine.legal`);
- `rail_op`: the rail operation it runs, whose transaction may wait for the fee;
- `agents`: the agents' policy class around its tool (`agents.catalog`), or None: never an
  agent's tool.

`GATES` adds the gated actions that are no deal's (the seed's backup and restore, a secret
shown on screen, the arbiter's release, split and combine, a vote's commitment): each is a
`GateRequest.action`, the registry command it gates, and that command's confirming param.

Imports nothing but the protocol core, so the registry's declarations stay cheap to build.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from tclk_tui.engine import prospects
from tclk_tui.engine.prospects import Builder
from tclk_tui.protocol.frames import FRAME_TYPES

AgentPolicy = Literal["new deal", "own deal", "own deal, committing"]


@dataclass(frozen=True, slots=True)
class Action:
    """One deal action, as every layer knows it (see the module's docstring)."""

    name: str
    label: str
    key: str
    gated: bool = False
    confirm: str | None = None
    request: str | None = None
    title: str | None = None
    builder: Builder | None = None
    rail_op: str | None = None
    agents: AgentPolicy | None = None

    def __post_init__(self) -> None:
        gate = (self.confirm, self.request, self.title)
        if self.gated != all(gate) or (not self.gated and any(gate)):
            raise ValueError(f"{self.name}: a gated action has a confirm, a request and a "
                             "title; an ungated one none")
        if self.builder is not None and self.name not in FRAME_TYPES:
            raise ValueError(f"{self.name}: a builder posts a frame of the action's name")

    @property
    def frame(self) -> str | None:
        """The frame type it posts, if it posts one (reconcile posts nothing)."""
        return self.name if self.name in FRAME_TYPES else None


@dataclass(frozen=True, slots=True)
class Gate:
    """One gated action: what `GateRequest.action` says, the registry command that asks and
    confirms it, the param that confirms it, and the dialog's title (None: the action's name)."""

    name: str
    command: str
    confirm: str
    title: str | None = None


DEAL_ACTIONS: Final[tuple[Action, ...]] = (
    Action("accept", "Accept", "a", agents="new deal"),
    Action("lock", "Lock", "l", gated=True, confirm="yes", request="request_lock",
           title="Lock funds on the rail", builder=prospects.lock, rail_op="lock",
           agents="own deal, committing"),
    Action("reveal", "Reveal", "r", gated=True, confirm="confirm", request="request_reveal",
           title="Reveal the secret (claim)", builder=prospects.reveal, rail_op="claim",
           agents="own deal, committing"),
    Action("refund", "Refund", "f", gated=True, confirm="yes", request="request_refund",
           title="Refund the lock", builder=prospects.refund, rail_op="refund",
           agents="own deal"),
    Action("cancel", "Cancel", "x", gated=True, confirm="yes", request="request_cancel",
           title="Cancel the deal", builder=prospects.cancel, agents="own deal"),
    Action("heartbeat", "Heartbeat", "h", builder=prospects.heartbeat, agents="own deal"),
    Action("receipt", "Receipt", "e", builder=prospects.receipt, agents="own deal"),
    Action("reconcile", "Reconcile", "g"),
)
"""In the deal room's order (its key bindings, the footer)."""

OTHER_GATES: Final[tuple[Gate, ...]] = (
    Gate("seed-backup", "seed-backup", "yes", "Show the master seed backup"),
    Gate("seed-restore", "seed-restore", "replace", "Restore the master seed from a backup"),
    Gate("secret-reveal", "secret-reveal", "confirm", "Show one secret on screen"),
    Gate("arbiter-release", "release", "confirm", "Release to the payee, sealed"),
    Gate("arbiter-split", "split", "yes"),
    Gate("arbiter-combine", "combine", "yes"),
    Gate("vote-commit", "commit-vote", "yes", "Make a vote commitment and its salt"),
    Gate("arbiter-mint", "mint", "yes", "Publish the statement (mint)"),
    Gate("arbiter-withhold", "withhold", "confirm", "Withhold, for good"),
    # One command asks both: `vote` commits a verdict in the deal room, `vote --open` opens it.
    Gate("vote-post", "vote", "yes", "Commit a vote in the deal room"),
    Gate("vote-open", "vote", "yes", "Open this wallet's vote"),
)

ACTIONS: Final[Mapping[str, Action]] = types.MappingProxyType(
    {a.name: a for a in DEAL_ACTIONS})
GATES: Final[tuple[Gate, ...]] = (
    *(Gate(a.name, a.name, a.confirm, a.title) for a in DEAL_ACTIONS
      if a.gated and a.confirm is not None),
    *OTHER_GATES,
)
GATE_ACTIONS: Final[frozenset[str]] = frozenset(g.name for g in GATES)
GATED_DEAL_ACTIONS: Final[frozenset[str]] = frozenset(a.name for a in DEAL_ACTIONS if a.gated)
JUDGED_ACTIONS: Final[tuple[str, ...]] = tuple(a.name for a in DEAL_ACTIONS if a.builder)
"""The actions whose legality is the dry-run of their frame through `apply_frame`."""
RAIL_OPS: Final[tuple[str, ...]] = tuple(a.rail_op for a in DEAL_ACTIONS if a.rail_op)
GATE_TITLES: Final[Mapping[str, str]] = types.MappingProxyType(
    {g.name: g.title for g in GATES if g.title})
_GATE_OF_COMMAND: Final[Mapping[str, Gate]] = {g.command: g for g in GATES}


def gating(command: str) -> dict[str, Any]:
    """A registry command's `gated` and `confirm`, as the table declares them: a command that
    is a deal action or a gate's is declared with `**gating(name)`."""
    if command not in ACTIONS and command not in _GATE_OF_COMMAND:
        raise KeyError(f"{command} is neither a deal action nor a gated command")
    gate = _GATE_OF_COMMAND.get(command)
    return {"gated": gate is not None, "confirm": gate.confirm if gate else None}


def builder_of(action: str) -> Builder | None:
    """The builder of the frame `action` would post (None: no such action posts a frame)."""
    row = ACTIONS.get(action)
    return row.builder if row is not None else None


__all__ = ["ACTIONS", "DEAL_ACTIONS", "GATED_DEAL_ACTIONS", "GATES", "GATE_ACTIONS",
           "GATE_TITLES", "JUDGED_ACTIONS", "OTHER_GATES", "RAIL_OPS", "Action", "AgentPolicy",
           "Gate", "builder_of", "gating"]
