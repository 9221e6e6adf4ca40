"""JSON-RPC 2.0 and MCP (revision 2026-07-28) over the wallet's mailbox room.

A caller writes a request on the signed lane into the wallet's `mb-p-…` mailbox; the wallet
answers into the caller's own mailbox, named in `_meta` (`chat.technocore/reply`). The caller
is the record's verified `from` DID, which selects the one manifest naming it; a line from a DID
no manifest names is counted and nothing else (no answer into a room it chose, no journal row).
Everything read from the room is data: a request is only ever one tool call under that manifest
and the engine's gates, whatever its text says.

A signed request runs at most once, ever. Its nonce must be above the last one the wallet took
from that caller (journaled per caller: the venue's single-use rule, which lasts only while the
record is in its nonce tail, kept for ever), so a copy re-posted by anyone, or read again after
a restart, is counted and neither run nor answered (a new request below the mark is told to
count up). Delivery is at-least-once, so a caller that
retries (a new signed write) under the same request id gets the cached answer again, and once
that is gone (a restart) a refusal saying so, never a second run: the latest request ids are
journaled per caller too. Frames are compact ASCII JSON within
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
from tclk_tui.agents.errors import ToolError
from tclk_tui.engine.sync.read_scheduler import ReadScheduler, Want

log = logging.getLogger("tclk_tui.agents")

MCP_VERSION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
REPLY_KEY = "chat.technocore/reply"
NOTE_KEY = "chat.technocore/notes"
MAX_FRAME = 4096
MAX_NOTE = 8000
CACHE_SIZE = 1024
MAX_ID = 128  # a request id's JSON, at most: ids are journaled per caller
MAILBOX_SETTING = "agents.mailbox"
MAILBOX_RE = re.compile(r"^mb-(p-)?[a-z0-9][a-z0-9_-]{0,44}$")

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INTERNAL_ERROR = -32603


def encode(frame: dict[str, Any]) -> str:
    """The one serialisation: compact and ASCII, so the venue's sweep cannot alter a frame."""
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=True, sort_keys=True)


