"""JSON-RPC 2.0 and MCP (revision 2026-07-28) over the wallet's mailbox room.

A caller writes a request on the signed lane into the wallet's `mb-p-…` mailbox; the wallet
answers into the caller's own mailbox, named in `_meta` (`chat.technocore/reply`). The caller
is the record's verified `from` DID, which selects the one manifest naming it; a DID without a
manifest gets a refusal and nothing else. Everything read from the room is data: a request is
only ever one tool call under that manifest and the engine's gates, whatever its text says.

Delivery is at-least-once both ways, so answers are cached by (caller, request id): a replayed
request gets the same answer again and nothing runs twice. Frames are compact ASCII JSON within
the venue's 4096 characters; a larger answer goes into notes in an unlisted namespace, and the
reply names their paths.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import logging
import re
import secrets
from typing import Any

from tclk_tui import __version__
from tclk_tui.agents.desk import AgentDesk
from tclk_tui.agents.errors import BadParams, CapabilityViolation, ToolError, UnknownTool
from tclk_tui.engine.read_scheduler import ReadScheduler, Want

log = logging.getLogger("tclk_tui.agents")

MCP_VERSION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
REPLY_KEY = "chat.technocore/reply"
NOTE_KEY = "chat.technocore/notes"
MAX_FRAME = 4096
MAX_NOTE = 8000
CACHE_SIZE = 1024
MAILBOX_SETTING = "agents.mailbox"
MAILBOX_RE = re.compile(r"^mb-(p-)?[a-z0-9][a-z0-9_-]{0,44}$")

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
UNKNOWN_CALLER = -32001


def encode(frame: dict[str, Any]) -> str:
    """The one serialisation: compact and ASCII, so the venue's sweep cannot alter a frame."""
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=True, sort_keys=True)


def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def mailbox_of(journal) -> str:
    """The wallet's mailbox room, minted once per profile (unguessable) and kept."""
    name = journal.get_setting(MAILBOX_SETTING)
    if name is None:
        name = "mb-p-" + secrets.token_hex(8)
        journal.set_setting(MAILBOX_SETTING, name)
    return name


