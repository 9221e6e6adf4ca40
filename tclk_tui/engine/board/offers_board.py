"""A live model of the `tclk-offers` board.

Only records whose signature verifies, whose line decodes as a tclk/1 frame and whose frame
sender is the record's signer count. Everything else is tallied by reason and never shown as an
offer: the board is written by strangers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from tclk_tui.engine.events import BoardChanged
from tclk_tui.engine.sync.decoded import DecodedLines
from tclk_tui.engine.views import BoardQuery, OfferRow
from tclk_tui.protocol.errors import LineError, TclkError
from tclk_tui.protocol.frames import AcceptFrame, CancelFrame, OfferFrame
from tclk_tui.protocol.locks import is_valid_statement
from tclk_tui.protocol.machine import apply_frame, open_contract
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.panel import Panel, panel_of, panel_statement
from tclk_tui.protocol.side_lines import is_statement_line, parse_statement
from tclk_tui.protocol.transcript import TranscriptRecord, VerifyResult
from tclk_tui.technocore.verify import verify_records

AWAITING = "awaiting"
"""The status of an offer whose statement (its payee's, or its panel's) is not out yet."""
MAX_REJECT_REASONS = 64
MAX_REJECT_REASON_CHARS = 240
OTHER_REJECT_REASONS = "other reasons (not told apart past the first 64)"


class OffersBoard:
    """Offers by id, their status, and a tally of rejected lines by reason."""

    def __init__(self, own_did: str | None = None,
                 amount_text: Callable[[object, str, tuple[str, ...]], tuple[str, str]]
                 | None = None) -> None:
        self.own_did = own_did
        # How an offer's amount reads as money here (engine.money); minimal units without it.
        self._amount_text = amount_text
        self._rows: dict[str, OfferRow] = {}
        self._frames: dict[str, OfferFrame] = {}
        self._records: dict[str, TranscriptRecord] = {}
        self._accepts: dict[str, tuple[TranscriptRecord, AcceptFrame]] = {}
        self._statements: dict[str, str] = {}
        self._panel_lines: dict[str, dict[str, str]] = {}  # offer id -> member DID -> statement
        self._capabilities: dict[str, tuple[str, ...] | None] = {}
        self._rejected: Counter[str] = Counter()
        self._seen: set[object] = set()
        self._now_ms = 0
        # While a whole ring is being checked: the offers of its newest records, checked first
        # (see `show_preview`), and offers not shown yet because a line not read yet names
        # them (see `hold`).
        self._preview: OffersBoard | None = None
        self._held: set[str] = set()

    def __len__(self) -> int:
        return len(self._rows) - len(self._held) + len(self._previewed())

    # -- ingest -------------------------------------------------------------------------------

    def ingest(
        self, records: Iterable[TranscriptRecord], now_ms: int | None = None, *,
        verdicts: Sequence[VerifyResult] | None = None,
        decoded: DecodedLines | None = None,
    ) -> BoardChanged:
        """Fold new board records in; returns which offers appeared or changed.

        `verdicts`, when given, are `verify_transcript_record` results the caller already has
        for exactly these records (the venue client verifies every record it parses), so the
        signatures are not checked twice; `decoded` shares the batch's decoded frames with the
        caller (the journal and the routing of accepts read the same lines).
        """
        if now_ms is not None:
            self._now_ms = now_ms
        added: list[str] = []
        updated: list[str] = []
        rejected = 0
        batch = list(records)
        pairs: list[tuple[TranscriptRecord, VerifyResult | None]]
        if verdicts is None:
            pairs = [(r, None) for r in batch if (r.seq, hash(r.line)) not in self._seen]
        else:
            if len(verdicts) != len(batch):
                raise ValueError("one verdict per record")
            pairs = list(zip(batch, verdicts, strict=True))  # seen ones: `_ingest_one` skips
        unknown = [r for r, v in pairs if v is None]
        computed = iter(verify_records(unknown))
        checked = [(r, v if v is not None else next(computed)) for r, v in pairs]
        lines = decoded if decoded is not None else DecodedLines()
        for record, verdict in checked:
            outcome = self._ingest_one(record, verdict, lines)
            if outcome is None:
                continue
            kind, detail = outcome
            if kind == "added":
                added.append(detail)
            elif kind == "updated":
                updated.append(detail)
            else:
                rejected += 1
                self._count_rejected(detail)
        return BoardChanged(added=tuple(added), updated=tuple(dict.fromkeys(updated)),
                            rejected=rejected)

    def reject(self, reason: str, key: object) -> BoardChanged:
        """Count an item that never became a record (unreadable JSON, a torn line), once."""
        marker = ("unreadable", key)
        if marker in self._seen:
            return BoardChanged()
        self._seen.add(marker)
        self._count_rejected(reason)
        return BoardChanged(rejected=1)

    def _count_rejected(self, reason: str) -> None:
        """Tally by reason, in bounded memory: strangers choose the reasons (every distinct
        junk value makes a distinct one), so past `MAX_REJECT_REASONS` new reasons share one
        bucket, and a reason is kept at most `MAX_REJECT_REASON_CHARS` long."""
        reason = reason[:MAX_REJECT_REASON_CHARS]
        if reason not in self._rejected and len(self._rejected) >= MAX_REJECT_REASONS:
            reason = OTHER_REJECT_REASONS
        self._rejected[reason] += 1

    def _ingest_one(self, record: TranscriptRecord, verdict: VerifyResult,
                    decoded: DecodedLines) -> tuple[str, str] | None:
        key = (record.seq, hash(record.line))
        if key in self._seen:
            return None
        self._seen.add(key)
        if record.room != OFFER_ROOM:
            return "rejected", f"record from room {record.room}, not {OFFER_ROOM}"
        if not verdict.ok:
            return "rejected", str(verdict.reason)
        if is_statement_line(record.line):
            try:
                line = parse_statement(record.line)
            except LineError as exc:
                return "rejected", str(exc)
            return self._ingest_statement(record, line.offer_id, line.statement)
        frame, reason = decoded.decode(record.line)
        if frame is None:
            return "rejected", str(reason)
        if frame.get("from") != record.sender:
            return "rejected", f"{frame['type']}.from does not match the record sender"
        if frame["type"] == "offer":
            return self._ingest_offer(record, frame)
        if frame["type"] == "accept":
            return self._ingest_accept(record, frame)
        if frame["type"] == "cancel":
            return self._ingest_cancel(record, frame)
        return "rejected", f"{frame['type']} must be posted in the derived deal room"

    def _ingest_offer(self, record: TranscriptRecord, frame: OfferFrame) -> tuple[str, str]:
        offer_id = frame["id"]
        if offer_id in self._rows:
            return "rejected", "offer already on the board"
        job = frame.get("job")
        rails = tuple(frame["rails"])
        units, text = (self._amount_text(frame["amount"], frame["asset"], rails)
                       if self._amount_text is not None else ("", ""))
        sender, expires = record.sender, frame["expiresMs"]
        row = OfferRow(  # positionally, in OfferRow's order: a whole ring's rows are made here
            offer_id, sender, frame["role"], frame["amount"], frame["asset"], frame["lock"],
            rails, frame["claimByMs"], frame["refundAfterMs"], expires,
            "open" if record.timestamp_ms < expires else "expired",
            self._capabilities.get(sender), sender == self.own_did, record.seq,
            record.timestamp_ms, f"{job['proto']}:{job['id']}" if isinstance(job, dict) else "",
            record.line, text, units)
        self._frames[offer_id] = frame
        self._records[offer_id] = record
        if row.status == "open" and self._awaits_statement(offer_id):
            row = replace(row, status=AWAITING)
        self._rows[offer_id] = self._with_clock_status(row)
        return "added", offer_id

    def _awaits_statement(self, offer_id: str) -> bool:
        """An offer nobody can accept yet: its payee (or its panel) mints the statement and
        has not published it (the accept must carry it)."""
        offer = self._frames[offer_id]
        needs = offer["role"] == "payee" or _panel(offer) is not None
        return needs and self.published_statement(offer_id) is None

    def _statement_in(self, offer_id: str) -> None:
        row = self._rows.get(offer_id)
        if row is not None and row.status == AWAITING and not self._awaits_statement(offer_id):
            self._rows[offer_id] = self._with_clock_status(replace(row, status="open"))

    def _ingest_accept(self, record: TranscriptRecord, frame: AcceptFrame) -> tuple[str, str]:
        offer_id = frame["ref"]
        offer = self._frames.get(offer_id)
        row = self._rows.get(offer_id)
        if offer is None or row is None:
            return "rejected", "accept names an offer not on the board"
        if row.status in ("accepted", "cancelled"):
            return "rejected", f"accept for an offer already {row.status}"
        # The state machine's own judgement, at the venue's stamp: the board shows an offer
        # accepted only by an accept the deal's fold would take (one rule, not a copy of it).
        step = apply_frame(open_contract(offer), frame, record.timestamp_ms)
        if not step.ok:
            return "rejected", (step.reason or "refused by the state machine").removeprefix(
                "tclk: ")
        self._accepts[offer_id] = (record, frame)
        self._rows[offer_id] = replace(row, status="accepted")
        return "updated", offer_id

    def _ingest_cancel(self, record: TranscriptRecord, frame: CancelFrame) -> tuple[str, str]:
        # A proposed offer is cancelled by its sender naming the offer id in `contract`
        # (the machine ignores `contract` while proposed, so any hex32 is valid there).
        offer_id = frame["contract"]
        row = self._rows.get(offer_id)
        if row is None or row.sender != record.sender:
            return "rejected", "cancel names no offer of its sender"
        if row.status in ("accepted", "cancelled"):
            return "rejected", f"cancel for an offer already {row.status}"
        self._rows[offer_id] = replace(row, status="cancelled")
        return "updated", offer_id

    def _ingest_statement(self, record: TranscriptRecord, offer_id: str,
                          statement: str) -> tuple[str, str]:
        offer = self._frames.get(offer_id)
        panel = _panel(offer) if offer is not None else None
        if panel is not None and offer is not None:
            return self._ingest_panel_line(record, offer, panel, offer_id, statement)
        if offer is None or offer["from"] != record.sender or offer["role"] != "payee":
            return "rejected", "statement line names no payee offer of its sender"
        if not is_valid_statement(offer["lock"], statement):
            return "rejected", f"statement does not fit a {offer['lock']} lock"
        self._statements.setdefault(offer_id, statement)
        self._statement_in(offer_id)
        return "updated", offer_id

    def _ingest_panel_line(self, record: TranscriptRecord, offer: OfferFrame, panel: Panel,
                           offer_id: str, statement: str) -> tuple[str, str]:
        """A statement (arbiter, dealer) or a share point (juror) of an offer naming a panel."""
        minters = panel.members if panel.kind == "committee" and offer["lock"] == "point" \
            else (panel.dealer,)
        if record.sender not in minters:
            return "rejected", "statement line from someone the offer's panel does not name"
        lock = "point" if panel.kind == "committee" and offer["lock"] == "point" \
            else offer["lock"]
        if not is_valid_statement(lock, statement):
            return "rejected", f"statement does not fit a {lock} lock"
        self._panel_lines.setdefault(offer_id, {}).setdefault(record.sender, statement)
        self._statement_in(offer_id)
        return "updated", offer_id

    # -- while a whole ring is being checked --------------------------------------------------

    def show_preview(self, records: Sequence[TranscriptRecord], verdicts: Sequence[VerifyResult],
                     decoded: DecodedLines | None = None) -> BoardChanged:
        """Show the offers of the ring's newest records while the older ones are still being
        checked, before the board itself has read them in venue order.

        `records` are the ring's last ones, in venue order, with their verdicts. They are read
        into a board of their own, so a row shown is a verified offer with its status as every
        later record has it (an accept or a cancel only ever follows its offer). It stays
        shown until the board holds that offer itself, and the preview ends with the pass
        (`end_preview`); offers the board holds are never shadowed by it."""
        preview = OffersBoard(self.own_did, self._amount_text)
        preview._capabilities = self._capabilities
        preview._now_ms = self._now_ms
        preview.ingest(records, verdicts=verdicts, decoded=decoded)
        self._preview = preview
        return BoardChanged(added=tuple(self._previewed()))

    def hold(self, offer_ids: Iterable[str]) -> None:
        """Do not show these offers yet: a record of the ring not read yet names them (an
        accept or a cancel may follow), so their rows may still change. The preview's row of
        one, when it has one, is shown meanwhile."""
        self._held.update(offer_ids)

    def release(self, offer_ids: Iterable[str]) -> BoardChanged:
        """Show held offers again: every record naming them is read."""
        shown = [oid for oid in offer_ids if oid in self._held]
        self._held.difference_update(shown)
        return BoardChanged(added=tuple(shown))

    def end_preview(self) -> None:
        """The pass in venue order is over: only the board's own offers are shown."""
        self._preview = None
        self._held.clear()

    def _previewed(self) -> list[str]:
        """Offers shown from the preview: those the board does not show itself yet."""
        preview = self._preview
        if preview is None:
            return []
        held, rows = self._held, self._rows
        return [oid for oid in preview._rows if oid not in rows or oid in held]

    def _shown(self) -> Iterable[OfferRow]:
        held, preview = self._held, self._preview
        if not held and preview is None:
            return self._rows.values()
        rows = [row for oid, row in self._rows.items() if oid not in held]
        if preview is not None:
            rows += [preview._rows[oid] for oid in self._previewed()]
        return rows

    # -- clock and hints ----------------------------------------------------------------------

    def _with_clock_status(self, row: OfferRow) -> OfferRow:
        if row.status in ("open", AWAITING) and self._now_ms >= row.expires_ms:
            return replace(row, status="expired")
        return row

    def refresh_status(self, now_ms: int) -> BoardChanged:
        """Expire offers whose `expiresMs` has passed; cheap enough to call every second."""
        self._now_ms = now_ms
        expired = [oid for oid, row in self._rows.items()
                   if row.status in ("open", AWAITING) and now_ms >= row.expires_ms]
        for oid in expired:
            self._rows[oid] = replace(self._rows[oid], status="expired")
        if self._preview is not None:
            expired += self._preview.refresh_status(now_ms).updated
        return BoardChanged(updated=tuple(expired))

    def set_capability(self, did: str, rails: tuple[str, ...] | None) -> BoardChanged:
        """Record the rails a DID note advertises: a routing hint, never proof."""
        self._capabilities[did] = rails
        changed = [oid for oid, row in self._rows.items()
                   if row.sender == did and row.capability != rails]
        for oid in changed:
            self._rows[oid] = replace(self._rows[oid], capability=rails)
        if self._preview is not None:
            changed += self._preview.set_capability(did, rails).updated
        return BoardChanged(updated=tuple(changed))

    # -- queries ------------------------------------------------------------------------------

    def get(self, offer_id: str) -> OfferRow | None:
        row = self._rows.get(offer_id)
        if row is None and self._preview is not None:
            return self._preview.get(offer_id)
        return row

    def offer_frame(self, offer_id: str) -> OfferFrame | None:
        return self._frames.get(offer_id)

    def offer_record(self, offer_id: str) -> TranscriptRecord | None:
        return self._records.get(offer_id)

    def accept_of(self, offer_id: str) -> tuple[TranscriptRecord, AcceptFrame] | None:
        return self._accepts.get(offer_id)

    def naming(self, text: str) -> list[OfferFrame]:
        """The offers whose signed line contains `text` (a DID a panel names), unsorted: cheap
        enough to ask once a second of a 20,000-offer board."""
        return [self._frames[oid] for oid, row in self._rows.items() if text in row.line]

    def offer_of_contract(self, contract: str) -> OfferFrame | None:
        """The offer whose accept on the board makes `contract`, if one does."""
        for offer_id, (_record, frame) in self._accepts.items():
            if frame.get("contract") == contract:
                return self._frames.get(offer_id)
        return None

    def published_statement(self, offer_id: str) -> str | None:
        """The statement an accept must carry: the payee-offerer's, or the one the offer's
        panel published (the arbiter's, or the sum of every juror's share point)."""
        offer = self._frames.get(offer_id)
        panel = _panel(offer) if offer is not None else None
        if panel is not None and offer is not None:
            return panel_statement(offer, panel, self.panel_lines(offer_id)).statement
        return self._statements.get(offer_id)

    def panel_lines(self, offer_id: str) -> dict[str, str]:
        """The panel's signed statement lines for an offer, by member DID."""
        return dict(self._panel_lines.get(offer_id, {}))

    def senders(self) -> set[str]:
        return {row.sender for row in self._rows.values()}

    def rejected(self) -> dict[str, int]:
        return dict(self._rejected.most_common())

    def listing(self, q: BoardQuery | None = None) -> tuple[str, list[int]]:
        """`query(q)` as its offers' ids, one string of them all (an id is always
        `views.OFFER_ID_CHARS` long), and their rows' versions: a face in another process keeps the
        rows it has and fetches (`rows`) only those it lacks or whose version changed, instead
        of a whole board's rows on every requery. A row's version is its hash: rows are frozen
        values, replaced whole whenever anything in them changes."""
        rows = self.query(q)
        return "".join(row.offer_id for row in rows), [hash(row) for row in rows]

    def rows(self, offer_ids: Sequence[str]) -> list[tuple[int, OfferRow]]:
        """The rows of these offers with their versions (see `listing`); unknown ids are left
        out."""
        return [(hash(row), row) for oid in offer_ids if (row := self.get(oid)) is not None]

    def query(self, q: BoardQuery | None = None) -> list[OfferRow]:
        q = q or BoardQuery()
        text = q.text.strip().lower()
        rows = [
            row for row in self._shown()
            if (q.status is None or row.status == q.status)
            and (q.asset is None or row.asset == q.asset)
            and (q.rail is None or q.rail in row.rails)
            and (q.lock is None or row.lock == q.lock)
            and (q.role is None or row.role == q.role)
            and (not text or text in _haystack(row))
        ]
        sort = q.sort if q.sort in OfferRow.__slots__ else "expires_ms"
        if sort == "amount":
            rows.sort(key=lambda r: (len(r.amount), r.amount), reverse=q.descending)
        else:
            rows.sort(key=lambda r: getattr(r, sort), reverse=q.descending)
        return rows


def _panel(offer: OfferFrame) -> Panel | None:
    try:
        return panel_of(offer)
    except TclkError:
        return None


def _haystack(row: OfferRow) -> str:
    return " ".join((row.offer_id, row.sender, row.asset, row.lock, row.role, row.amount,
                     row.job, *row.rails)).lower()
