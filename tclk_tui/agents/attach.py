"""Attach a transport process to the profile's running wallet, through its control socket.

The wallet's owner (the daemon, or the app running the engine) serves the agents' methods
beside the engine's commands (`service.agent_methods`); a process like the MCP server calls
`agents.call` there and never opens a second engine. An answer's error carries the desk's
outcome kind, so the caller rebuilds the same `ToolError` it would have met in-process.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tclk_tui.agents.errors import (
    ToolError,
    ToolFailed,
    ToolRefused,
    Unavailable,
)


def error_data(exc: ToolError) -> dict[str, Any]:
    """A desk outcome as JSON-RPC error data (the inverse of `rebuild`)."""
    data: dict[str, Any] = {"kind": "agent-tool", "tool_error": exc.kind, "reason": exc.reason,
                            "message": exc.reason}
    if isinstance(exc, ToolRefused):
        data["rule"] = exc.rule
        data["reason"] = exc.reason.removeprefix(f"{exc.rule}: ")
    return data


def rebuild(data: object) -> ToolError:
    if not isinstance(data, dict) or data.get("kind") != "agent-tool":
        reason = data.get("message") if isinstance(data, dict) else None
        return ToolFailed(str(reason or "the wallet could not run the call"))
    kind = str(data.get("tool_error", "failed"))
    reason = str(data.get("reason", ""))
    if kind == ToolRefused.kind:
        return ToolRefused(str(data.get("rule", "rule")), reason)
    return ToolError.by_kind(kind)(reason)


def attach(agent: str, profile_dir: Path
           ) -> Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]] | str:
    """A remote call into the running wallet's desk, or a sentence saying why there is none."""
    import anyio

    from tclk_tui.daemon.client import DaemonClient, NoDaemon, try_connect
    from tclk_tui.daemon.wire import RpcError

    probe = try_connect(profile_dir, timeout_s=5.0)
    if probe is None:
        return (f"no wallet is running for profile {profile_dir.name}: start `tclk-tui daemon` "
                "(or the app) first; the MCP server attaches to it and never opens a second "
                "engine")
    probe.close()

    def blocking(tool: str, params: dict[str, Any]) -> dict[str, Any]:
        with DaemonClient.for_profile(profile_dir, timeout_s=None) as client:
            return client.call("agents.call", {"agent": agent, "tool": tool, "params": params,
                                               "transport": "mcp-stdio"})

    async def remote(tool: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return await anyio.to_thread.run_sync(blocking, tool, params)
        except RpcError as exc:
            raise rebuild(exc.data) from None
        except NoDaemon:  # nothing was sent: the call did not happen
            raise Unavailable(f"no wallet is running for profile {profile_dir.name} any more: "
                              "the call did not happen; start `tclk-tui daemon` (or the app) "
                              "and call again") from None
        except OSError as exc:  # sent, then lost: the wallet may have run it
            raise ToolFailed(f"the wallet's control socket failed before it answered ({exc}): "
                             "the call may have happened; see `tclk-tui agents log`") from None

    return remote


__all__ = ["attach", "error_data", "rebuild"]
