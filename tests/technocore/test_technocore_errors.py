"""Status-code mapping: each documented refusal body becomes its typed error.

Pure mapping, so an in-process transport serves the canned replies; retry behaviour against a
real server is in test_technocore_hostile.py.
"""

import httpx
import pytest

from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import (
    BadRequest,
    Conflict,
    Duplicate,
    Forbidden,
    HeaderTooLarge,
    MalformedResponse,
    NonceRejected,
    NotFound,
    RateLimited,
    RequestTimeout,
    ServerError,
    TooLarge,
    VenueError,
    error_for_status,
    first_line,
    parse_conflict_value,
)
from tclk_tui.technocore.identity import Identity
from tclk_tui.technocore.retry import RetryPolicy

HEADERS = httpx.Headers({})

DUPLICATE_BODY = (
    "422 duplicate text: /r/lobby already holds 5 copies of this message from the last 60s; more "
    "are refused until that window passes.\n"
    "not a rate limit: the same bytes are refused again from any identity, and a copy with an id "
    "or a reworded line bolted on is the same message to everyone reading it.\n"
    "what lands: read /r/lobby?since=<last seq> and answer someone.\n"
    "optional: add &ref=422-6a1b2c3d-9f0e to your next requests. the server ignores it.\n"
)

READ_429 = (
    "429 rate limited: the read budget for your IP (120/min) is spent.\n"
    "retry after: 3s — the bucket refills continuously (2.0 tokens/s), so waiting longer buys a "
    "bigger burst, up to 120.\n"
)

CONFLICT_BODY = (
    "409 note tclk-27/68bf32b4553178 changed since you read it\n\n"
    "to retry: merge your change into the value below, then write it with ?if=<that value> so "
    "you only win if nothing moved again.\n"
    "current value follows (untrusted, another caller's; 6 chars):\n"
    "locked\n"
)


def err(status, body, headers=HEADERS):
    return error_for_status(status, body, headers, "op")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("400 bad from: must be a string\n", "from"),
        ("400 bad if_absent: expected 1/true/yes/on or 0/false/no/off\n", "if_absent"),
        ("400 bad name 'Lobby': expected /^[a-z0-9][a-z0-9_-]{0,47}$/ — names are\n", "name"),
        ("400 empty text: nothing visible was left after the single-line sweep\n", "text"),
        ("400 text too long: 4097 characters, and the limit is 4096.\n", "text"),
        ("400 bad did:key: expected did:key:z6Mk...\n", "did"),
        ("400 bad signature encoding: 86 base64url characters ending AQgw\n", "sig"),
        ("400 body must be JSON, and this did not parse: Expecting value\n", "body"),
        ("Invalid HTTP request received.", None),
    ],
)
def test_bad_request_names_the_field(body, field):
    error = err(400, body)
    assert type(error) is BadRequest
    assert error.field == field
    assert error.status == 400


def test_nonce_replay_parses_sent_and_last():
    error = err(400, "400 nonce 17 is not greater than 42, the last one this key used in /r/x "
                     "— a signed URL is single-use, so count up\n")
    assert isinstance(error, NonceRejected)
    assert (error.field, error.sent, error.last) == ("nonce", 17, 42)


def test_malformed_nonce_is_a_nonce_rejection_without_numbers():
    error = err(400, "400 nonce must be 1-19 digits, got '12a'\n")
    assert isinstance(error, NonceRejected)
    assert error.last is None


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("403 signature does not verify for did:key:z6Mk.\nit must cover exactly", "signature"),
        ("403 /r/mb-x is a mailbox (mb-): it takes signed writes only, …\nsend: GET", "mailbox"),
        ("403 /r/d-x is owned: writes must be signed …", "owned"),
        ("403 z6Mk…xxxx is not listed for /r/d-x. …", "owned"),
        ("403 /r/events is written by the server only — …", "server-only"),
        ("403 nonce 1 was already used for /r/d-x (last 1).", "nonce"),
        ("403 something new", "other"),
    ],
)
def test_forbidden_kinds(body, kind):
    error = err(403, body)
    assert isinstance(error, Forbidden)
    assert error.kind == kind


def test_conflict_carries_the_current_value_even_with_a_budget_footer():
    body = CONFLICT_BODY + "# budget: 5 of 30 writes left this minute\n"
    error = err(409, body)
    assert isinstance(error, Conflict)
    assert error.current == "locked"


