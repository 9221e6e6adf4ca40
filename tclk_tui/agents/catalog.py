"""The tools an agent may be granted: one table, each tool a registry command and its policy.

A tool's name, description, parameters and checks are its command's (`engine.commands`), read
off the declaration, never written again here: a tool takes its command's params, less the
confirmation a gated command needs (that is the desk's to give under `auto`, or the operator's
under `ask`, never the agent's), with the CLI's `late` spelt out. What this table adds is the
agents' policy around the command, declared once: which commands an agent may be granted at
all, and which checks the desk runs around each (`Policy`). Whether a tool is gated (and so
needs `auto` or an operator's approval) is the command's own `gated`.

Two parameters are the policy's own, declared here: `wait_s` on every gated tool (how long the
agent waits for the operator) and `approval` on the one tool that is the desk's, not the
engine's (`approval` reads the outcome of an approval from the wallet's ledger).

A command that shows a secret (`shows_secret`: the seed's backup, a deal's secret, shares) or
runs on the vault (the seed's commands) is never an agent's tool: `_check` refuses a table that
names one, at import. Built from the declarations only, which import nothing heavy, so a
transport process (the MCP server on stdio) lists tools without loading the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from tclk_tui.agents.tools import Run, ToolRegistry
from tclk_tui.engine.commands import REGISTRY, Command, Param

RENAMED = {"late": "acknowledge_late"}  # the CLI's flag, spelt out for an agent


@dataclass(frozen=True, slots=True)
class Policy:
    """The checks the desk runs around a tool's command, beyond the grant (always first)."""

    name: str
    reads: bool = False  # acts on nothing: journaled as a read, never durably
    own_deal: bool = False  # acts on a deal the agent offered or accepted itself, no other
    commits: bool = False  # commits the wallet's money: caps, rails and counterparties


READ = Policy("read", reads=True)
NEW_DEAL = Policy("new deal", commits=True)  # and the open-deals limit
OWN_DEAL = Policy("own deal", own_deal=True)
OWN_DEAL_COMMITS = Policy("own deal, committing", own_deal=True, commits=True)

WAIT = Param("wait_s", int, "under an `ask` policy, seconds to wait for the operator (0: "
             "answer pending at once; at most 300)")
APPROVAL_ID = Param("approval", str, "the approval id", required=True)


@dataclass(frozen=True, slots=True)
class AgentTool:
    """One tool: the registry command it runs (`command`, its own name unless said; None for
    the desk's own `approval`) under a policy."""

    name: str
    policy: Policy
    command: str | None = ""
    description: str = ""  # only for a tool that runs no command

    @property
    def declaration(self) -> Command | None:
        name = self.name if self.command == "" else self.command
        return REGISTRY[name] if name is not None else None

    @property
    def command_name(self) -> str | None:
        declaration = self.declaration
        return declaration.name if declaration is not None else None

    @property
    def gated(self) -> bool:
        declaration = self.declaration
        return declaration is not None and declaration.gated

    @property
    def summary(self) -> str:
        declaration = self.declaration
        if declaration is None:
            return self.description
        return declaration.summary + (". Gated: the engine states the facts, then the "
                                      "manifest's policy (auto or ask) decides."
                                      if declaration.gated else ".")

    @property
    def params(self) -> tuple[Param, ...]:
        """The command's params as the agent spells them, then the policy's own."""
        declaration = self.declaration
        if declaration is None:
            return (APPROVAL_ID,)
        out = [dataclasses.replace(p, name=RENAMED[p.name]) if p.name in RENAMED else p
               for p in declaration.params if p.name != declaration.confirm]
        return (*out, WAIT) if declaration.gated else tuple(out)


CATALOG: tuple[AgentTool, ...] = (
    AgentTool("board", READ),
    AgentTool("offer", NEW_DEAL),
    AgentTool("accept", NEW_DEAL),
    AgentTool("status", READ),
    AgentTool("deals", READ),
    AgentTool("lock", OWN_DEAL_COMMITS),
    AgentTool("reveal", OWN_DEAL_COMMITS),
    AgentTool("refund", OWN_DEAL),
    AgentTool("cancel", OWN_DEAL),
    AgentTool("heartbeat", OWN_DEAL),
    AgentTool("receipt", OWN_DEAL),
    AgentTool("rails", READ),
    AgentTool("audit", READ, command="audit-deal"),
    AgentTool("approval", READ, command=None,
              description="The outcome of an approval this agent is waiting for."),
)


def _check(catalog: tuple[AgentTool, ...]) -> None:
    for tool in catalog:
        declaration = tool.declaration
        if declaration is None:
            continue
        if declaration.shows_secret or declaration.vault_alone or \
                any(p.secret for p in declaration.params):
            raise ValueError(f"{declaration.name} shows or takes a secret: never an agent's")
        if not declaration.needs_wallet:
            raise ValueError(f"{declaration.name} reads files of this machine: not an agent's")


def tool_registry(runner: Callable[[AgentTool], Run]) -> ToolRegistry:
    """The catalogue as a tool registry, each tool run by `runner(tool)`."""
    registry = ToolRegistry()
    for tool in CATALOG:
        registry.register(tool.name, tool.summary, runner(tool), params=tool.params,
                          gated=tool.gated)
    return registry


_check(CATALOG)
BY_NAME = {tool.name: tool for tool in CATALOG}
TOOL_NAMES = frozenset(BY_NAME)
FROM_REGISTRY = tuple(t.name for t in CATALOG if t.command == "")  # tool name = command name
DEAL_TOOLS = tuple(t.name for t in CATALOG if t.policy.own_deal)
GATED_TOOLS = tuple(t.name for t in CATALOG if t.gated)
READ_TOOLS = frozenset(t.name for t in CATALOG if t.policy.reads)

__all__ = ["BY_NAME", "CATALOG", "DEAL_TOOLS", "FROM_REGISTRY", "GATED_TOOLS", "NEW_DEAL",
           "OWN_DEAL", "OWN_DEAL_COMMITS", "READ", "READ_TOOLS", "RENAMED", "TOOL_NAMES",
           "AgentTool", "Policy", "tool_registry"]
