"""The one owner of a profile: control socket, JSON-RPC over it, and the clients that attach.

Everything a client imports from here (paths, client, wire) stays free of the engine, httpx and
Textual, so a CLI call through a running daemon starts in milliseconds.
"""