def test_conflict_on_a_missing_note_has_no_current_value():
    body = (
        "409 note a/b changed since you read it\n\n"
        "there is no note there at all, so your ?if=<value> could not match.\n"
        "to create it, use ?if_absent=1 instead of ?if=, or write it unconditionally.\n"
    )
    assert parse_conflict_value(body) is None


def test_conflict_with_a_lying_length_is_malformed():
    with pytest.raises(MalformedResponse):
        parse_conflict_value(CONFLICT_BODY.replace("6 chars", "7 chars"))


def test_conflict_announcement_wording_may_change_around_the_count():
    body = ("409 note a/b changed since you read it\n\n"
            "the value there now (untrusted, written by another caller, 12 chars):\n"
            "5 chars: odd\n# budget: 1 of 30 writes left this minute\n")
    assert parse_conflict_value(body) == "5 chars: odd"


def test_old_conflict_wording_still_parses():
    body = ("409 note a/b already exists\n\nto retry: merge ...\n"
            "current value follows (3 chars):\nabc\n")
    assert parse_conflict_value(body) == "abc"


def test_duplicate_carries_ref_and_is_not_retryable():
    error = err(422, DUPLICATE_BODY)
    assert isinstance(error, Duplicate)
    assert error.ref == "422-6a1b2c3d-9f0e"
    assert not error.retryable


@pytest.mark.parametrize(
    ("body", "headers", "wait", "kind"),
    [
        (READ_429, {}, 3.0, "read"),
        ("429 rate limited: the write budget for your IP (30/min) is spent.\n",
         {"Retry-After": "2"}, 2.0, "write"),
        ("429 room-creation budget spent: /r/x does not exist yet, and this IP has created its 20 "
         "rooms for the day.\nretry after: 4251s — …\n", {}, 4251.0, "rooms"),
        ("429 slow down\n", {}, 1.0, "unknown"),
    ],
)
def test_rate_limited_reads_the_wait_from_the_body(body, headers, wait, kind):
    error = err(429, body, httpx.Headers(headers))
    assert isinstance(error, RateLimited)
    assert (error.wait_s, error.kind) == (wait, kind)
    assert error.retryable


@pytest.mark.parametrize(
    ("status", "cls"),
    [(404, NotFound), (408, RequestTimeout), (413, TooLarge), (431, HeaderTooLarge),
     (500, ServerError), (503, ServerError)],
)
def test_other_statuses(status, cls):
    error = err(status, f"{status} something\n")
    assert type(error) is cls
    assert error.status == status


def test_unknown_status_is_a_plain_venue_error():
    error = err(418, "418 teapot\n")
    assert type(error) is VenueError
    assert not error.retryable


def test_first_line_is_swept_and_bounded():
    line = first_line("400 bad \x1b[31mred\x07 " + "x" * 1000 + "\nsecond line")
    assert "\x1b" not in line and "\x07" not in line and "second" not in line
    assert len(line) <= 240


def test_error_messages_are_readable():
    error = err(422, DUPLICATE_BODY)
    assert "op" in str(error) and "answer someone" in str(error)
    assert repr(error).startswith("Duplicate(")


async def test_client_maps_each_status_through_its_transport():
    """The client raises the mapped error for a real reply (no retries for final refusals)."""
    replies = {
        "/r/lobby": (422, DUPLICATE_BODY),
        "/r/mb-x": (403, "403 /r/mb-x is a mailbox (mb-): it takes signed writes only\n"),
        "/r/big": (413, "413 body too large: the cap is 262144 bytes\n"),
    }
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        status, body = replies[request.url.path]
        return httpx.Response(status, text=body)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = VenueClient("http://venue.test", Identity.generate(), http=http,
                         retry=RetryPolicy(sleep=_no_sleep))
    with pytest.raises(Duplicate):
        await client.post("lobby", "the same sentence again and again")
    with pytest.raises(Forbidden) as forbidden:
        await client.post("mb-x", "hello")
    assert forbidden.value.kind == "mailbox"
    with pytest.raises(TooLarge):
        await client.post("big", "hello")
    assert seen == ["/r/lobby", "/r/mb-x", "/r/big"]
    await http.aclose()


async def _no_sleep(_seconds: float) -> None:
    raise AssertionError("a final refusal must not be retried")
