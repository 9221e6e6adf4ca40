"""Terminal app figures with a 20,000-offer board (headless, 120x40).

Prints: time to first paint of the board, time to apply one live offer update (event in,
changed line repainted), time to re-filter, and peak memory. Targets: first paint < 1.0 s,
one update < 50 ms, peak memory < 250 MB.

Run from the repository root: `python3 benchmarks/tui.py [offers]`. The board is the in-memory
contract board from the test suite (plain `OfferRow` values), so the figures are the app's own
cost plus a plain sort/filter of the rows.
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

from tclk_tui.engine.events import BoardChanged
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_table import OfferTable
from tests.tui.contract_wallet import Clock, ContractWallet, make_deal, make_offer

SIZE = (120, 40)
UPDATES = 50


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


async def wait_until(pilot, predicate, limit: int = 2000) -> None:  # type: ignore[no-untyped-def]
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause()
    raise RuntimeError("condition not reached")


async def main(count: int) -> None:
    painted = Painted()
    clock = Clock()
    rows = [make_offer(index) for index in range(count)]
    wallet = ContractWallet(rows=rows, deals=[make_deal()], clock=clock)

    started = time.perf_counter()
    app = TclkApp(wallet, clock_ms=clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: painted.first_row_paint is not None)
        first_paint = painted.first_row_paint - started  # type: ignore[operator]
        table = app.query_one(OfferTable)
        assert table.row_count == count

        timings: list[float] = []
        for step in range(UPDATES):
            row = table.row_at(step % 10)
            changed = replace(row, status="accepted" if row.status == "open" else "open")
            wallet.board.put(changed)
            painted.watch, painted.watch_paint = changed.offer_id, None
            begin = time.perf_counter()
            app.apply_events([BoardChanged(updated=(changed.offer_id,))])
            await wait_until(pilot, lambda: painted.watch_paint is not None)
            timings.append(painted.watch_paint - begin)  # type: ignore[operator]

        begin = time.perf_counter()
        app.board_pane.board_query = replace(app.board_pane.board_query, asset="USDC")
        app.requery_board()
        await pilot.pause()
        refilter = time.perf_counter() - begin

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"offers on the board:            {count:,}")
    print(f"time to first paint:            {first_paint * 1000:8.1f} ms   (target < 1000 ms)")
    print(f"one live update, median:        {statistics.median(timings) * 1000:8.2f} ms   "
          f"(target < 50 ms; max {max(timings) * 1000:.2f} ms over {UPDATES})")
    print(f"re-filter 20k rows and paint:   {refilter * 1000:8.1f} ms")
    print(f"peak memory (max RSS):          {peak_mb:8.1f} MB   (target < 250 MB)")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000))
