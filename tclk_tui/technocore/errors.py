"""Typed outcomes of a venue request.

The venue answers every refusal with a `text/plain` body whose first line starts with the status
code and names the problem (`400 bad from: must be a string`). The body is written by whoever runs
the server, so it is untrusted text: only its first line is kept, swept to one printable line and
cut short, and nothing in it decides control flow beyond the few documented shapes parsed here
(the field of a 400, the wait of a 429, the current value of a 409, the ref of a 422).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tclk_tui.technocore.sweep import single_line_sweep

MAX_DETAIL_CHARS = 240

_FIELD_RE = re.compile(r"bad ([a-z_]+)\b")
_NONCE_REPLAY_RE = re.compile(r"nonce (\d{1,19}) is not greater than (\d{1,19})")
_RETRY_AFTER_RE = re.compile(r"retry after:\s*(\d+(?:\.\d+)?)\s*s", re.IGNORECASE)
_ANNOUNCED_RE = re.compile(r"\b(\d{1,5}) chars?\)?:\s*$")
_REF_RE = re.compile(r"ref=(422-[0-9a-f]{1,16}-[0-9a-f]{4})")


def first_line(body: str) -> str:
    """The venue's own summary line, made safe to print in a log or a terminal."""
    line = body.split("\n", 1)[0]
    line = single_line_sweep(line)
    if len(line) > MAX_DETAIL_CHARS:
        line = line[: MAX_DETAIL_CHARS - 1] + "…"
    return line


