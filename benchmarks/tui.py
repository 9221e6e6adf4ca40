"""Terminal app figures with a 20,000-offer board (headless, 120x40).

Prints: the engine's ingest of the board (separately, it is not the app's cost), time to first
paint of the board, time to apply one live offer update (a signed accept ingested by the board,
its change published as an event, the changed line repainted), time to re-filter, and peak
memory. Targets: first paint < 1.0 s, one update < 50 ms, peak memory < 250 MB.

Run from the repository root: `python3 benchmarks/tui.py [offers]`. The board is the engine's
own `OffersBoard` fed real Ed25519-signed `tclk-offers` records (signed before any clock
starts), so the figures include its queries and the verification of every live record. The
rest of the wallet is the test suite's in-memory double: the app reads nothing else from it
while the board pane is open.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.views import OfferRow
from tclk_tui.protocol.adaptor import get_public_key
from tclk_tui.protocol.builders import make_accept, make_offer
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.technocore.identity import Identity
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_table import OfferTable
from tests.tui.contract_wallet import Clock, ContractWallet, make_deal

SIZE = (120, 40)
UPDATES = 50
SENDERS = 8
NOW_MS = 1_800_000_000_000
ASSETS = ("FLOP", "USDC", "SATS", "EURC")
RAILS = (["paper"], ["memory"], ["memory", "paper"])


class Painted:
    """Records when the table draws a given offer's line."""

    def __init__(self) -> None:
        self.first_row_paint: float | None = None
        self.watch: str | None = None
        self.watch_paint: float | None = None
        original = OfferTable.render_line
        painted = self

        def render_line(table: OfferTable, y: int):  # type: ignore[no-untyped-def]
            strip = original(table, y)
            if y > 0 and table.row_count:
                now = time.perf_counter()
                if painted.first_row_paint is None:
                    painted.first_row_paint = now
                index = int(table.scroll_offset.y) + y - 1
                if (painted.watch is not None and index < table.row_count
                        and table.row_at(index).offer_id == painted.watch):
                    painted.watch_paint = now
                    painted.watch = None
            return strip

        OfferTable.render_line = render_line  # type: ignore[method-assign]


class BoardWallet(ContractWallet):
    """The test suite's wallet double with the engine's real offers board in place."""

    def __init__(self, board: OffersBoard, clock: Clock) -> None:
        super().__init__(deals=[make_deal(now_ms=clock.value)], clock=clock)
        self.board = board  # type: ignore[assignment]


class Signer:
    """Builds signed `tclk-offers` records with distinct venue sequence numbers."""

    def __init__(self) -> None:
        self.seq = 0

    def record(self, identity: Identity, line: str, timestamp_ms: int) -> TranscriptRecord:
        self.seq += 1
        nonce = str(NOW_MS + self.seq)
        return TranscriptRecord(room=OFFER_ROOM, seq=self.seq, timestamp_ms=timestamp_ms,
                                sender=identity.did, nonce=nonce,
                                signature=identity.sign(OFFER_ROOM, nonce, line), line=line)


