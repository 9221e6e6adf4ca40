"""Notes: reading the venue's note replies, compare-and-set outcomes, and the DID note.

A note is one world-writable line. Anything read from one is another caller's data: the DID note
is a hint for finding a peer (its mailbox, the rails it accepts), never proof of anything, and a
409's current value is whatever the last writer put there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from tclk_tui.protocol.didkey import DID_RE
from tclk_tui.protocol.rails import capability_token, parse_capability_token
from tclk_tui.technocore.errors import MalformedResponse
from tclk_tui.technocore.identity import is_name
from tclk_tui.technocore.sweep import survives_sweep

MAX_NOTE_CHARS = 8192


def parse_note_body(body: str, ns: str, key: str) -> str:
    """The value in a note read reply: the first line after the banner's blank line."""
    lines = body.split("\n")
    try:
        blank = lines.index("")
    except ValueError:
        raise MalformedResponse(f"venue reply for note {ns}/{key} has no value line") from None
    if blank + 1 >= len(lines):
        raise MalformedResponse(f"venue reply for note {ns}/{key} has no value line")
    value = lines[blank + 1]
    if not value or len(value) > MAX_NOTE_CHARS or not survives_sweep(value):
        raise MalformedResponse(f"venue reply for note {ns}/{key} holds an impossible value")
    return value


@dataclass(frozen=True, slots=True)
class NoteWrite:
    """Outcome of a note write.

    `ok` False means a conditional write lost: `current` is the value actually there (None when
    no note exists), written by another caller and untrusted. On success `value` is what the
    venue stored (the swept form of what was sent).
    """

    ns: str
    key: str
    ok: bool
    value: str
    current: str | None = None
    bytes: int | None = None
    ts: str | None = None


@dataclass(frozen=True, slots=True)
class DidNote:
    """A published DID note, parsed for its conventional tokens.

    `names_did` says whether the note's first token is the DID it is filed under; a note that
    does not name its own DID is somebody else's junk at that path and should be ignored.
    """

    did: str
    ns: str
    key: str
    value: str
    legacy: bool
    names_did: bool
    mailbox: str | None
    rails: tuple[str, ...] | None

    @property
    def speaks_tclk(self) -> bool:
        return self.names_did and self.rails is not None


def note_tokens(value: str) -> list[str]:
    return value.split()


def parse_mailbox(tokens: Sequence[str]) -> str | None:
    """The `mailbox:` room, written either `mailbox:<room>` or `mailbox: <room>`."""
    for index, token in enumerate(tokens):
        if not token.startswith("mailbox:"):
            continue
        room = token[len("mailbox:"):]
        if not room and index + 1 < len(tokens):
            room = tokens[index + 1]
        return room if is_name(room) else None
    return None


def parse_did_note(did: str, ns: str, key: str, value: str, *, legacy: bool) -> DidNote:
    tokens = note_tokens(value)
    rails = parse_capability_token(value)
    return DidNote(
        did=did,
        ns=ns,
        key=key,
        value=value,
        legacy=legacy,
        names_did=bool(tokens) and tokens[0] == did,
        mailbox=parse_mailbox(tokens),
        rails=tuple(rails) if rails is not None else None,
    )


def compose_did_note(
    did: str,
    current: str | None,
    *,
    mailbox: str | None = None,
    rails: Sequence[str] | None = None,
    e2e: str | None = None,
    extra: Iterable[str] = (),
) -> str:
    """The DID note value to publish: `<did> [mailbox:<room>] [tclk1:<rails>] [e2e: ...] ...`.

    Tokens already in our own note that this call does not manage (x25519:, delegate:
    records, ...) are kept in order; a note at our path that does not name our DID is discarded
    whole. With `e2e` (a whole signed `e2e: <x25519> <mailbox> <nonce> <sig>` record), every
    earlier e2e: record is dropped: a rotation replaces the record rather than adding one.
    """
    if DID_RE.fullmatch(did) is None:
        raise ValueError("not an Ed25519 did:key")
    if mailbox is not None and not is_name(mailbox):
        raise ValueError(f"not a venue room name: {mailbox!r}")
    kept: list[str] = []
    tokens = note_tokens(current or "")
    if tokens and tokens[0] == did:
        skip_next = 0
        for part in tokens[1:]:
            if skip_next:
                skip_next -= 1
                continue
            if part == "mailbox:" and mailbox is not None:
                skip_next = 1
                continue
            if part == "e2e:" and e2e is not None:
                skip_next = 4
                continue
            if part.startswith("mailbox:") and mailbox is not None:
                continue
            if part.startswith("tclk1:") and rails is not None:
                continue
            kept.append(part)
    parts = [did]
    if mailbox is not None:
        parts.append(f"mailbox:{mailbox}")
    if rails is not None:
        parts.append(capability_token(list(rails)))
    parts.extend(kept)
    if e2e is not None:
        parts.append(e2e)
    parts.extend(extra)
    value = " ".join(parts)
    if len(value) > MAX_NOTE_CHARS or not survives_sweep(value):
        raise ValueError("DID note value would not survive the venue as one line")
    return value


class _NoteClient(Protocol):
    async def get_note(self, ns: str, key: str) -> str | None: ...

    async def set_note(
        self, ns: str, key: str, value: str, *, if_value: str | None = ...,
        if_absent: bool = ...,
    ) -> NoteWrite: ...


class VenueNotes:
    """The venue's notes in the shape settlement rails expect (async get/set returning won?)."""

    def __init__(self, client: _NoteClient) -> None:
        self._client = client

    async def get(self, ns: str, key: str) -> str | None:
        return await self._client.get_note(ns, key)

    async def set(
        self, ns: str, key: str, value: str, *, if_value: str | None = None,
        if_absent: bool = False,
    ) -> bool:
        result = await self._client.set_note(ns, key, value, if_value=if_value,
                                             if_absent=if_absent)
        return result.ok

    def __repr__(self) -> str:
        return f"VenueNotes({self._client!r})"