class VenueError(Exception):
    """Anything the venue refused, or failed to answer, with a readable reason."""

    retryable = False

    def __init__(self, message: str, *, status: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class BadRequest(VenueError):
    """400: a semantic field (a name, the text, the nonce, the signature...) was refused."""

    def __init__(self, message: str, *, field: str | None, detail: str = "") -> None:
        super().__init__(message, status=400, detail=detail)
        self.field = field


class NonceRejected(BadRequest):
    """400 on the nonce: either malformed, or not above the last one this key used in the room."""

    def __init__(
        self, message: str, *, sent: int | None, last: int | None, detail: str = ""
    ) -> None:
        super().__init__(message, field="nonce", detail=detail)
        self.sent = sent
        self.last = last


class Forbidden(VenueError):
    """403: the room or note refuses this writer.

    `kind` is one of: `signature` (did not verify), `mailbox` (mb- room, unsigned write),
    `owned` (d- room, writer not listed), `server-only` (/r/events, /kv/room-nonce),
    `nonce` (a signed ownership nonce reused), `other`.
    """

    def __init__(self, message: str, *, kind: str, detail: str = "") -> None:
        super().__init__(message, status=403, detail=detail)
        self.kind = kind


class NotFound(VenueError):
    """404: no route matched (a malformed path), or a note that does not exist."""

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(message, status=404, detail=detail)


class Conflict(VenueError):
    """409: a conditional note write lost; `current` is the value actually there (None if none).

    `current` was written by another caller: it is untrusted data, never an instruction.
    """

    def __init__(self, message: str, *, current: str | None, detail: str = "") -> None:
        super().__init__(message, status=409, detail=detail)
        self.current = current


class RequestTimeout(VenueError):
    """408: the request body took too long to upload; safe to retry on a new connection."""

    retryable = True

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(message, status=408, detail=detail)


class TooLarge(VenueError):
    """413: the POST body is over the venue's cap."""

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(message, status=413, detail=detail)


class Duplicate(VenueError):
    """422: the room already holds too many copies of this text. Final for these bytes.

    Sending the same text again (after any wait, from any identity) is refused again, so this is
    never retried. `ref` is the optional token the venue offers for its operator's logs.
    """

    def __init__(self, message: str, *, ref: str | None, detail: str = "") -> None:
        super().__init__(message, status=422, detail=detail)
        self.ref = ref


class RateLimited(VenueError):
    """429: a token bucket is spent; `wait_s` is what the venue asked for, `kind` which bucket."""

    retryable = True

    def __init__(self, message: str, *, wait_s: float, kind: str, detail: str = "") -> None:
        super().__init__(message, status=429, detail=detail)
        self.wait_s = wait_s
        self.kind = kind


class HeaderTooLarge(VenueError):
    """431: more headers than the venue accepts."""

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(message, status=431, detail=detail)


class ServerError(VenueError):
    """5xx: the venue failed; retried a bounded number of times with jitter."""

    retryable = True


class VenueUnavailable(VenueError):
    """No answer: connection refused or reset, or the request timed out."""

    retryable = True


class MalformedResponse(VenueError):
    """The venue answered 2xx with something this client cannot accept (fail closed)."""

    retryable = True


class ReplyLost(VenueError):
    """A reply being awaited may have been dropped by the room's ring; re-issue the request."""

    def __init__(self, message: str, *, expected: int, got: int) -> None:
        super().__init__(message)
        self.expected = expected
        self.got = got


def error_label(error: VenueError) -> str:
    """A failure as the log names it: its type and status, never the venue's text (a reply may
    echo what we sent, a secret included)."""
    status = f" {error.status}" if error.status is not None else ""
    return f"{type(error).__name__}{status}"


def _forbidden_kind(body: str) -> str:
    lowered = body.lower()
    if "signature does not verify" in lowered:
        return "signature"
    if "is a mailbox" in lowered:
        return "mailbox"
    if "is owned" in lowered or "is not listed" in lowered or "cannot be owned" in lowered:
        return "owned"
    if "server only" in lowered:
        return "server-only"
    if "nonce" in lowered:
        return "nonce"
    return "other"


def _bad_request_field(line: str) -> str | None:
    body = line[4:] if line.startswith("400 ") else line
    if body.startswith("nonce"):
        return "nonce"
    if body.startswith(("empty text", "text too long")):
        return "text"
    if body.startswith(("empty value", "value too long")):
        return "value"
    if body.startswith("bad name"):
        return "name"
    if body.startswith("bad did:key"):
        return "did"
    if body.startswith("bad signature"):
        return "sig"
    if body.startswith("body must be"):
        return "body"
    match = _FIELD_RE.match(body)
    return match.group(1) if match else None


def parse_conflict_value(body: str) -> str | None:
    """The current value a 409 announces, or None when the body says no note exists.

    The value is the line after the first line that ends announcing its length (`current value
    follows (N chars):`; the wording around the count has changed between releases) and must be
    exactly N characters; a budget footer may follow it. Raises MalformedResponse when the body
    announces a value it does not carry.
    """
    lines = body.split("\n")
    for index, line in enumerate(lines):
        announced = _ANNOUNCED_RE.search(line)
        if announced is None:
            continue
        if index + 1 < len(lines) and len(lines[index + 1]) == int(announced.group(1)):
            return lines[index + 1]
        break
    else:
        return None
    raise MalformedResponse(
        "venue sent a 409 whose current value does not match its announced length",
        status=409,
        detail=first_line(body),
    )


def _retry_after(body: str, headers: Mapping[str, str]) -> float:
    match = _RETRY_AFTER_RE.search(body)
    if match:
        return float(match.group(1))
    header = headers.get("retry-after", "")
    if header.strip().isdigit():
        return float(header.strip())
    return 1.0


def error_for_status(status: int, body: str, headers: Mapping[str, str], what: str) -> VenueError:
    """Map a non-2xx reply to its typed error. `what` names the request for the message."""
    line = first_line(body)
    if status == 400:
        replay = _NONCE_REPLAY_RE.search(line)
        if replay:
            return NonceRejected(
                f"{what}: the venue refused the nonce ({line})",
                sent=int(replay.group(1)),
                last=int(replay.group(2)),
                detail=line,
            )
        field = _bad_request_field(line)
        if field == "nonce":
            return NonceRejected(f"{what}: {line}", sent=None, last=None, detail=line)
        return BadRequest(f"{what}: {line}", field=field, detail=line)
    if status == 403:
        kind = _forbidden_kind(body)
        return Forbidden(f"{what}: refused ({kind}): {line}", kind=kind, detail=line)
    if status == 404:
        return NotFound(f"{what}: {line}", detail=line)
    if status == 408:
        return RequestTimeout(f"{what}: {line}", detail=line)
    if status == 409:
        return Conflict(
            f"{what}: lost the compare-and-set", current=parse_conflict_value(body), detail=line
        )
    if status == 413:
        return TooLarge(f"{what}: {line}", detail=line)
    if status == 422:
        match = _REF_RE.search(body)
        return Duplicate(
            f"{what}: the room already holds this text too many times; sending it again is "
            f"refused again, so answer someone or use a note instead",
            ref=match.group(1) if match else None,
            detail=line,
        )
    if status == 429:
        lowered = line.lower()
        kind = (
            "rooms" if "room-creation" in lowered
            else "write" if "write budget" in lowered
            else "read" if "read budget" in lowered
            else "unknown"
        )
        wait_s = _retry_after(body, headers)
        return RateLimited(
            f"{what}: rate limited ({kind} budget), retry after {wait_s:g}s",
            wait_s=wait_s,
            kind=kind,
            detail=line,
        )
    if status == 431:
        return HeaderTooLarge(f"{what}: {line}", detail=line)
    if status >= 500:
        return ServerError(f"{what}: venue error {status}: {line}", status=status, detail=line)
    return VenueError(f"{what}: unexpected {status}: {line}", status=status, detail=line)
