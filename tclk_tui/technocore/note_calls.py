"""The client's notes: a note read, listed or written (compare-and-set), and the DID notes
that say where an identity's mailbox is and which rails it takes.

A note's value is another caller's data: it is parsed, never believed (see `notes`). Its own
object beside the room reads and writes because notes are a second store with their own
grammar and their own conflict rule; only publishing this identity's DID note needs the
identity.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tclk_tui.protocol.naming import did_note, legacy_did_note
from tclk_tui.technocore.errors import Conflict, MalformedResponse, NotFound, error_for_status
from tclk_tui.technocore.identity import Identity, is_name
from tclk_tui.technocore.notes import (
    MAX_NOTE_CHARS,
    DidNote,
    NoteWrite,
    compose_did_note,
    parse_did_note,
    parse_note_body,
)
from tclk_tui.technocore.records import loads_strict
from tclk_tui.technocore.sweep import survives_sweep
from tclk_tui.technocore.transport import VenueTransport
from tclk_tui.technocore.venue_url import check_name

__all__ = ["NoteCalls"]


class NoteCalls:
    """One venue's notes, read and written through the transport."""

    def __init__(self, transport: VenueTransport, signer: Callable[[], Identity]) -> None:
        self._transport = transport
        self._signer = signer

    async def get_note(self, ns: str, key: str) -> str | None:
        """A note's value, or None when no note is there. The value is another caller's data."""
        check_name(ns, "note namespace")
        check_name(key, "note key")
        what = f"read note {ns}/{key}"
        try:
            reply = await self._transport.request("GET", f"/kv/{ns}/{key}", what=what)
        except NotFound as error:
            if "no note" in error.detail:
                return None
            raise
        return parse_note_body(reply.text, ns, key)

    async def list_notes(self, ns: str) -> list[str]:
        """Keys in a namespace (unlisted `p-` keys are never shown)."""
        check_name(ns, "note namespace")
        what = f"list notes {ns}"
        reply = await self._transport.request("GET", f"/kv/{ns}", what=what,
                                              params={"format": "json"})
        data = self._transport.json(reply, what)
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
        check_name(ns, "note namespace")
        check_name(key, "note key")
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
        reply = await self._transport.request(
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
        identity = self._signer()
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

