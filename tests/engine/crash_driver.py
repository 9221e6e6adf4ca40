"""One step of a deal in a process of its own, so a test can SIGKILL it at a crash point.

    python3 -m tests.engine.crash_driver <venue_url> <data_dir> <profile> <step> [args]

Steps: `offer-payee` (post a payee offer on the paper rail), `accept <offer id>`,
`lock <offer id>`, `reveal <offer id>`. The wallet is the one the tests open in-process (file
vault with the cheapest KDF, SQLite journal under `<data_dir>/<profile>`), on the wall clock,
without followers. With TCLK_CRASH_AT set the process dies at that point (return code -9);
otherwise it prints one JSON line with the deal's public summary and exits 0, or prints
`{"error": ...}` and exits 2 when the engine refuses the step.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tclk_tui.engine.commands import deal_summary
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.views import DealView
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tests.engine.helpers import draft, open_wallet

USAGE = "usage: crash_driver <venue_url> <data_dir> <profile> offer-payee|accept|lock|reveal [id]"


async def _step(wallet: Wallet, step: str, args: list[str]) -> DealView:
    if step == "offer-payee":
        return await wallet.post_offer(draft(role="payee"))
    if step == "accept":
        return await wallet.accept_offer(args[0])
    deal = wallet.deal(args[0])
    if step == "lock":
        request = deal.request_lock()
        return await deal.confirm(request)
    if step == "reveal":
        request = deal.request_reveal()
        return await deal.confirm(request, typed_code=request.confirm_code or "")
    raise SystemExit(USAGE)


async def run(venue_url: str, data_dir: Path, profile: str, step: str, args: list[str]) -> int:
    wallet = await open_wallet(venue_url, data_dir, profile, clock=wall_clock_ms)
    try:
        view = await _step(wallet, step, args)
    except (EngineError, GateRefused) as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
        return 2
    finally:
        await wallet.close()
    print(json.dumps(deal_summary(view)), flush=True)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        raise SystemExit(USAGE)
    venue_url, data_dir, profile, step, *args = argv
    return asyncio.run(run(venue_url, Path(data_dir), profile, step, args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