def signed_offers(signer: Signer, count: int) -> list[TranscriptRecord]:
    """`count` distinct offers from a few identities; every fifth is a point lock carrying its
    maker's secp256k1 payment key."""
    identities = [Identity.generate() for _ in range(SENDERS)]
    payment_keys = [get_public_key("0x" + f"{i + 1:064x}") for i in range(SENDERS)]
    records = []
    for index in range(count):
        who = index % SENDERS
        point = index % 5 == 0
        offer = make_offer(
            from_=identities[who].did, role="payee" if index % 3 == 0 else "payer",
            amount=str(1000 + index * 7), asset=ASSETS[index % len(ASSETS)],
            lock="point" if point else "hash", rails=RAILS[index % len(RAILS)],
            claim_by_ms=NOW_MS + 3_600_000, refund_after_ms=NOW_MS + 7_200_000,
            expires_ms=NOW_MS + 600_000 + index, nonce=f"{index:016x}",
            payment_key=payment_keys[who] if point else None,
        )
        records.append(signer.record(identities[who], encode_frame(offer),
                                     NOW_MS - 1000 + index // 10))
    return records


class Acceptor:
    """A taker outside the offer makers, accepting offers by signed `accept` records."""

    def __init__(self, signer: Signer) -> None:
        self.signer = signer
        self.identity = Identity.generate()
        self.payment_key = get_public_key("0x" + "ac" * 32)
        self.point_statement = get_public_key("0x" + "5e" * 32)

    def accept(self, board: OffersBoard, offer_id: str) -> TranscriptRecord:
        offer = board.offer_frame(offer_id)
        assert offer is not None
        point = offer["lock"] == "point"
        frame = make_accept(
            offer, from_=self.identity.did,
            statement=self.point_statement if point else "0x" + f"{self.signer.seq:064x}",
            payment_key=self.payment_key if point else None, nonce=f"{self.signer.seq:016x}")
        return self.signer.record(self.identity, encode_frame(frame), NOW_MS)


async def wait_until(pilot, predicate, limit: int = 2000) -> None:  # type: ignore[no-untyped-def]
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause()
    raise RuntimeError("condition not reached")


def visible_open(table: OfferTable) -> OfferRow | None:
    """An open offer whose line is on screen, so accepting it must repaint a visible line."""
    top = int(table.scroll_offset.y)
    bottom = min(top + table.scrollable_content_region.height - 1, table.row_count)
    for index in range(top, bottom):
        row = table.row_at(index)
        if row.status == "open":
            return row
    return None


async def main(count: int) -> None:
    signer = Signer()
    start = time.perf_counter()
    records = signed_offers(signer, count)
    acceptor = Acceptor(signer)
    signing = time.perf_counter() - start

    board = OffersBoard()
    start = time.perf_counter()
    board.ingest(records, now_ms=NOW_MS)
    ingest = time.perf_counter() - start
    del records
    assert len(board) == count and not board.rejected()

    painted = Painted()
    clock = Clock(NOW_MS)
    wallet = BoardWallet(board, clock)

    started = time.perf_counter()
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: painted.first_row_paint is not None)
        first_paint = painted.first_row_paint - started  # type: ignore[operator]
        table = app.query_one(OfferTable)
        shown = len(board.query(app.board_pane.board_query))  # what the pane's filter keeps
        assert table.row_count == shown, (table.row_count, shown)

        timings: list[float] = []
        ingests: list[float] = []
        for _ in range(UPDATES):
            row = visible_open(table)
            if row is None:  # every line on screen is accepted: page down, untimed
                top = int(table.scroll_offset.y) + table.scrollable_content_region.height - 1
                painted.watch, painted.watch_paint = table.row_at(top).offer_id, None
                table.scroll_to(y=top, animate=False, force=True)
                await wait_until(pilot, lambda: painted.watch_paint is not None)
                row = visible_open(table)
                assert row is not None
            record = acceptor.accept(board, row.offer_id)
            painted.watch, painted.watch_paint = row.offer_id, None
            begin = time.perf_counter()
            change = board.ingest([record], now_ms=NOW_MS)
            ingests.append(time.perf_counter() - begin)
            assert change.updated == (row.offer_id,), change
            wallet.events.publish(change)
            await wait_until(pilot, lambda: painted.watch_paint is not None)
            timings.append(painted.watch_paint - begin)  # type: ignore[operator]
            assert table.row_at(table.index_of(row.offer_id) or 0).status == "accepted"

        begin = time.perf_counter()
        app.board_pane.board_query = replace(app.board_pane.board_query, asset="USDC")
        app.board.requery_board()
        await pilot.pause()
        refilter = time.perf_counter() - begin

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"offers on the board:            {count:,}   "
          f"(real signed records from {SENDERS} senders, signed in {signing:.2f} s, untimed)")
    print(f"engine ingest of the board:     {ingest * 1000:8.1f} ms   "
          "(OffersBoard.ingest: verify, decode, model; the engine's cost, not the app's)")
    print(f"time to first paint:            {first_paint * 1000:8.1f} ms   (target < 1000 ms)")
    print(f"one live update, median:        {statistics.median(timings) * 1000:8.2f} ms   "
          f"(target < 50 ms; max {max(timings) * 1000:.2f} ms over {UPDATES}; of which "
          f"ingesting the signed accept: median {statistics.median(ingests) * 1000:.2f} ms)")
    print(f"re-filter 20k rows and paint:   {refilter * 1000:8.1f} ms")
    print(f"peak memory (max RSS):          {peak_mb:8.1f} MB   (target < 250 MB)")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000))
