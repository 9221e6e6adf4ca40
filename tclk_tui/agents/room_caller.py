"""The caller's half of JSON-RPC over rooms: a request into a mailbox, the answer from ours.

What an agent (or a test, or the benchmark) runs to call a wallet it cannot connect to. The
reply room's cursor is read before the request is written, so a fast answer cannot land behind
it; a ring gap in the reply room raises `RingGapError` (re-issue under a fresh id), never a
timeout that would look like a peer who never answered.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

from tclk_tui.agents.room import MCP_VERSION, NOTE_KEY, REPLY_KEY, VERSION_KEY, encode


class RingGapError(Exception):
    """Records were dropped from the reply room before we read them: re-issue the request."""


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class RoomCaller:
    def __init__(self, client, reply_mailbox: str) -> None:
        self.client = client
        self.reply_mailbox = reply_mailbox

    async def request(self, mailbox: str, method: str, params: dict[str, Any] | None = None, *,
                      req_id: str | None = None, callee_did: str | None = None,
                      timeout_s: float = 30.0) -> dict[str, Any]:
        """Send one request and wait for its answer frame (the whole JSON-RPC response)."""
        req_id = req_id or secrets.token_hex(8)
        since = await self.client.cursor(self.reply_mailbox)  # before writing, always
        body = dict(params or {})
        body["_meta"] = {VERSION_KEY: MCP_VERSION, REPLY_KEY: self.reply_mailbox}
        await self.client.post(mailbox, encode({"jsonrpc": "2.0", "id": req_id,
                                                "method": method, "params": body}))
        return await self.answer(req_id, since, callee_did=callee_did, timeout_s=timeout_s)

    async def answer(self, req_id: str, since: int, *, callee_did: str | None = None,
                     timeout_s: float = 30.0) -> dict[str, Any]:
        follower = self.client.follow(self.reply_mailbox, since=since, wait_s=2.0)
        async with asyncio.timeout(timeout_s):
            async for event in follower:
                if type(event).__name__ == "RingGap" and event.lost > 0:
                    raise RingGapError(f"{event.lost} record(s) dropped from "
                                       f"{self.reply_mailbox} before they were read: re-issue "
                                       "the request under a fresh id")
                for record in getattr(event, "records", ()):
                    if not record.verified or (callee_did and record.sender != callee_did):
                        continue
                    try:
                        frame = json.loads(record.text)
                    except ValueError:
                        continue
                    if isinstance(frame, dict) and frame.get("id") == req_id:
                        return await self._resolve(frame)
        raise TimeoutError  # pragma: no cover - the follower never ends by itself

    async def _resolve(self, frame: dict[str, Any]) -> dict[str, Any]:
        result = frame.get("result")
        paths = result.get("_meta", {}).get(NOTE_KEY) if isinstance(result, dict) else None
        if not paths:
            return frame
        parts = []
        for path in paths:
            _, _, ns, key = path.split("/", 3)
            value = await self.client.get_note(ns, key)
            if value is None:
                raise RpcError(-32603, f"the answer's note {path} is gone")
            parts.append(value)
        return json.loads("".join(parts))

    async def call_tool(self, mailbox: str, name: str, arguments: dict[str, Any] | None = None,
                        **kwargs: Any) -> dict[str, Any]:
        """tools/call: the tool's result (`structuredContent`, `isError`) or RpcError."""
        frame = await self.request(mailbox, "tools/call",
                                   {"name": name, "arguments": arguments or {}}, **kwargs)
        if "error" in frame:
            raise RpcError(int(frame["error"].get("code", -32603)),
                           str(frame["error"].get("message", "")))
        return frame["result"]


__all__ = ["RingGapError", "RoomCaller", "RpcError"]
