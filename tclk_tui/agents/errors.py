"""The ways a tool call ends other than with a result, each with a reason an agent can read.

`CapabilityViolation`, `UnknownTool`, `BadParams` and `Unavailable` mean the call did not happen
(a JSON-RPC error on the wire); `ToolRefused` (a cap, a list, an operator's denial) and
`ToolFailed` (the engine said no) mean it happened and went wrong (MCP `isError`), which a model
should see and reason about.
"""

from __future__ import annotations


class ToolError(Exception):
    """Base of every tool-call outcome that is not a result; `reason` is for the agent."""

    kind = "error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CapabilityViolation(ToolError):
    """The tool is not in the agent's grant (or the agent has no valid manifest)."""

    kind = "capability"


class UnknownTool(ToolError, KeyError):
    """The tool is granted but no tool of that name is registered."""

    kind = "unknown-tool"

    def __str__(self) -> str:  # KeyError would quote the message
        return self.reason


class ToolRefused(ToolError):
    """A manifest rule refused the call before the engine acted; `rule` names it."""

    kind = "refused"

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule


class ToolFailed(ToolError):
    """The engine (or the rail behind it) refused; `reason` is the engine's own."""

    kind = "failed"


class BadParams(ToolError):
    """The parameters do not fit the tool's schema; nothing was run."""

    kind = "params"


class Unavailable(ToolError):
    """No wallet answered (none runs for the profile, or it went away): nothing was asked."""

    kind = "unavailable"
