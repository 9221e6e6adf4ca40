"""Who may write a note, and what it takes: the namespace gates, the nonce burn, the condition.

Two reserved namespaces carry room ownership (`OWNERS_NS`, `ALLOW_NS`) and take signed writes
only from the right key; a third (`NONCE_NS`) is the server's replay counter, burnt by each
signed ownership write even when it fails; every other namespace is world-writable. Its own
object beside the room rules (`room_rules`) because ownership is decided here and only read
there.
"""

from __future__ import annotations

from collections.abc import Callable

from tclk_tui.rehearsal.errors import bad_request, forbidden
from tclk_tui.rehearsal.names import (
    ALLOW_NS,
    NONCE_NS,
    OWNERS_NS,
    UNOWNABLE_ROOMS,
    check_name,
    is_ownable,
)
from tclk_tui.rehearsal.notes import Condition, Note, NoteBook
from tclk_tui.rehearsal.persist import Persistence
from tclk_tui.rehearsal.signing import is_did

__all__ = ["NoteWrites"]


class NoteWrites:
    """The gates of one venue's note writes."""

    def __init__(self, notes: NoteBook, persistence: Persistence | None,
                 head: Callable[[str], int], now: Callable[[], float],
                 reap: Callable[[float, str | None], None]) -> None:
        self._notes = notes
        self._persistence = persistence
        self._head = head  # a room's head: a room with messages can no longer be claimed
        self._now = now
        self._reap = reap  # the venue's lazy housekeeping, driven by writes

    def write(
        self,
        ns: str,
        key: str,
        value: str,
        condition: Condition,
        *,
        signer: str | None = None,
        nonce: str | None = None,
    ) -> Note:
        """Store one note after the namespace gate, the nonce burn and the condition."""
        check_name(ns)
        check_name(key)
        now = self._now()
        self._note_gate(ns, key, value, signer)
        if signer is not None:
            self._burn_nonce(key, nonce or "", now)
        first_claim = ns == OWNERS_NS and self._notes.get(OWNERS_NS, key) is None
        note = self._set_note(ns, key, value, condition, now)
        if first_claim and self._notes.get(ALLOW_NS, key) is not None:
            self._set_note(ALLOW_NS, key, "none", Condition(), now)
        self._reap(now, None)
        return note

    def _set_note(self, ns: str, key: str, value: str, condition: Condition, now: float) -> Note:
        note = self._notes.set(ns, key, value, condition, now)
        if self._persistence is not None:
            self._persistence.record_note(ns, key, value, note.ts, note.written_at)
        return note

    def _note_gate(self, ns: str, key: str, value: str, signer: str | None) -> None:
        """Two reserved namespaces carry room ownership; a third is the server's counter."""
        if ns == NONCE_NS:
            raise forbidden(
                f"/kv/{NONCE_NS} is written by the server only — it is the replay counter for "
                "signed ownership writes. Read it freely."
            )
        if ns not in (OWNERS_NS, ALLOW_NS):
            if signer is not None:
                raise bad_request(
                    f"signed note writes are only accepted for {OWNERS_NS} and {ALLOW_NS}. "
                    f"Every other namespace is world-writable — use /kv/{ns}/{key}/set/<value>."
                )
            return
        if ns == OWNERS_NS:
            self._owner_gate(key, value, signer)
            return
        owner = self._notes.get(OWNERS_NS, key)
        if owner is None:
            raise forbidden(
                f"/r/{key} has no owner, so it has no allow-list. Claim it first, signing with "
                f"the key you are storing: /kv/{OWNERS_NS}/{key}/set-signed/<did:key>/<sig>/"
                "<nonce>/<the same did:key>?if_absent=1 — then retry this write with a higher "
                f"nonce, because the claim burns /kv/{NONCE_NS}/{key}."
            )
        if signer != owner:
            raise forbidden(
                f"only the owner of /r/{key} may write its allow-list, with a signed write: "
                f"/kv/{ALLOW_NS}/{key}/set-signed/<did:key>/<sig>/<nonce>/<keys>"
            )
        tokens = value.split()
        bad = [token for token in tokens if not is_did(token)]
        if bad or not tokens:
            shown = bad[0] if bad else repr(value)
            raise bad_request(
                f"an allow-list is space-separated did:keys; {shown} is not one. Fail closed: "
                "a list with an unparseable entry lets nobody in."
            )

    def _owner_gate(self, key: str, value: str, signer: str | None) -> None:
        if not is_ownable(key):
            raise forbidden(
                f"/r/{key} cannot be owned. Only d- rooms are ownable, and never "
                f"{' or '.join(UNOWNABLE_ROOMS)}: claiming a room that already has people in "
                "it would lock them out of somewhere they were already talking."
            )
        if not is_did(value):
            raise bad_request(
                "a room owner is a did:key, not a nickname — a name nobody can prove they hold "
                "cannot own anything. Claim with the key you sign with."
            )
        current = self._notes.get(OWNERS_NS, key)
        if current is not None and signer != current:
            raise forbidden(
                f"/r/{key} is already owned. Only the current owner can hand it over, with a "
                f"signed write: /kv/{OWNERS_NS}/{key}/set-signed/..."
            )
        if current is None and signer != value:
            raise forbidden(
                f"claiming /r/{key} takes a signed write proving you hold that key: "
                f"/kv/{OWNERS_NS}/{key}/set-signed/<did:key>/<sig>/<nonce>/<the same did:key>. "
                "Anyone can type a did:key; only its holder can sign with it."
            )
        if current is None and self._head(key) > 0:
            raise forbidden(
                f"/r/{key} already has messages, so it can no longer be claimed — a room is "
                "ownable from birth or not at all, or claiming becomes a way to take over a "
                "conversation already in progress."
            )

    def _burn_nonce(self, room: str, nonce: str, now: float) -> None:
        """Spend a nonce of the room's signed ownership writes; burnt even if the write fails."""
        current = self._notes.get(NONCE_NS, room)
        if current is not None and not (current.isdigit() and int(nonce) > int(current)):
            raise forbidden(
                f"nonce {nonce} was already used for /r/{room} (last {current}). A signed "
                "ownership URL is single-use — count up and sign again."
            )
        self._set_note(NONCE_NS, room, nonce, Condition(), now)
