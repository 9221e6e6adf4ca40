"""The venue's HTTP transport: one request, its retries, its waits, and the budgets it spends.

Everything the client does reaches the venue through `VenueTransport.request`: each attempt
spends a token from this wallet's share of the venue's per-address budgets (when it keeps
one), a reply is size-capped and deadline-bounded on the clock, 429s are waited out within the
retry policy's floor and budget, and a refused request's error never carries back a 32-byte
value this wallet sent (a venue may echo the request).

Its own object beside the reads, writes and notes so that none of them knows about retries,
caps or sockets; they say what to send and what a reply means.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from tclk_tui import __version__
from tclk_tui.technocore.budget import BudgetKind, VenueBudget
from tclk_tui.technocore.errors import (
    MalformedResponse,
    RateLimited,
    VenueError,
    VenueUnavailable,
    error_for_status,
    error_label,
)
from tclk_tui.technocore.records import loads_strict
from tclk_tui.technocore.retry import RetryPolicy
from tclk_tui.technocore.venue_url import check_venue_url

__all__ = ["EXPORT_CAP_BYTES", "READ_CAP_BYTES", "SMALL_CAP_BYTES", "Reply", "VenueTransport",
           "budget_kind"]
log = logging.getLogger("tclk_tui.technocore.client")  # the client's story, under its one name

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


class VenueTransport:
    """One venue's base URL over one HTTP client, with the retry policy and the budget."""

    def __init__(self, base_url: str, *, http: httpx.AsyncClient | None, retry: RetryPolicy,
                 timeout_s: float, budget: VenueBudget | None,
                 source_address: str | None) -> None:
        self.base_url = check_venue_url(base_url)
        self.retry = retry
        self.timeout_s = timeout_s
        # The venue's per-address budgets this client spends from (None: not counted here).
        self.budget = budget
        self._owns_http = http is None
        # `source_address` is the local address requests leave from: the venue keys its
        # budgets by it, so a host with several addresses can give each wallet its own.
        self.http = http if http is not None else httpx.AsyncClient(
            headers={"User-Agent": f"tclk-tui/{__version__}"},
            timeout=timeout_s,
            follow_redirects=False,
            transport=(httpx.AsyncHTTPTransport(local_address=source_address)
                       if source_address else None),
        )

    async def aclose(self) -> None:
        if self._owns_http:
            await self.http.aclose()

    async def once(
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
            async with asyncio.timeout(timeout_s), self.http.stream(
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

    async def request(
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
        kind = budget_kind(method, path) if budget is not None else None
        order = path.split("/", 3)[2] if kind == "write" else ""  # the room (or namespace)
        attempt = 0
        waited = 0.0
        limited = 0
        while True:
            attempt += 1
            try:
                if budget is not None and kind is not None:  # every attempt costs a token
                    await budget.spend(kind, what, order=order)
                status, body, headers = await self.once(
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

    def json(self, reply: Reply, what: str) -> Any:
        try:
            return loads_strict(reply.body)
        except ValueError as exc:
            raise MalformedResponse(f"{what}: venue reply is not JSON ({exc})") from None


def budget_kind(method: str, path: str) -> BudgetKind | None:
    """Which of the venue's buckets a request spends from (None: never rate limited)."""
    if method != "GET":
        return "write"
    if path.startswith("/r/"):
        parts = path.split("/", 4)  # "", "r", room, then "say-signed" or "export"
        return "write" if len(parts) > 3 and parts[3].startswith("say") else "read"
    if path.startswith("/kv/") or path == "/rooms":
        return "read"
    return None

