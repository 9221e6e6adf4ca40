"""The tools an agent may be granted: one engine command each, read off the command registry.

A tool takes its command's parameters, less the confirmation a gated command needs: that is the
desk's to give (under `auto`) or the operator's (under `ask`), never the agent's. Two tools are
the agents' own: `audit` folds the venue's live exports of one deal's rooms (the registry's
audit reads files, and an agent names no file on this machine) and `approval` reads the outcome
of an approval. Built from the registry's declarations only, which import nothing heavy, so a
transport process (the MCP server on stdio) lists tools without loading the engine.
"""

from __future__ import annotations

from tclk_tui.agents.tools import Param
from tclk_tui.engine.commands import REGISTRY

DEAL_TOOLS = ("lock", "reveal", "refund", "cancel", "heartbeat", "receipt")
FROM_REGISTRY = ("board", "offer", "accept", "status", "deals", "lock", "reveal", "refund",
                 "cancel", "heartbeat", "receipt", "rails")
RENAMED = {"late": "acknowledge_late"}  # the CLI's flag, spelt out for an agent
_TYPES = {str: "string", int: "integer", bool: "boolean"}

_DEAL = Param("deal", "string", "the deal id (the offer id) or a unique prefix", required=True)
_WAIT = Param("wait_s", "integer", "under an `ask` policy, seconds to wait for the operator "
              "(0: answer pending at once; at most 300)")


def _params(name: str) -> tuple[Param, ...]:
    command = REGISTRY[name]
    out = []
    for p in command.params:
        if p.name == command.confirm or p.base not in _TYPES:
            continue
        out.append(Param(RENAMED.get(p.name, p.name), _TYPES[p.base], p.help,
                         required=p.required, enum=tuple(p.choices or ())))
    if command.gated:
        out.append(_WAIT)
    return tuple(out)


def _tools() -> tuple[tuple[str, str, tuple[Param, ...], bool], ...]:
    tools = [(name, REGISTRY[name].summary + (". Gated: the engine states the facts, then the "
                                             "manifest's policy (auto or ask) decides."
                                             if REGISTRY[name].gated else "."),
              _params(name), REGISTRY[name].gated) for name in FROM_REGISTRY]
    tools.append(("audit", "Fold the venue's exports of a deal's rooms, as an offline auditor "
                  "would, and compare with this wallet's state.", (_DEAL,), False))
    tools.append(("approval", "The outcome of an approval this agent is waiting for.",
                  (Param("approval", "string", "the approval id", required=True),), False))
    return tuple(tools)


TOOLS = _tools()
TOOL_NAMES = frozenset(t[0] for t in TOOLS)

__all__ = ["DEAL_TOOLS", "RENAMED", "TOOLS", "TOOL_NAMES"]
