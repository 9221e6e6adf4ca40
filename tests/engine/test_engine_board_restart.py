"""A restart shows the board it closed with from the journal, then reads only what came after
the journal's cursor; the whole ring is exported again only when that read cannot tell."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from tclk_tui.engine.views import BoardQuery
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.codec import decode_frame
from tclk_tui.protocol.errors import FrameError
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.rehearsal.rooms import format_ts
from tclk_tui.technocore.client import MAX_LIMIT, VenueClient
from tests.engine.helpers import Pair, draft


@pytest.fixture
def exports(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The rooms every wallet exports while the test runs (every export reads the body)."""
    rooms: list[str] = []
    original = VenueClient.export_body

    async def export_body(self: VenueClient, room: str, **kwargs: object):  # type: ignore[no-untyped-def]
        rooms.append(room)
        return await original(self, room, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(VenueClient, "export_body", export_body)
    yield rooms


def _rows(wallet: Wallet) -> list[tuple]:
    return [(row.offer_id, row.sender, row.amount, row.status, row.seq, row.line)
            for row in wallet.board.query(BoardQuery(status=None, sort="seq"))]


async def _offer(wallet: Wallet, amount: str) -> str:
    return (await wallet.post_offer(draft(amount=amount))).deal_id


async def test_a_restart_shows_the_old_board_and_reads_only_what_came_after(
        pair: Pair, exports: list[str]):
    first = [await _offer(pair.alice, str(1000 + i)) for i in range(3)]
    await pair.bob.sync()
    before = _rows(pair.bob)
    assert [row[0] for row in before] == first
    await pair.bob.close()
    later = await _offer(pair.alice, "2000")
    exports.clear()
    bob = await pair.reopen("bob")
    assert OFFER_ROOM not in exports
    assert _rows(bob)[:3] == before
    assert [row[0] for row in _rows(bob)] == [*first, later]
    carol = await pair.open("carol")  # a fresh profile reads the whole ring: the same board
    assert _rows(carol) == _rows(bob)


async def test_more_than_a_page_after_the_cursor_is_read_from_the_export(
        pair: Pair, exports: list[str]):
    await _offer(pair.alice, "1000")
    await pair.bob.sync()
    await pair.bob.close()
    missed = await _offer(pair.alice, "1001")  # the first record after bob's cursor
    venue = pair.venue.venue
    for _ in range(MAX_LIMIT):
        venue.inject_record(OFFER_ROOM, {"seq": venue.head(OFFER_ROOM) + 1,
                                         "ts": format_ts(pair.clock.seconds()),
                                         "from": "mallory", "text": "noise"})
    last = await _offer(pair.alice, "1002")
    exports.clear()
    bob = await pair.reopen("bob")
    assert exports.count(OFFER_ROOM) == 1
    assert {missed, last} <= {row[0] for row in _rows(bob)}


async def test_a_board_room_recreated_while_closed_is_exported_again(
        pair: Pair, exports: list[str]):
    old = await _offer(pair.alice, "1000")
    await _offer(pair.alice, "1001")
    await pair.bob.sync()
    await pair.bob.close()
    pair.venue.venue.reap(OFFER_ROOM, reset_seq=True)
    new = await _offer(pair.alice, "1002")  # seq 1 again, in the next generation
    exports.clear()
    bob = await pair.reopen("bob")
    assert exports.count(OFFER_ROOM) == 1
    assert {old, new} <= {row[0] for row in _rows(bob)}


def _reason(line: str) -> str:
    try:
        decode_frame(line)
    except FrameError as exc:
        return str(exc)
    raise AssertionError("the line is a valid frame")


@pytest.mark.parametrize("edit", [
    "",  # as journaled
    "UPDATE records SET frame_ok = NULL, vouch = NULL",  # journaled before the columns
    "UPDATE records SET frame_ok = 1",  # said to be a frame, behind the vouch's back
    "UPDATE records SET vouch = randomblob(16)",  # another profile's journal
])
async def test_a_journaled_line_that_was_no_frame_is_refused_again_after_a_restart(
        pair: Pair, edit: str):
    offer_id = await _offer(pair.alice, "1000")
    # Signed and JSON, so journaled, but no valid frame: taken as one, it would break the board.
    line = 'tclk1 {"from":"' + pair.bob.did + '","type":"offer"}'
    await pair.bob.client.post(OFFER_ROOM, line)
    await pair.alice.sync()
    reason = _reason(line)
    assert pair.alice.board.rejected().get(reason) == 1
    path = pair.alice.journal.path
    await pair.alice.close()
    if edit:
        with sqlite3.connect(path) as conn:
            conn.execute(edit)
    alice = await pair.reopen("alice")
    assert alice.board.rejected().get(reason) == 1
    assert [row[0] for row in _rows(alice)] == [offer_id]


async def test_a_journaled_offer_edited_in_the_file_is_refused_after_a_restart(pair: Pair):
    kept = await _offer(pair.alice, "1000")
    edited = await _offer(pair.alice, "2000")
    await pair.bob.sync()
    path = pair.bob.journal.path
    await pair.bob.close()
    with sqlite3.connect(path) as conn:  # a lower amount, the same signature and vouch
        changed = conn.execute("UPDATE records SET line = replace(line, '\"2000\"', '\"1\"') "
                               "WHERE line LIKE '%\"2000\"%'").rowcount
    assert changed == 1
    bob = await pair.reopen("bob")
    assert [row[0] for row in _rows(bob)] == [kept]
    assert bob.board.get(edited) is None
    assert bob.board.rejected().get("record signature does not verify") == 1