class RoomServer:
    """Answers the requests that arrive in one mailbox, through one agents' desk."""

    def __init__(self, desk: AgentDesk, client, mailbox: str, journal=None,
                 reads: ReadScheduler | None = None) -> None:
        self.desk = desk
        self.client = client
        self.mailbox = mailbox
        self.journal = journal
        # The wallet's read scheduler: the mailbox then holds one of its waiting reads for as
        # long as it is answered, inside the wallet's share of the venue's budgets.
        self.reads = reads
        self._answers: collections.OrderedDict[tuple[str, str], str] = \
            collections.OrderedDict()
        self._running: dict[tuple[str, str], asyncio.Task[str | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.gaps = 0

    def __repr__(self) -> str:
        return f"RoomServer({self.mailbox!r})"

    # -- the loop -------------------------------------------------------------------------------

    async def run(self) -> None:
        """Follow the mailbox for ever (cancel to stop), resuming from the journaled cursor."""
        cursor = self.journal.cursor(self.mailbox) if self.journal is not None else None
        # No cursor yet: the mailbox is this profile's own, so everything in it is for us.
        since = cursor.seq if cursor is not None else 0
        generation = cursor.generation if cursor is not None else None
        if self.reads is not None:
            await self._run_scheduled(since, generation)
            return
        while True:
            try:
                follower = self.client.follow(self.mailbox, since=since, generation=generation,
                                              suppress_echoes=True)
                async for event in follower:
                    await self.on_event(event)
                    since, generation = follower.cursor, follower.generation
                    if self.journal is not None and since is not None:
                        self.journal.set_cursor(self.mailbox, generation or 0, since)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the mailbox must never stop answering silently
                log.warning("mailbox %s: %s", self.mailbox, exc)
                await asyncio.sleep(2.0)

    async def _run_scheduled(self, since: int, generation: int | None) -> None:
        assert self.reads is not None

        async def handler(events: list) -> None:
            for event in events:
                await self.on_event(event)
                cursor = getattr(event, "cursor", None)
                if self.journal is not None and isinstance(cursor, int):
                    self.journal.set_cursor(self.mailbox, getattr(event, "generation", None)
                                            or 0, cursor)

        self.reads.add(self.mailbox, handler=handler, want=lambda quiet_s: Want.STANDING,
                       since=since, generation=generation, suppress_echoes=True,
                       standing=True)
        try:
            await asyncio.Event().wait()  # answered by the scheduler until cancelled
        finally:
            self.reads.drop(self.mailbox)

    async def on_event(self, event) -> None:
        records = getattr(event, "records", None)
        if records is not None:
            for record in records:
                if record.verified and record.sender != self.client.did:
                    self._spawn(self.handle(record.sender, record.text))
        elif type(event).__name__ == "RingGap" and getattr(event, "lost", 0) > 0:
            # Requests were dropped before we read them; their callers see no answer and
            # re-issue under fresh ids, as a ring gap on their side tells them to.
            self.gaps += 1
            log.warning("mailbox %s: ring gap, %d request(s) lost", self.mailbox, event.lost)

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- one request ----------------------------------------------------------------------------

    async def handle(self, sender: str, text: str) -> str | None:
        """Answer one request from a verified sender; returns the reply frame posted (if any)."""
        try:
            frame = _strict(text)
        except ValueError:
            return None  # not JSON-RPC: a chat line, ignored (no reply room to refuse into)
        if not isinstance(frame, dict) or frame.get("jsonrpc") != "2.0" or "method" not in frame:
            return None
        req_id = frame.get("id")
        if req_id is None:
            return None  # a notification: nothing to answer
        params = frame.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        reply_to = meta.get(REPLY_KEY) if isinstance(meta, dict) else None
        if reply_to is None:  # the plain JSON-RPC binding's spellings
            reply_to = frame.get("reply_to")
            if reply_to is None and isinstance(params, dict):
                reply_to = params.get("reply_to")
        if not isinstance(reply_to, str) or not MAILBOX_RE.match(reply_to):
            return None  # nowhere to answer: the signed lane only goes to a caller's mailbox
        if not isinstance(req_id, str | int) or isinstance(req_id, bool):
            return await self._post(reply_to, _error(None, INVALID_REQUEST, "bad id"))
        key = (sender, json.dumps(req_id))
        if key in self._answers:  # a replay: the same answer again, nothing runs twice
            self._answers.move_to_end(key)
            return await self._post(reply_to, self._answers[key])
        if key in self._running:  # a replay while the first is still running: one answer
            return None
        task = asyncio.ensure_future(self._answer(sender, req_id, frame, params))
        self._running[key] = task
        try:
            reply = await task
        finally:
            self._running.pop(key, None)
        self._answers[key] = reply
        while len(self._answers) > CACHE_SIZE:
            self._answers.popitem(last=False)
        return await self._post(reply_to, reply)

    async def _answer(self, sender: str, req_id: Any, frame: dict, params: object) -> str:
        method = frame["method"]
        if params is not None and not isinstance(params, dict):
            return _error(req_id, INVALID_PARAMS, "params is an object")
        params = dict(params or {})
        params.pop("_meta", None)
        params.pop("reply_to", None)
        manifest = self.desk.agent_for_did(sender)
        if manifest is None:
            return _error(req_id, UNKNOWN_CALLER, "no agent of this wallet has this DID: "
                          "refused")
        if method == "server/discover":
            return _result(req_id, {
                "supportedVersions": [MCP_VERSION], "capabilities": {"tools": {}},
                "instructions": "tclk/1 wallet tools; the operator's manifest for your DID "
                                "decides what you may do.",
                "serverInfo": {"name": "tclk-tui", "version": __version__},
                "resultType": "complete"})
        if method == "tools/list":
            return _result(req_id, {"tools": self.desk.tools_for(manifest.name),
                                    "resultType": "complete"})
        if method != "tools/call":
            return _error(req_id, METHOD_NOT_FOUND, f"no method {str(method)[:60]!r}")
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _error(req_id, INVALID_PARAMS, "tools/call takes {name, arguments}")
        try:
            result = await self.desk.call(manifest.name, name, arguments, transport="room")
        except (CapabilityViolation, UnknownTool, BadParams) as exc:
            return _error(req_id, INVALID_PARAMS, exc.reason)  # the call did not happen
        except ToolError as exc:
            data: dict[str, Any] = {"error": exc.kind, "reason": exc.reason}
            if hasattr(exc, "rule"):
                data["rule"] = exc.rule
            return _result(req_id, {"content": [{"type": "text", "text": exc.reason}],
                                    "structuredContent": data, "isError": True,
                                    "resultType": "complete"})
        return _result(req_id, {"content": [{"type": "text", "text": encode(result)}],
                                "structuredContent": result, "isError": False,
                                "resultType": "complete"})

    async def _post(self, room: str, reply: str) -> str:
        if len(reply) > MAX_FRAME:
            reply = await self._into_notes(reply)
        await self.client.post(room, reply)
        return reply

    async def _into_notes(self, reply: str) -> str:
        """A reply too big for one frame: its text in notes, the frame naming their paths."""
        frame = json.loads(reply)
        ns = "p-tclk-rpc-" + hashlib.sha256(self.mailbox.encode()).hexdigest()[:12]
        digest = hashlib.sha256(reply.encode()).hexdigest()[:20]
        paths = []
        for i in range(0, len(reply), MAX_NOTE):
            key = f"r{digest}-{i // MAX_NOTE}"
            await self.client.set_note(ns, key, reply[i:i + MAX_NOTE])
            paths.append(f"/kv/{ns}/{key}")
        return encode({"jsonrpc": "2.0", "id": frame.get("id"),
                       "result": {"_meta": {NOTE_KEY: paths}, "resultType": "complete",
                                  "content": [{"type": "text", "text": "the answer is in the "
                                               "notes named in _meta, in order"}]}})


def _result(req_id: Any, result: dict[str, Any]) -> str:
    return encode({"jsonrpc": "2.0", "id": req_id, "result": result})


def _error(req_id: Any, code: int, message: str) -> str:
    return encode({"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message}})


__all__ = ["MCP_VERSION", "REPLY_KEY", "RoomServer", "encode", "mailbox_of"]
