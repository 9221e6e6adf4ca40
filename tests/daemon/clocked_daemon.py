"""A profile's daemon whose clock is a file the test moves (the test's venue reads the same
time), so deadlines hours away arrive within a test: `python3 clocked_daemon.py VENUE HOME
PROFILE CLOCK_FILE`. Everything else is `tclk-tui daemon`'s own: `run_daemon`, the control
socket, the log, the engine following the venue with nobody attached."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tclk_tui.daemon.run import run_daemon
from tclk_tui.engine.wallet import Wallet
from tests.daemon.conftest import make_vault


def main() -> int:
    venue_url, home, profile, clock_file = sys.argv[1:5]
    home_dir = Path(home)
    clock_path = Path(clock_file)

    def clock_ms() -> int:
        return int(clock_path.read_text())

    async def open_wallet(args: object, follow: bool = False) -> Wallet:
        return await Wallet.open(profile, venue_url=venue_url, data_dir=home_dir,
                                 vault=make_vault(home_dir, profile), clock_ms=clock_ms,
                                 follow=follow)

    return asyncio.run(run_daemon(open_wallet, None, home_dir / profile, "info"))


if __name__ == "__main__":
    sys.exit(main())
