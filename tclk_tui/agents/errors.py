"""The ways a tool call ends other than with a result, each with a reason an agent can read.

`CapabilityViolation`, `UnknownTool`, `BadParams` and `Unavailable` mean the call did not happen
(a JSON-RPC error on the wire); `ToolRefused` (a cap, a list, an operator's denial) and
`ToolFailed` (the engine said no) mean it happened and went wrong (MCP `isError`), which a model
should see and reason about.
"""

from __future__ import annotations

from typing import Any

INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603  # JSON-RPC 2.0's codes


class ToolError(Exception):
    """Base of every tool-call outcome that is not a result; `reason` is for the agent.

    `rpc_code` says which side of the line above it stands on, for every transport at once:
    a JSON-RPC error code (the call did not happen), or None (a tool result with `isError` and
    `structured()` as its structured content)."""

    kind = "error"
    rpc_code: int | None = None

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def structured(self) -> dict[str, Any]:
        """The outcome as an MCP tool result's structured content."""
        return {"error": self.kind, "reason": self.reason}

    @staticmethod
    def by_kind(kind: str) -> type[ToolError]:
        """The outcome class of a kind (as a wire names it); an unknown kind is a failure."""
        return next((c for c in _OUTCOMES if c.kind == kind), ToolFailed)


class CapabilityViolation(ToolError):
    """The tool is not in the agent's grant (or the agent has no valid manifest)."""

    kind = "capability"
    rpc_code = INVALID_PARAMS


class UnknownTool(ToolError, KeyError):
    """The tool is granted but no tool of that name is registered."""

    kind = "unknown-tool"
    rpc_code = INVALID_PARAMS

    def __str__(self) -> str:  # KeyError would quote the message
        return self.reason


class ToolRefused(ToolError):
    """A manifest rule refused the call before the engine acted; `rule` names it."""

    kind = "refused"

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule

    def structured(self) -> dict[str, Any]:
        return {**super().structured(), "rule": self.rule}


class ToolFailed(ToolError):
    """The engine (or the rail behind it) refused; `reason` is the engine's own."""

    kind = "failed"


class BadParams(ToolError):
    """The parameters do not fit the tool's schema; nothing was run."""

    kind = "params"
    rpc_code = INVALID_PARAMS


class Unavailable(ToolError):
    """No wallet answered (none runs for the profile, or it went away): nothing was asked."""

    kind = "unavailable"
    rpc_code = INTERNAL_ERROR


_OUTCOMES: tuple[type[ToolError], ...] = (CapabilityViolation, UnknownTool, ToolRefused,
                                          ToolFailed, BadParams, Unavailable)
