"""Async client for a technocore venue (the public service or a local rehearsal of it).

Written against the venue's manual, not any one deployment: every limit it relies on is the
manual's, rate limits are learnt from 429 bodies, and anything the venue answers is checked
before it is believed (records re-verified, cursors sanity-checked, replies size-capped). Writes
go through the signed lane only: an unsigned line proves nothing and mailboxes refuse it.

A signed write is safe to retry with the same bytes: if the first attempt landed, the venue
refuses the replayed nonce, and the client then finds its own record in the room and reports
the write as done instead of failing or posting twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import itertools
import json
import logging
import re
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal
from urllib.parse import quote, urlsplit

import httpx

from tclk_tui import __version__
from tclk_tui.protocol.naming import did_note, legacy_did_note
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.technocore.budget import BudgetKind, RoomBudgetSpent, VenueBudget
from tclk_tui.technocore.errors import (
    Conflict,
    MalformedResponse,
    NonceRejected,
    NotFound,
    RateLimited,
    ReplyLost,
    VenueError,
    VenueUnavailable,
    error_for_status,
    error_label,
)
from tclk_tui.technocore.follow import RecordsEvent, RingGap, RoomFollower
from tclk_tui.technocore.identity import Identity, canonical_nonce, check_signable_text, is_name
from tclk_tui.technocore.nonces import MemoryNonceStore, NonceAllocator, NonceStore
from tclk_tui.technocore.notes import (
    MAX_NOTE_CHARS,
    DidNote,
    NoteWrite,
    VenueNotes,
    compose_did_note,
    parse_did_note,
    parse_note_body,
)
from tclk_tui.technocore.records import (
    MAX_SAFE_INT,
    RoomExport,
    RoomView,
    SignatureKey,
    VenueRecord,
    loads_strict,
    parse_export,
    parse_posted,
    parse_room_view,
)
from tclk_tui.technocore.retry import RetryPolicy
from tclk_tui.technocore.sweep import survives_sweep

Lane = Literal["post", "get"]
log = logging.getLogger(__name__)

MAX_LIMIT = 200
MAX_WAIT_S = 10.0
MAX_GET_URL_BYTES = 16_000
READ_CAP_BYTES = 8 * 1024 * 1024
EXPORT_CAP_BYTES = 64 * 1024 * 1024
SMALL_CAP_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: bytes
    headers: httpx.Headers
    attempts: int

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class PostResult:
    """A signed write the venue accepted.

    `record` is the stored record as the venue reports it (checked against what was signed), or
    the record found in the room when a retried write had already landed (`replayed` True).
    """

    room: str
    text: str
    nonce: int
    did: str
    sig: str
    lane: Lane
    record: VenueRecord | None
    replayed: bool = False

    @property
    def seq(self) -> int | None:
        return self.record.seq if self.record is not None else None


@dataclass(frozen=True, slots=True)
class AwaitedReply:
    """A write and the first matching record from someone else in the reply room (None on
    timeout)."""

    post: PostResult
    reply: VenueRecord | None


@dataclass(frozen=True, slots=True)
class VenueSettings:
    """`/config`: every knob the deployment runs with, keyed like its environment variables."""

    service: str | None
    version: str | None
    settings: Mapping[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.settings.get(name, default)


_BRACKETED_RE = re.compile(r"\[[^\]]*\](:[0-9]*)?")
_LABEL_RE = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?")


def _host_problem(host: str, *, bracketed: bool) -> str:
    """Why `host` (as urlsplit gives it: lower case, brackets off) cannot be a host, or ""."""
    if bracketed:
        try:
            ipaddress.IPv6Address(host.partition("%")[0])
        except ValueError:
            return f"has {host!r} in brackets, which is not an IPv6 address"
        return ""
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if labels[-1].isdigit() or all(label.isdigit() for label in labels):
        # A name's last label is never all digits: this is an IPv4 address or nothing.
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            return (f"has host {host!r}, which is not an IPv4 address (four numbers 0-255 "
                    "with dots between) nor a host name")
        return ""
    if len(name) > 253 or not all(_LABEL_RE.fullmatch(label) for label in labels):
        return (f"has host {host!r}, which is not a host name (dot-separated labels of 1-63 "
                "letters, digits and inner hyphens)")
    return ""


def check_venue_url(url: object) -> str:
    """The venue's base URL without its trailing slash, or ValueError with a sentence.

    Checked before any request, so a typo is one clear refusal instead of an error from deep in
    the HTTP stack: http(s) only, a host that can be one (an IPv4 address of four numbers up to
    255, an IPv6 address in brackets, or a host name), a port in 1..65535, no credentials,
    query or fragment, nothing invisible.
    """
    if not isinstance(url, str) or not url.isascii() or not url.isprintable() or " " in url:
        raise ValueError("the venue URL must be plain text without spaces, e.g. "
                         "https://technocore.chat")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        if "port" in str(exc).lower():
            raise ValueError(f"the venue URL {url!r} has a bad port: use 1-65535") from None
        raise ValueError(f"the venue URL {url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"the venue URL {url!r} must start with http:// or https://")
    if not parts.hostname:
        raise ValueError(f"the venue URL {url!r} names no host")
    hostport = parts.netloc.rpartition("@")[2]
    if "[" in hostport and not _BRACKETED_RE.fullmatch(hostport):
        raise ValueError(f"the venue URL {url!r} has text after its bracketed address: only "
                         "a port may follow it (:1-65535)")
    problem = _host_problem(parts.hostname, bracketed="[" in parts.netloc)
    if problem:
        raise ValueError(f"the venue URL {url!r} {problem}")
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f"the venue URL {url!r} has port {port}: use 1-65535")
    if parts.username is not None or parts.password is not None:
        raise ValueError("the venue URL must not carry a user name or password")
    if parts.query or parts.fragment:
        raise ValueError(f"the venue URL {url!r} must not have a query or fragment")
    return url.rstrip("/")


_HEX32_RE = re.compile(r"(?:0x)?([0-9a-fA-F]{64})")


def _without_our_values(error: VenueError, body: Mapping[str, Any] | None) -> VenueError:
    """The error with every 32-byte hex value we sent taken out of its message and detail.

    Error messages quote the first line of the venue's reply, and a venue (or a proxy) may echo
    the request there: a paper-rail claim's note, or a reveal frame that failed to post, would
    then carry the secret into an exception, a log line or the screen.
    """
    if not body:
        return error
    ours = {m.lower() for m in _HEX32_RE.findall(json.dumps(body))}
    if not ours:
        return error

    def scrub(text: str) -> str:
        return _HEX32_RE.sub(
            lambda m: "<redacted>" if m.group(1).lower() in ours else m.group(0), text)

    error.args = tuple(scrub(a) if isinstance(a, str) else a for a in error.args)
    error.detail = scrub(error.detail)
    return error


def _log_rate_limit(what: str, error: VenueError, wait_s: float, limited: int, waited: float,
                    policy: RetryPolicy, waiting: bool) -> None:
    kind = getattr(error, "kind", "unknown")
    spent = (f"429 {limited} of at most {policy.rate_limit_retries}, {waited:.1f} s of "
             f"{policy.rate_limit_budget_s:g} s waited so far")
    if waiting:
        log.warning("%s: rate limited (%s budget): waiting %.1f s (%s)", what, kind, wait_s,
                    spent)
    else:
        log.warning("%s: rate limited (%s budget): a further %.1f s would pass what one request "
                    "may wait (%s): giving up", what, kind, wait_s, spent)


def encode_segment(text: str) -> str:
    """Percent-encode a path segment for the GET lanes (dots too: clients normalise `..`)."""
    return quote(text, safe="").replace(".", "%2E")


class VenueClient:
    """One venue, one optional identity. Use as `async with VenueClient(url, identity) as v:`."""

    def __init__(
        self,
        base_url: str,
        identity: Identity | None = None,
        nonces: NonceAllocator | NonceStore | None = None,
        http: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        *,
        timeout_s: float = 15.0,
        budget: VenueBudget | None = None,
        source_address: str | None = None,
    ) -> None:
        self.base_url = check_venue_url(base_url)
        self.identity = identity
        self.retry = retry if retry is not None else RetryPolicy()
        self.timeout_s = timeout_s
        # The venue's per-address budgets this client spends from (None: not counted here).
        self.budget = budget
        self._owns_http = http is None
        # `source_address` is the local address requests leave from: the venue keys its
        # budgets by it, so a host with several addresses can give each wallet its own.
        self._http = http if http is not None else httpx.AsyncClient(
            headers={"User-Agent": f"tclk-tui/{__version__}"},
            timeout=timeout_s,
            follow_redirects=False,
            transport=(httpx.AsyncHTTPTransport(local_address=source_address)
                       if source_address else None),
        )
        self._counter = itertools.count(1)
        self.nonces: NonceAllocator | None
        if identity is None:
            self.nonces = None
        elif isinstance(nonces, NonceAllocator):
            if nonces.did != identity.did:
                raise ValueError("the nonce allocator belongs to another identity")
            self.nonces = nonces
        else:
            self.nonces = NonceAllocator(identity.did, nonces or MemoryNonceStore())

    @property
    def did(self) -> str | None:
        return self.identity.did if self.identity is not None else None

    def __repr__(self) -> str:
        return f"VenueClient({self.base_url!r}, did={self.did!r})"

    async def __aenter__(self) -> VenueClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    # -- transport -------------------------------------------------------------------------

    async def _once(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str | int | float] | None,
        json_body: Mapping[str, Any] | None,
        timeout_s: float,
        cap: int,
        what: str,
    ) -> tuple[int, bytes, httpx.Headers]:
        # httpx's timeout bounds each socket operation, so a server trickling one byte at a
        # time would hold a read forever; the deadline bounds the whole request on the clock.
        try:
            async with asyncio.timeout(timeout_s), self._http.stream(
                method, url, params=params, json=json_body, timeout=timeout_s
            ) as response:
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > cap:
                        raise MalformedResponse(f"{what}: venue reply exceeds {cap} bytes")
                    chunks.append(chunk)
                return response.status_code, b"".join(chunks), response.headers
        except (httpx.TimeoutException, TimeoutError):
            raise VenueUnavailable(f"{what}: no answer within {timeout_s:g}s") from None
        except httpx.DecodingError:
            raise MalformedResponse(f"{what}: venue reply could not be decoded") from None
        except httpx.TransportError as exc:
            raise VenueUnavailable(f"{what}: venue unreachable ({type(exc).__name__})") from None

    async def _request(
        self,
        method: str,
        path: str,
        *,
        what: str,
        params: Mapping[str, str | int | float] | None = None,
        json_body: Mapping[str, Any] | None = None,
        timeout_s: float | None = None,
        cap: int = SMALL_CAP_BYTES,
        retry: RetryPolicy | None = None,
        accept: tuple[int, ...] = (),
    ) -> Reply:
        """Send with the retry policy. Returns 2xx replies (and any status in `accept`)."""
        try:
            return await self._attempts(method, path, what=what, params=params,
                                        json_body=json_body, timeout_s=timeout_s, cap=cap,
                                        retry=retry, accept=accept)
        except VenueError as error:
            raise _without_our_values(error, json_body) from None

    async def _attempts(
        self,
        method: str,
        path: str,
        *,
        what: str,
        params: Mapping[str, str | int | float] | None,
        json_body: Mapping[str, Any] | None,
        timeout_s: float | None,
        cap: int,
        retry: RetryPolicy | None,
        accept: tuple[int, ...],
    ) -> Reply:
        policy = retry or self.retry
        url = self.base_url + path
        timeout = self.timeout_s if timeout_s is None else timeout_s
        budget = self.budget
        kind = _budget_kind(method, path) if budget is not None else None
        order = path.split("/", 3)[2] if kind == "write" else ""  # the room (or namespace)
        attempt = 0
        waited = 0.0
        limited = 0
        while True:
            attempt += 1
            try:
                if budget is not None and kind is not None:  # every attempt costs a token
                    await budget.spend(kind, what, order=order)
                status, body, headers = await self._once(
                    method, url, params=params, json_body=json_body, timeout_s=timeout,
                    cap=cap, what=what,
                )
                if budget is not None and not headers.get("content-type", "").startswith(
                        "application/json"):
                    budget.observe_reply(body)
                if 200 <= status < 300 or status in accept:
                    return Reply(status, body, headers, attempt)
                raise error_for_status(status, body.decode("utf-8", "replace"), headers, what)
            except VenueError as error:
                if budget is not None and isinstance(error, RateLimited):
                    budget.rate_limited(error.kind, error.wait_s)
                wait_s = getattr(error, "wait_s", None)
                if wait_s is not None:
                    # A venue (or a stranger in front of it) answering 429 "wait 0" must not
                    # spin us: each wait is at least the floor, counted against the budget,
                    # and the number of 429 retries is bounded too.
                    wait_s = policy.rate_limit_wait(wait_s)
                    limited += 1
                    if (limited > policy.rate_limit_retries
                            or waited + wait_s > policy.rate_limit_budget_s):
                        if policy.rate_limit_budget_s > 0:  # else the caller waits it out
                            _log_rate_limit(what, error, wait_s, limited, waited, policy, False)
                        raise
                    _log_rate_limit(what, error, wait_s, limited, waited, policy, True)
                    waited += wait_s
                    attempt -= 1
                    await policy.sleep(wait_s)
                    continue
                if not error.retryable or attempt >= policy.attempts:
                    if error.retryable and policy.attempts > 1:  # else the caller retries
                        log.warning("%s: %s, attempt %d of %d: giving up", what,
                                    error_label(error), attempt, policy.attempts)
                    raise
                delay = policy.backoff(attempt - 1)
                log.info("%s: %s, attempt %d of %d: trying again in %.2f s", what,
                         error_label(error), attempt, policy.attempts, delay)
                await policy.sleep(delay)

    def _json(self, reply: Reply, what: str) -> Any:
        try:
            return loads_strict(reply.body)
        except ValueError as exc:
            raise MalformedResponse(f"{what}: venue reply is not JSON ({exc})") from None

    # -- reading ---------------------------------------------------------------------------

    async def read(
        self,
        room: str,
        since: int | None = None,
        limit: int | None = None,
        wait: float | None = None,
        *,
        retry: RetryPolicy | None = None,
    ) -> RoomView:
        """One read of a room. With `since`, the newest `limit` records after it (gap-check
        `first_seq`); `wait` long-polls up to 10 s for the next record and needs `since`."""
        _check_name(room, "room")
        params: dict[str, str | int | float] = {"format": "json"}
        if since is not None:
            if isinstance(since, bool) or not isinstance(since, int) or since < 0:
                raise ValueError("since is a non-negative seq")
            params["since"] = since
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
                raise ValueError(f"limit is 1..{MAX_LIMIT}")
            params["limit"] = limit
        timeout = self.timeout_s
        budget = self.budget
        held = False
        if wait is not None and wait > 0:
            if since is None:
                raise ValueError("wait needs since: the venue only long-polls after a cursor")
            held = budget is None or budget.take_waiter()
        if held and wait is not None:
            wait = min(float(wait), MAX_WAIT_S)
            params["wait"] = f"{wait:g}"
            timeout += wait
        else:
            # A re-poll of an unchanged URL can be answered from a cache; the manual's remedy.
            params["n"] = next(self._counter)
        try:
            reply = await self._request(
                "GET", f"/r/{room}", what=f"read /r/{room}", params=params, timeout_s=timeout,
                cap=READ_CAP_BYTES, retry=retry,
            )
        finally:
            if held and budget is not None:
                budget.release_waiter()
        view = parse_room_view(room, reply.body, since)
        if budget is not None:
            if view.records or view.last_seq > (since or 0):
                budget.room_exists(room)
            if wait is not None and wait > 0 and not held and not view.records:
                # This wallet's waiters are all in use: a plain read answered, as the venue
                # answers a wait it cannot hold.
                view = dataclasses.replace(view, wait_held=False)
        return view

    async def cursor(self, room: str) -> int:
        """The room's current last seq (0 when empty): read this BEFORE writing a request whose
        reply you will wait for, or a fast reply lands behind your cursor."""
        view = await self.read(room, limit=1)
        return view.last_seq

    def follow(
        self,
        room: str,
        since: int | None = None,
        *,
        wait_s: float = MAX_WAIT_S,
        limit: int = MAX_LIMIT,
        suppress_echoes: bool = False,
        recover_gaps: bool = True,
        epoch_probe_every: int = 6,
        generation: int | None = None,
    ) -> RoomFollower:
        """Follow a room as an async iterator of FollowEvents (see follow.py).

        To resume, pass the `cursor` and `generation` a previous follower ended with: a room
        that was reaped meanwhile then shows up as an EpochChange instead of going unnoticed.
        """
        _check_name(room, "room")
        if since is not None and (isinstance(since, bool) or since < 0):
            raise ValueError("since is a non-negative seq")
        return RoomFollower(
            client=self,
            room=room,
            cursor=since,
            wait_s=min(max(wait_s, 0.0), MAX_WAIT_S),
            limit=min(max(limit, 1), MAX_LIMIT),
            suppress_echoes=suppress_echoes,
            recover_gaps=recover_gaps,
            epoch_probe_every=max(epoch_probe_every, 1),
            generation=generation,
        )

    async def export(self, room: str, *, retry: RetryPolicy | None = None,
                     verified_before: Container[SignatureKey] = (),
                     while_verifying: Callable[[TranscriptRecord], object] | None = None,
                     ) -> RoomExport:
        """The room's whole retained ring, byte-exact, with every record parsed and verified
        (but those whose `signature_key` is in `verified_before`: see `parse_export`)."""
        body, generation = await self.export_body(room, retry=retry)
        return parse_export(room, body, generation, verified_before=verified_before,
                            while_verifying=while_verifying)

    async def export_body(self, room: str, *, retry: RetryPolicy | None = None
                          ) -> tuple[bytes, int | None]:
        """The room's export exactly as served, and its generation, nothing parsed yet (for
        a caller that checks the records itself: `records.ExportChecks`)."""
        _check_name(room, "room")
        reply = await self._request(
            "GET", f"/r/{room}/export", what=f"export /r/{room}", cap=EXPORT_CAP_BYTES,
            timeout_s=self.timeout_s * 4, retry=retry,
        )
        header = reply.headers.get("x-room-generation")
        generation: int | None = None
        if header is not None:
            text = header.strip()
            if not (text.isascii() and text.isdigit()) or int(text) > MAX_SAFE_INT:
                raise MalformedResponse(f"export /r/{room}: bad X-Room-Generation header")
            generation = int(text)
        if self.budget is not None and reply.body.strip():
            self.budget.room_exists(room)  # a line in its ring, kept or not: it was created
        return reply.body, generation

    async def config(self) -> VenueSettings:
        """The deployment's knobs (`/config`); read limits from here rather than assuming."""
        reply = await self._request("GET", "/config", what="read /config")
        data = self._json(reply, "read /config")
        if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
            raise MalformedResponse("read /config: venue reply has no settings object")
        service, version = data.get("service"), data.get("version")
        return VenueSettings(
            service=service if isinstance(service, str) else None,
            version=version if isinstance(version, str) else None,
            settings=dict(data["settings"]),
        )

    # -- signed writes ---------------------------------------------------------------------

    def _signer(self) -> tuple[Identity, NonceAllocator]:
        if self.identity is None or self.nonces is None:
            raise ValueError("posting needs an identity: the client only writes signed lines")
        return self.identity, self.nonces

    async def post(
        self, room: str, text: str, lane: Lane = "post", *, nonce: int | None = None
    ) -> PostResult:
        """Sign and write one line. Raises ValueError before any I/O when the text would not be
        stored exactly as signed, and a VenueError subclass when the venue refuses it."""
        _check_name(room, "room")
        check_signable_text(text)
        if lane not in ("post", "get"):
            raise ValueError("lane is 'post' or 'get'")
        identity, allocator = self._signer()
        if lane == "get":
            self._check_url_budget(room, identity.did, text)
        await self._check_room_budget(room)
        value = allocator.next(room) if nonce is None else int(canonical_nonce(nonce))
        for _round in range(3):
            sig = identity.sign(room, value, text)
            try:
                reply = await self._send_signed(room, text, value, sig, lane)
            except NonceRejected as error:
                if error.last is None:
                    raise
                landed = await self._find_own(room, value, text)
                if landed is not None:
                    return PostResult(room, text, value, identity.did, landed.sig or sig, lane,
                                      landed, replayed=True)
                if nonce is not None:
                    raise
                allocator.observe(room, error.last)
                value = allocator.next(room)
                continue
            content_type = reply.headers.get("content-type", "")
            # A venue that answers a write in text still stored it; the follower will see the
            # record. A JSON answer must back the write it reports.
            posted = (
                parse_posted(room, reply.body) if content_type.startswith("application/json")
                else None
            )
            if posted is not None and (
                posted.sender != identity.did
                or posted.nonce != str(value)
                or posted.text != text
            ):
                raise MalformedResponse(
                    f"post /r/{room}: venue reports a stored record that differs from the "
                    "signed write"
                )
            self._count_room(room, posted)
            return PostResult(room, text, value, identity.did, sig, lane, posted)
        raise VenueError(f"post /r/{room}: the venue kept refusing fresh nonces")

    async def _check_room_budget(self, room: str) -> None:
        """Refuse, before anything is signed, a write that would create a room this wallet's
        share of the new-room budget cannot pay for (the venue would refuse it for a day)."""
        budget = self.budget
        if budget is None or room in budget.known_rooms or budget.rooms_left() >= 1:
            return
        await self.read(room, limit=1)  # it may exist already: then writing costs no room
        if room in budget.known_rooms:
            return
        why = budget.rooms_sentence(1)
        raise RoomBudgetSpent(f"post /r/{room}: not sent: /r/{room} does not exist yet and "
                              f"writing would create it, but {why}",
                              free_in_s=budget.room_free_in_s(1))

    def _count_room(self, room: str, posted: VenueRecord | None) -> None:
        budget = self.budget
        if budget is None:
            return
        if posted is not None and posted.seq != 1:
            budget.room_exists(room)
        elif room not in budget.known_rooms:
            budget.room_created(room)  # seq 1: this write made it (or, unknown: assume so)

    async def _send_signed(self, room: str, text: str, nonce: int, sig: str, lane: Lane) -> Reply:
        identity = self.identity
        assert identity is not None
        what = f"post /r/{room}"
        if lane == "post":
            body = {"did": identity.did, "sig": sig, "nonce": str(nonce), "text": text}
            return await self._request(
                "POST", f"/r/{room}", what=what, params={"format": "json"}, json_body=body,
                cap=READ_CAP_BYTES,
            )
        path = f"/r/{room}/say-signed/{identity.did}/{sig}/{nonce}/{encode_segment(text)}"
        return await self._request(
            "GET", path, what=what, params={"format": "json"}, cap=READ_CAP_BYTES
        )

    def _check_url_budget(self, room: str, did: str, text: str) -> None:
        """The GET lane's real limit is the URL (about 16 KB at the public edge), not the
        character cap: measure the worst case (19-digit nonce) before spending a nonce."""
        path = f"/r/{room}/say-signed/{did}/{'A' * 86}/{'9' * 19}/{encode_segment(text)}"
        if len((self.base_url + path).encode()) + len("?format=json") > MAX_GET_URL_BYTES:
            raise ValueError(
                f"text needs more than {MAX_GET_URL_BYTES} URL bytes; use the POST lane"
            )

    async def _find_own(self, room: str, nonce: int, text: str) -> VenueRecord | None:
        """Our record with this nonce and text, if a retried write had in fact landed."""
        view = await self.read(room, limit=MAX_LIMIT)
        for record in view.records:
            if (
                record.sender == self.did
                and record.nonce == str(nonce)
                and record.text == text
            ):
                return record
        return None

    async def post_and_await(
        self,
        room: str,
        text: str,
        *,
        reply_room: str | None = None,
        match: Callable[[VenueRecord], bool] | None = None,
        timeout_s: float = 30.0,
        lane: Lane = "post",
    ) -> AwaitedReply:
        """Write `text` to `room`, then wait for the first record from another sender in
        `reply_room` (default: the same room) that satisfies `match`.

        The reply room's cursor is read before the write, so a reply that lands while the write
        is still returning is not skipped. Raises ReplyLost when the ring dropped records while
        waiting (the reply may be among them).
        """
        target = reply_room or room
        start = await self.cursor(target)
        result = await self.post(room, text, lane)
        follower = self.follow(target, since=start, suppress_echoes=True)
        try:
            async with asyncio.timeout(timeout_s):
                async for event in follower:
                    if isinstance(event, RingGap) and event.lost > 0:
                        raise ReplyLost(
                            f"records {event.expected}..{event.got - 1} of /r/{target} were "
                            "dropped while waiting; re-issue the request",
                            expected=event.expected,
                            got=event.got,
                        )
                    if isinstance(event, RecordsEvent):
                        for record in event.foreign:
                            if match is None or match(record):
                                return AwaitedReply(result, record)
        except TimeoutError:
            pass
        return AwaitedReply(result, None)

    # -- notes -----------------------------------------------------------------------------

    async def get_note(self, ns: str, key: str) -> str | None:
        """A note's value, or None when no note is there. The value is another caller's data."""
        _check_name(ns, "note namespace")
        _check_name(key, "note key")
        what = f"read note {ns}/{key}"
        try:
            reply = await self._request("GET", f"/kv/{ns}/{key}", what=what)
        except NotFound as error:
            if "no note" in error.detail:
                return None
            raise
        return parse_note_body(reply.text, ns, key)

    async def list_notes(self, ns: str) -> list[str]:
        """Keys in a namespace (unlisted `p-` keys are never shown)."""
        _check_name(ns, "note namespace")
        what = f"list notes {ns}"
        reply = await self._request("GET", f"/kv/{ns}", what=what, params={"format": "json"})
        data = self._json(reply, what)
        keys = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(keys, list) or not all(is_name(k) for k in keys):
            raise MalformedResponse(f"{what}: venue reply has no valid keys list")
        return list(keys)

    async def set_note(
        self,
        ns: str,
        key: str,
        value: str,
        *,
        if_value: str | None = None,
        if_absent: bool = False,
    ) -> NoteWrite:
        """Write a note, optionally as a compare-and-set. A lost CAS is not an error: the result
        has `ok` False and `current`, the value that is actually there (untrusted)."""
        _check_name(ns, "note namespace")
        _check_name(key, "note key")
        if if_value is not None and if_absent:
            raise ValueError("send one condition: if_value or if_absent, not both")
        if not isinstance(value, str) or not value or not survives_sweep(value):
            raise ValueError("a note value is one non-empty line the venue stores unchanged")
        if len(value) > MAX_NOTE_CHARS:
            raise ValueError(f"a note value is at most {MAX_NOTE_CHARS} characters")
        body: dict[str, Any] = {"value": value}
        if if_value is not None:
            body["if"] = if_value
        if if_absent:
            body["if_absent"] = True
        what = f"write note {ns}/{key}"
        reply = await self._request(
            "POST", f"/kv/{ns}/{key}", what=what, params={"format": "json"},
            json_body=body, accept=(409,),
        )
        if reply.status == 409:
            error = error_for_status(409, reply.text, reply.headers, what)
            current = error.current if isinstance(error, Conflict) else None
            if reply.attempts > 1 and current == value:
                # An earlier attempt of this very write landed before its answer was lost.
                return NoteWrite(ns, key, ok=True, value=value)
            return NoteWrite(ns, key, ok=False, value=value, current=current)
        written_bytes: int | None = None
        ts: str | None = None
        try:
            data = loads_strict(reply.body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            raw_bytes, raw_ts = data.get("bytes"), data.get("ts")
            if isinstance(raw_bytes, int) and not isinstance(raw_bytes, bool):
                written_bytes = raw_bytes
            if isinstance(raw_ts, str):
                ts = raw_ts
        return NoteWrite(ns, key, ok=True, value=value, bytes=written_bytes, ts=ts)

    def notes(self) -> VenueNotes:
        """This venue's notes as an async get/set store (the shape settlement rails take)."""
        return VenueNotes(self)

    async def read_did_note(self, did: str) -> DidNote | None:
        """A peer's DID note: the sharded path first, then the legacy one. A note that does not
        name its own DID is returned only when nothing better exists (`names_did` False)."""
        fallback: DidNote | None = None
        for (ns, key), legacy in ((did_note(did), False), (legacy_did_note(did), True)):
            value = await self.get_note(ns, key)
            if value is None:
                continue
            note = parse_did_note(did, ns, key, value, legacy=legacy)
            if note.names_did:
                return note
            fallback = fallback or note
        return fallback

    async def publish_did_note(
        self,
        *,
        mailbox: str | None = None,
        rails: list[str] | None = None,
        e2e: str | None = None,
        extra: tuple[str, ...] = (),
    ) -> NoteWrite:
        """Publish (or update) this identity's DID note with its mailbox and `tclk1:` rails,
        keeping tokens it does not manage, with compare-and-set so a concurrent edit is merged."""
        identity, _ = self._signer()
        ns, key = did_note(identity.did)
        current = await self.get_note(ns, key)
        for _round in range(4):
            value = compose_did_note(identity.did, current, mailbox=mailbox, rails=rails,
                                     e2e=e2e, extra=extra)
            if value == current:
                return NoteWrite(ns, key, ok=True, value=value)
            if current is None:
                result = await self.set_note(ns, key, value, if_absent=True)
            else:
                result = await self.set_note(ns, key, value, if_value=current)
            if result.ok:
                return result
            current = result.current
        return result


def _budget_kind(method: str, path: str) -> BudgetKind | None:
    """Which of the venue's buckets a request spends from (None: never rate limited)."""
    if method != "GET":
        return "write"
    if path.startswith("/r/"):
        parts = path.split("/", 4)  # "", "r", room, then "say-signed" or "export"
        return "write" if len(parts) > 3 and parts[3].startswith("say") else "read"
    if path.startswith("/kv/") or path == "/rooms":
        return "read"
    return None


def _check_name(value: object, what: str) -> None:
    if not is_name(value):
        raise ValueError(f"not a venue {what} name: {value!r}")