def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def mailbox_of(journal) -> str:
    """The wallet's mailbox room, minted once per profile (unguessable) and kept."""
    name = journal.settings.get(MAILBOX_SETTING)
    if name is None:
        name = "mb-p-" + secrets.token_hex(8)
        journal.settings.set(MAILBOX_SETTING, name)
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
        self.replays = 0
        self.strangers = 0
        self.room_refusals = 0

    def __repr__(self) -> str:
        return f"RoomServer({self.mailbox!r})"

    # -- the loop -------------------------------------------------------------------------------

    async def run(self) -> None:
        """Follow the mailbox for ever (cancel to stop), resuming from the journaled cursor."""
        cursor = self.journal.cursors.get(self.mailbox) if self.journal is not None else None
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
                        self.journal.cursors.set(self.mailbox, generation or 0, since)
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
                    self.journal.cursors.set(self.mailbox, getattr(event, "generation", None)
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
            callers = self.desk.callers() if records else {}
            for record in records:
                if not record.verified or record.sender == self.client.did:
                    continue
                if record.sender not in callers:
                    self._stranger(record.sender)
                else:
                    self._spawn(self._handled(record.sender, record.text, record.nonce))
        elif type(event).__name__ == "RingGap" and getattr(event, "lost", 0) > 0:
            # Requests were dropped before we read them; their callers see no answer and
            # re-issue under fresh ids, as a ring gap on their side tells them to.
            self.gaps += 1
            log.warning("mailbox %s: ring gap, %d request(s) lost", self.mailbox, event.lost)

    def _stranger(self, sender: str) -> None:
        """A line from a DID no manifest names: counted, never parsed, answered or journaled,
        so strangers cost the wallet no write, no new room and no journal row."""
        self.strangers += 1
        if self.strangers in (1, 10) or self.strangers % 100 == 0:
            log.info("mailbox %s: %d line(s) from DIDs no manifest names, ignored (latest %s)",
                     self.mailbox, self.strangers, sender[:24])

    async def _handled(self, sender: str, text: str, nonce: str | None) -> None:
        try:
            await self.handle(sender, text, nonce)
        except Exception as exc:  # the answer could not be posted (the venue): logged
            log.warning("mailbox %s: could not answer %s: %s", self.mailbox, sender[:24], exc)

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait until every request read so far has been handled (answered or refused)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- one request ----------------------------------------------------------------------------

    async def handle(self, sender: str, text: str, nonce: str | None) -> str | None:
        """Answer one request from a caller a manifest names, signed with `nonce`; returns
        the reply frame posted (if any). Everything up to the journal's `take_request` runs
        before the first await, so requests are taken in the order they were read."""
        found = _addressed(text)
        if found is None or self.desk.agent_for_did(sender) is None:
            return None  # not a request we can answer (a chat line), or a stranger's now
        frame, req_id, reply_to = found
        params = frame.get("params")
        good = _good_id(req_id)
        key = (sender, json.dumps(req_id) if good else "")
        taken = self.desk.ledger.take_request(sender, _nonce(nonce), key[1] if good else None,
                                              reply_to)
        if taken == "rooms":  # answering would spend the wallet's new rooms: not run either
            self.room_refusals += 1
            log.warning("mailbox %s: %s named one new reply room more than it may a day; the "
                        "request was not run", self.mailbox, sender[:24])
            return None
        if taken == "replay":
            return await self._replayed(sender, nonce, req_id if good else None, reply_to)
        if not good:
            return await self._post(reply_to, _error(None, INVALID_REQUEST, "bad id"))
        if key in self._answers:  # a retry: the same answer again, nothing runs twice
            self._answers.move_to_end(key)
            return await self._post(reply_to, self._answers[key])
        if key in self._running:  # a retry while the first is still running: one answer
            return None
        if taken == "used":
            return await self._post(reply_to, _error(req_id, INVALID_REQUEST, (
                "this request id was answered already and its answer is no longer held (a "
                "restart): nothing ran again; read the state, and use a fresh id to ask anew")))
        task = asyncio.ensure_future(self._answer(sender, req_id, frame, params))
        self._running[key] = task
        try:
            reply = await task
        except Exception as exc:  # a fault of ours: the caller is told, the server goes on
            log.exception("mailbox %s: a request from %s failed", self.mailbox, sender[:24])
            reply = _error(req_id, INTERNAL_ERROR, f"unexpected {type(exc).__name__}")
        finally:
            self._running.pop(key, None)
        if reply is None:
            return None
        self._answers[key] = reply
        while len(self._answers) > CACHE_SIZE:
            self._answers.popitem(last=False)
        return await self._post(reply_to, reply)

    async def _replayed(self, sender: str, nonce: str | None, req_id: Any,
                        reply_to: str) -> str | None:
        """A record whose nonce is not above the last one taken from its caller: nothing runs.
        A copy of a request already taken (re-posted by anyone once the venue's nonce tail
        forgot it, or read again after a restart) is counted and not answered, so a replay
        costs the wallet no write; a new request (the caller's counter went back) is told to
        count up."""
        self.replays += 1
        log.warning("mailbox %s: a replayed request from %s (nonce %s) was refused",
                    self.mailbox, sender[:24], str(nonce)[:20])
        if req_id is None or self.desk.ledger.request_id_used(sender, json.dumps(req_id)):
            return None
        return await self._post(reply_to, _error(req_id, INVALID_REQUEST, (
            "the record's nonce is not above the last one this wallet took from you: a signed "
            "request runs once; sign it again with a higher nonce")))

    async def _answer(self, sender: str, req_id: Any, frame: dict, params: object
                      ) -> str | None:
        method = frame["method"]
        if params is not None and not isinstance(params, dict):
            return _error(req_id, INVALID_PARAMS, "params is an object")
        params = dict(params or {})
        params.pop("_meta", None)
        params.pop("reply_to", None)
        manifest = self.desk.agent_for_did(sender)
        if manifest is None:
            return None  # never answered: a stranger's reply room is the stranger's choice
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
        try:  # an ill-formed call goes to the desk too: it refuses it, and journals that
            result = await self.desk.call(manifest.name, name if isinstance(name, str) else "",
                                          arguments, transport="room")
        except ToolError as exc:
            if exc.rpc_code is not None:  # the call did not happen
                return _error(req_id, exc.rpc_code, exc.reason)
            return _result(req_id, {"content": [{"type": "text", "text": exc.reason}],
                                    "structuredContent": exc.structured(), "isError": True,
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


def _addressed(text: str) -> tuple[dict[str, Any], Any, str] | None:
    """(frame, id, reply mailbox) of a JSON-RPC request that can be answered, else None."""
    try:
        frame = _strict(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than we read
        return None
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
    return frame, req_id, reply_to


def _nonce(text: str | None) -> int | None:
    try:
        return int(str(text)) if text is not None and str(text).isascii() else None
    except ValueError:
        return None


def _good_id(req_id: Any) -> bool:
    return isinstance(req_id, str | int) and not isinstance(req_id, bool) \
        and len(json.dumps(req_id)) <= MAX_ID


def _result(req_id: Any, result: dict[str, Any]) -> str:
    return encode({"jsonrpc": "2.0", "id": req_id, "result": result})


def _error(req_id: Any, code: int, message: str) -> str:
    return encode({"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message}})


__all__ = ["MCP_VERSION", "REPLY_KEY", "RoomServer", "encode", "mailbox_of"]
