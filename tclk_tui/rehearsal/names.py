"""Names, room classes and the text rules every write passes through.

A room, nick, namespace or key must fullmatch the name rule; a room's leading `<class>-`
segments give it behaviour (unlisted, mailbox, ownable, ephemeral); every message and note is
swept to one line and then measured in code points.
"""

from __future__ import annotations

import re

from tclk_tui.rehearsal.errors import bad_request
from tclk_tui.technocore.sweep import single_line_sweep

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,47}$"
NAME_RE = re.compile(NAME_PATTERN)

ROOM_CLASSES = ("p", "mb", "d", "e")
UNOWNABLE_ROOMS = ("lobby", "meta")
EVENTS_ROOM = "events"
EVENTS_NICK = "server"

OWNERS_NS = "room-owners"
ALLOW_NS = "room-allow"
NONCE_NS = "room-nonce"
TOPIC_NS = "topic"


def check_name(name: str) -> str:
    """`name` if it is a valid room/nick/ns/key, else the 400 the service sends."""
    if not NAME_RE.fullmatch(name or ""):
        raise bad_request(
            f"bad name {name!r}: expected /{NAME_PATTERN}/ — lowercase letters, digits, - "
            "and _, 1-48 characters, starting with a letter or digit. Usual causes: uppercase "
            "(lowercase it), a space or %20 (use - instead), a dot or slash, an empty segment, "
            "or over 48 characters. It covers <room>, <nick>, <ns> and <key>; only <text> and "
            "<value> are free-form."
        )
    return name


def room_classes(name: str) -> frozenset[str]:
    """Leading class markers; the last segment is always the body, never a class."""
    classes: set[str] = set()
    for segment in name.split("-")[:-1]:
        if segment not in ROOM_CLASSES:
            break
        classes.add(segment)
    return frozenset(classes)


def is_unlisted(name: str) -> bool:
    return "p" in room_classes(name)


def is_mailbox(name: str) -> bool:
    return "mb" in room_classes(name)


def is_ephemeral(name: str) -> bool:
    return "e" in room_classes(name)


def is_ownable(name: str) -> bool:
    return "d" in room_classes(name) and name not in UNOWNABLE_ROOMS


def clean_text(text: str, limit: int) -> str:
    """The stored form of `text`: swept to one line, refused when empty or over `limit`."""
    swept = single_line_sweep(text)
    if not swept:
        raise bad_request(
            "empty text: nothing visible was left after the single-line sweep, which "
            "replaces every control, format and line-separator character (newline, "
            "zero-width, bidi override, Unicode tag, U+2028) with a space and then trims "
            "the ends. Send at least one visible character."
        )
    if len(swept) > limit:
        raise bad_request(
            f"text too long: {len(swept)} characters, and the limit is {limit}. Split it, "
            'or send it as a body — POST /r/<room> {"text":...} and POST /kv/<ns>/<key> '
            '{"value":...} carry the full length, which a URL cannot: one CJK character '
            "is 9 bytes URL-encoded and one emoji is 12."
        )
    return swept


def require_string(payload: dict[str, object], field: str) -> str | None:
    """A POST field's value: absent is None, anything but a JSON string is a 400."""
    if field not in payload:
        return None
    value = payload[field]
    if not isinstance(value, str):
        raise bad_request(
            f"bad {field}: must be a string\n"
            f"you sent {_json_kind(value)}; nothing is type-coerced, so send its JSON string form."
        )
    return value


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "an array"
    return "an object"


__all__ = [
    "ALLOW_NS",
    "EVENTS_NICK",
    "EVENTS_ROOM",
    "NAME_PATTERN",
    "NAME_RE",
    "NONCE_NS",
    "OWNERS_NS",
    "ROOM_CLASSES",
    "TOPIC_NS",
    "UNOWNABLE_ROOMS",
    "check_name",
    "clean_text",
    "is_ephemeral",
    "is_mailbox",
    "is_ownable",
    "is_unlisted",
    "require_string",
    "room_classes",
]
