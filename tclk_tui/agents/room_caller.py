"""The caller's half of JSON-RPC over rooms: requests into a mailbox, answers from our own.

What an agent (or a test, or the benchmark) runs to call a wallet it cannot connect to. One
follower reads the reply mailbox for as long as the caller lives, from the cursor read before
the first request is written, so a fast answer can never land behind it; answers are matched
to requests by id (and to the callee's DID when given). A ring gap in the reply room fails
every request in flight with `RingGapError` (re-issue under a fresh id), never a timeout that
would look like a peer who never answered.
"""

from __future__ import annotations

import asyncio
import contextlib
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
    def __init__(self, client, reply_mailbox: str, *, wait_s: float = 10.0) -> None:
        self.client = client
        self.reply_mailbox = reply_mailbox
        self.wait_s = wait_s
        self._pending: dict[str, tuple[asyncio.Future[dict[str, Any]], str | None]] = {}
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> RoomCaller:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self, since: int | None = None) -> None:
        """Begin reading the reply room from `since` (default: its cursor now, read before any
        request is written)."""
        if self._task is not None:
            return
        if since is None:
            since = await self.client.cursor(self.reply_mailbox)
        self._task = asyncio.create_task(self._follow(since))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for future, _ in self._pending.values():
            future.cancel()
        self._pending.clear()

    def expect(self, req_id: str, callee_did: str | None = None
               ) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[req_id] = (future, callee_did)
        return future

    async def _follow(self, since: int) -> None:
        follower = self.client.follow(self.reply_mailbox, since=since, wait_s=self.wait_s)
        async for event in follower:
            if type(event).__name__ == "RingGap" and event.lost > 0:
                error = RingGapError(f"{event.lost} record(s) dropped from {self.reply_mailbox} "
                                     "before they were read: re-issue the request under a "
                                     "fresh id")
                for future, _ in self._pending.values():
                    if not future.done():
                        future.set_exception(error)
                self._pending.clear()
            for record in getattr(event, "records", ()):
                self._deliver(record)

    def _deliver(self, record) -> None:
        if not record.verified:
            return
        try:
            frame = json.loads(record.text)
        except ValueError:
            return
        req_id = frame.get("id") if isinstance(frame, dict) else None
        if not isinstance(req_id, str) or req_id not in self._pending:
            return
        future, callee = self._pending[req_id]
        if callee is not None and record.sender != callee:
            return  # someone else's line claiming to answer us: data, not an answer
        del self._pending[req_id]
        if not future.done():
            future.set_result(frame)

    async def request(self, mailbox: str, method: str, params: dict[str, Any] | None = None, *,
                      req_id: str | None = None, callee_did: str | None = None,
                      timeout_s: float = 30.0) -> dict[str, Any]:
        """Send one request and wait for its answer frame (the whole JSON-RPC response)."""
        await self.start()  # the reply cursor is read before the first write, always
        req_id = req_id or secrets.token_hex(8)
        body = dict(params or {})
        body["_meta"] = {VERSION_KEY: MCP_VERSION, REPLY_KEY: self.reply_mailbox}
        future = self.expect(req_id, callee_did)
        try:
            await self.client.post(mailbox, encode({"jsonrpc": "2.0", "id": req_id,
                                                    "method": method, "params": body}))
            async with asyncio.timeout(timeout_s):
                frame = await future
        finally:
            self._pending.pop(req_id, None)
        return await self._resolve(frame)

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
