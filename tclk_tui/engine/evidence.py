"""Signed records as the journal keeps them: evidence that outlives the venue's retention.

A reveal's secret goes to the vault, never to SQLite: the journal keeps a placeholder and
reading back puts the exact signed line together again.

Only records whose signatures verified are journaled, each with whether its line decoded as a
frame, and each row is vouched for with a keyed BLAKE2b (`VaultKeeper.journal_key`, from the
master seed) over everything it holds. A restart takes a vouched row as checked; a row whose
vouch does not match (edited in the file, copied from another profile, or journaled before
vouches) is checked again in full: its signature is the ground truth, the vouch only spares
the work.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Callable, Collection, Sequence

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.secrets.keeper import VaultKeeper
from tclk_tui.engine.sync.decoded import DecodedLines
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.side_lines import is_vote_line
from tclk_tui.protocol.transcript import (
    TranscriptRecord,
    VerifyResult,
    verify_transcript_record,
)
from tclk_tui.store import SECRET_PLACEHOLDER
from tclk_tui.store.journal import Journal
from tclk_tui.store.rows import RecordRow
from tclk_tui.technocore.records import VenueRecord

_VERIFIED = VerifyResult(True, None)
_VOUCH_PERSON = b"tclk-tui record"
_FLAG = {True: "1", False: "0", None: "-"}


def _text(value: str | None) -> str:
    return "-" if value is None else f"{len(value)}:{value}"


class Evidence:
    def __init__(self, journal: Journal, keeper: VaultKeeper,
                 deal_in_room: Callable[[str], DealSession | None]) -> None:
        self.journal = journal
        self.keeper = keeper
        self._hasher: hashlib.blake2b | None = None  # keyed by the journal key, on first use
        self._deal_in_room = deal_in_room

    def add(self, records: list[VenueRecord], decoded: DecodedLines | None = None) -> None:
        """One transaction for the batch: a whole ring arrives at start-up. `decoded` shares
        the batch's decoded frames with whoever reads the same lines next."""
        self.journal.records.add_many(self.rows(records, decoded))

    def rows(self, records: list[VenueRecord], decoded: DecodedLines | None = None
             ) -> list[RecordRow]:
        """The journal rows of these records, redacted and vouched for (what `add` writes):
        a caller may write them on another thread, the journal's own work."""
        lines = decoded if decoded is not None else DecodedLines()
        rows = []
        for r in records:
            line = self.redacted(r.room, r.text, lines)
            frame_ok = lines.frame(r.text) is not None
            generation = r.generation or 0
            vouch = self._vouch(r.room, generation, r.seq, r.timestamp_ms, r.sender, r.nonce,
                                r.sig, line, frame_ok)
            rows.append(RecordRow(r.room, generation, r.seq, r.timestamp_ms, r.sender,
                                  r.nonce, r.sig, line, 0, frame_ok, vouch))  # field order
        return rows

    def _vouch(self, room: str, generation: int, seq: int, ts_ms: int, sender: str,
               nonce: str | None, sig: str | None, line: str, frame_ok: bool | None) -> bytes:
        # Numbers first, then each text but the last length-prefixed ("-" for None, which no
        # length starts with): no two rows give the same bytes. A keyed hasher made once and
        # copied per row, since 20,000 rows are vouched for at a first open.
        if self._hasher is None:
            self._hasher = hashlib.blake2b(digest_size=16, key=self.keeper.journal_key(),
                                           person=_VOUCH_PERSON)
        body = (f"{generation},{seq},{ts_ms},{_FLAG[frame_ok]}|{len(room)}:{room}"
                f"{len(sender)}:{sender}{_text(nonce)}{_text(sig)}{line}")
        hasher = self._hasher.copy()
        hasher.update(body.encode("utf-8", "surrogatepass"))
        return hasher.digest()

    def _vouched(self, row: RecordRow) -> bool:
        return row.vouch is not None and hmac.compare_digest(row.vouch, self._vouch(
            row.room, row.generation, row.seq, row.ts_ms, row.sender, row.nonce, row.sig,
            row.line, row.frame_ok))

    def redacted(self, room: str, line: str, decoded: DecodedLines | None = None) -> str:
        """The line to journal: a reveal's secret goes to the vault, never to SQLite.

        Published or not, a secret in the journal file outlives every deal; the journal keeps
        a placeholder and `as_transcript` restores the exact signed line when reading back.
        """
        frame = decoded.frame(line) if decoded is not None else try_decode_frame(line)
        if frame is None or frame["type"] != "reveal":
            return line
        secret = frame["secret"]
        deal = self._deal_in_room(room)
        if deal is not None and deal.state.statement and verify_secret(
                deal.offer["lock"], deal.state.statement, secret):
            self.keeper.remember_revealed(deal.deal_id, secret)
        return line.replace(secret, SECRET_PLACEHOLDER)

    def as_transcript(self, row: RecordRow) -> TranscriptRecord:
        """A journaled record as the venue stored it, its reveal secret (if any) put back."""
        record = TranscriptRecord(room=row.room, seq=row.seq, timestamp_ms=row.ts_ms,
                                  sender=row.sender, nonce=row.nonce, signature=row.sig,
                                  line=row.line)
        deal = self._deal_in_room(row.room) if SECRET_PLACEHOLDER in row.line else None
        if deal is None:
            return record
        for secret in (self.keeper.deal_secret(deal.deal_id),
                       self.keeper.revealed_secret(deal.deal_id)):
            if secret is not None:
                whole = dataclasses.replace(record,
                                            line=row.line.replace(SECRET_PLACEHOLDER, secret))
                if verify_transcript_record(whole).ok:
                    return whole
        return record  # cannot be put back: it reads as an unverifiable record, never a claim

    def replay(self, room: str, decoded: DecodedLines
               ) -> tuple[list[TranscriptRecord], list[VerifyResult]]:
        """Every journaled record of one room, each with its verdict, for a start-up replay.

        A vouched row (see the module docstring) is neither verified nor validated again:
        `decoded` gets its line parsed only. Any other row is verified, and its line decoded
        in full when first read. So is a line still holding the secret placeholder: its
        secret could not be put back, so what the journal holds is not what its signature
        covers.
        """
        records: list[TranscriptRecord] = []
        verdicts: list[VerifyResult] = []
        for row in self.journal.records.of_room(room):
            record = self.as_transcript(row)
            records.append(record)
            if SECRET_PLACEHOLDER in record.line or not self._vouched(row):
                verdicts.append(verify_transcript_record(record))
                continue
            verdicts.append(_VERIFIED)
            if row.frame_ok:
                decoded.decoded_before(record.line)
        return records, verdicts

    def records(self, room: str) -> list[TranscriptRecord]:
        """Every journaled record of one room, in venue order, as the venue stored it."""
        return [self.as_transcript(r) for r in self.journal.records.of_room(room)]

    def with_votes(self, room: str, fresh: Sequence[VenueRecord],
                   jurors: Collection[str]) -> list[TranscriptRecord]:
        """A deal room's verified records as read now, with every vote line of `jurors` read
        before: the venue's ring forgets its oldest records, and anyone may write into a deal
        room, so a stranger's flood would otherwise erase the jurors' commitments. Their vote
        lines are journaled as they are read (nobody else's); the answer is in venue order."""
        def juror_vote(sender: str | None, line: str) -> bool:
            return sender in jurors and is_vote_line(line)

        votes = [r for r in fresh if r.verified and juror_vote(r.sender, r.text)]
        if votes:
            self.add(votes)
        kept = {(r.seq, r.line): r for r in self.records(room) if juror_vote(r.sender, r.line)}
        kept.update(((r.seq, r.text), r.transcript) for r in fresh if r.verified)
        return sorted(kept.values(), key=lambda r: r.seq)
