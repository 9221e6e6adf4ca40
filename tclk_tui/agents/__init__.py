"""Agents drive the wallet: capability-gated tools over one command registry.

A face like the TUI and the CLI: it may import the engine and the daemon, and nothing but the
faces imports it. The capability check is the security boundary; in-process calls, MCP over
stdio and JSON-RPC over a room are only transports in front of it.
"""
