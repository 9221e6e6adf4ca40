"""`tclk-tui mcp --agent NAME`: one agent's granted tools as an MCP server on stdio.

Built on the official `mcp` SDK (the optional `[mcp]` extra, pinned to the 2.3 API: the
low-level `mcp.server.Server` with `on_list_tools` / `on_call_tool`), imported only here and only
when this command runs. The process is a transport, not a wallet: it attaches to the profile's
running wallet (the daemon, or the app serving the same socket) and never opens an engine.

`tools/list` is read from the manifest file here; every `tools/call` goes to the wallet's desk,
which checks the grant first and everything else after (caps, lists, approvals, gates) and
journals the call whatever its outcome, so a refused call is in `tclk-tui agents log` like any
other. A tool that ran and failed is a result with `isError` and the reason; a JSON-RPC error
means the call did not happen (not granted, unknown, ill-formed parameters, no wallet running).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tclk_tui.agents.catalog import TOOL_NAMES, tool_registry
from tclk_tui.agents.errors import (
    ToolError,
)
from tclk_tui.agents.manifest import agents_dir, load_manifest
from tclk_tui.agents.tools import ToolRegistry, ToolSpec

MCP_PIN = "2.3.0"
SERVER_NAME = "tclk-tui"

RemoteCall = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def _specs() -> ToolRegistry:
    """The catalogue as specs (for tools/list and its schemas); nothing runs here."""
    return tool_registry(lambda tool: _never)


def _never(call) -> dict[str, Any]:  # the specs only describe; the wallet runs the tools
    raise RuntimeError("tools run in the wallet's process")


def build_server(agent: str, profile_dir: Path, remote: RemoteCall):
    """The MCP server for one agent; `remote(tool, params)` runs a call in the wallet."""
    import mcp_types as types
    from mcp.server import Server
    from mcp.shared.exceptions import MCPError

    from tclk_tui import __version__

    specs = _specs()
    path = agents_dir(profile_dir) / f"{agent}.toml"

    def manifest():
        return load_manifest(path, TOOL_NAMES)

    def tool_of(spec: ToolSpec):
        return types.Tool(name=spec.name, description=spec.description,
                          input_schema=spec.json_schema())

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool_of(s) for s in specs.granted(manifest())])

    async def call_tool(ctx, params) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        try:
            result = await remote(name, arguments)
        except ToolError as exc:
            if exc.rpc_code is not None:  # the call did not happen
                raise MCPError(exc.rpc_code, exc.reason) from None
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=exc.reason)], is_error=True,
                structured_content=exc.structured())
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(result, sort_keys=True))],
            structured_content=result)

    return Server(SERVER_NAME, version=__version__,
                  instructions=f"tclk/1 wallet tools for agent {agent}; the operator's "
                               "manifest decides what you may do.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def run_mcp(agent: str, profile_dir: Path) -> int:
    """Serve until stdin closes; refuse, on stderr, when no wallet runs for the profile."""
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError:
        print("tclk-tui: the MCP server needs the optional extra: pip install "
              "'tclk-tui[mcp]'", file=sys.stderr)
        return 1
    from tclk_tui.agents.attach import attach

    remote = attach(agent, profile_dir)
    if isinstance(remote, str):
        print(f"tclk-tui: {remote}", file=sys.stderr)
        return 1
    server = build_server(agent, profile_dir, remote)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    return 0


__all__ = ["MCP_PIN", "build_server", "run_mcp"]
