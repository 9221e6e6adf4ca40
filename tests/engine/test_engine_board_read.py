"""A first open checks the ring's newest records first and shows their offers at once, then
folds the whole ring in venue order while the rest is checked: every row ever shown is a
verified offer exactly as the whole board has it, and the board it ends with is the one a
single reading of the export gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.events import BoardChanged, EventBus, Notice
from tclk_tui.engine.sync.room_sync import RoomSync
from tclk_tui.engine.views import BoardQuery, OfferRow
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import VerifyResult, verify_transcript_record
from tclk_tui.technocore.client import MAX_LIMIT
from tclk_tui.technocore.records import parse_export
from tclk_tui.technocore.verify import Opener
from tests.engine.helpers import file_vault, until
from tests.engine.hostile_ring import OFFERS, build


def _rows(board: OffersBoard) -> dict[str, OfferRow]:
    return {row.offer_id: row for row in board.query(BoardQuery(status=None, sort="seq"))}


async def _reference(wallet: Wallet) -> OffersBoard:
    """The board one reading of the whole export gives (what a first open did before)."""
    body, generation = await wallet.client.export_body(OFFER_ROOM)
    export = parse_export(OFFER_ROOM, body, generation)
    board = OffersBoard(wallet.did, wallet.board._amount_text)
    for bad in export.malformed:
        board.reject(bad.reason, key=(bad.seq, str(bad.raw)[:256]))
    board.ingest([r.transcript for r in export.records], now_ms=wallet.now_ms(),
                 verdicts=[VerifyResult(r.verified, r.unverified_reason)
                           for r in export.records])
    return board


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict[str, OfferRow]], list[int]]:
    """The rows each preview showed (read back from the board as a face would), and every
    `checking` count published."""
    previews: list[dict[str, OfferRow]] = []
    checking: list[int] = []
    show = OffersBoard.show_preview
    publish = EventBus.publish

    def show_preview(self: OffersBoard, *args: object, **kwargs: object) -> BoardChanged:
        changed = show(self, *args, **kwargs)  # type: ignore[arg-type]
        previews.append({oid: row for oid in changed.added if (row := self.get(oid))})
        return changed

    def record(self: EventBus, event: object) -> None:
        if isinstance(event, BoardChanged) and event.checking is not None:
            checking.append(event.checking)
        publish(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(OffersBoard, "show_preview", show_preview)
    monkeypatch.setattr(EventBus, "publish", record)
    return previews, checking


async def _first_open(venue_url: str, tmp_path: Path) -> Wallet:
    return await Wallet.open("carol", venue_url=venue_url, data_dir=tmp_path,
                             vault=file_vault(tmp_path, "carol"), follow=False)


async def test_the_newest_offers_show_first_exactly_and_the_whole_board_follows(
        venue, tmp_path, watched):
    previews, checking = watched
    ring = build(venue.venue)
    wallet = await _first_open(venue.url, tmp_path)
    try:
        final, reference = _rows(wallet.board), await _reference(wallet)
        assert final == _rows(reference)
        assert wallet.board.rejected() == reference.rejected()
        assert len(wallet.journal.records.of_room(OFFER_ROOM)) == len(
            [r for r in (await wallet.client.export(OFFER_ROOM)).records if r.verified])

        assert len(previews) == 1
        preview = previews[0]
        assert len(preview) > 500  # several screens, before most of the ring was checked
        for offer_id, row in preview.items():  # each one the whole board's row, verified
            assert row == final[offer_id]
            assert verify_transcript_record(wallet.board.offer_record(offer_id)).ok
        assert preview[ring.accepted].status == "accepted"
        assert set(ring.copied) <= set(final) and not set(ring.copied) & set(preview)
        assert not set(ring.forged) & (set(preview) | set(final))
        assert ring.cancelled in final and final[ring.cancelled].status == "cancelled"

        assert checking[0] > len(preview) and checking[-1] == 0
        assert checking == sorted(checking, reverse=True)
        assert wallet.board._preview is None  # the pass is over: the board's own rows only
    finally:
        await wallet.close()


async def test_a_newest_record_under_an_older_seq_shows_no_preview(venue, tmp_path, watched):
    """The venue's seq order decides which records the board keeps; a preview would have
    to guess it."""
    previews, _checking = watched
    build(venue.venue, seq_jump=True)
    wallet = await _first_open(venue.url, tmp_path)
    try:
        assert previews == []
        assert _rows(wallet.board) == _rows(await _reference(wallet))
    finally:
        await wallet.close()


async def test_a_restart_that_must_export_again_checks_only_what_is_new(
        venue, tmp_path, monkeypatch):
    """More than a page arrived while closed, so the ring is exported again: the records the
    journal vouches for are not checked a second time, the new ones are."""
    ring = build(venue.venue)
    wallet = await _first_open(venue.url, tmp_path)
    journaled = {(row.seq, row.line) for row in wallet.journal.records.of_room(OFFER_ROOM)}
    await wallet.close()
    for index in range(MAX_LIMIT + 10):
        ring.post(ring.makers[index % 8], ring.offer(OFFERS + 10 + index)[1])
    checked: list[object] = []
    verify = Opener.verify
    monkeypatch.setattr(Opener, "verify", lambda self, record: checked.append(record)
                        or verify(self, record))
    wallet = await _first_open(venue.url, tmp_path)
    try:
        again = [r for r in checked if (r.seq, r.line) in journaled]  # type: ignore[attr-defined]
        assert again == []
        assert len({r.seq for r in checked}) >= MAX_LIMIT + 10  # type: ignore[attr-defined]
        assert _rows(wallet.board) == _rows(await _reference(wallet))
    finally:
        await wallet.close()


async def test_a_read_behind_the_screen_that_fails_says_why_and_follows_on(
        venue, tmp_path, monkeypatch):
    """The app's first read runs in the background: a failure there is shown, the offers and
    accepts waiting for it go on, and the followers start from the journal's cursor."""
    said: list[str] = []
    publish = EventBus.publish

    async def broken(self: RoomSync) -> None:
        raise RuntimeError("the disk went away")

    def record(self: EventBus, event: object) -> None:
        if isinstance(event, Notice):
            said.append(event.text)
        publish(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(RoomSync, "sync", broken)
    monkeypatch.setattr(EventBus, "publish", record)
    wallet = await Wallet.open("carol", venue_url=venue.url, data_dir=tmp_path,
                               vault=file_vault(tmp_path, "carol"), follow=True,
                               background=True)
    try:
        await until(lambda: wallet.rooms.first_read.is_set() and wallet.rooms.following)
        assert any("the disk went away" in text for text in said)
    finally:
        await wallet.close()
