"""One rail action in a child process, SIGKILLed at TCLK_CRASH_AT (tests/rails/evm).

usage: python -m tests.rails.evm.crash_driver URL CHAIN ESCROW KEY TXLOG ACTION JSON
"""

from __future__ import annotations

import asyncio
import json
import sys

from tclk_tui.engine.crash import crashpoint
from tclk_tui.rails.base import LockTerms
from tclk_tui.rails.evm import EvmConfig, EvmHtlcRail, TxLog, parse_assets


async def main(url: str, chain: str, escrow: str, key: str, txlog: str, action: str,
               arg: str) -> None:
    args = json.loads(arg)
    config = EvmConfig(url=url, chain_id=int(chain), escrow=escrow,
                       assets=parse_assets(args.get("assets")))
    rail = EvmHtlcRail(config, bytes.fromhex(key), TxLog(txlog), on_step=crashpoint)
    try:
        notes = await rail.reconcile()
        if action == "lock":
            result = await rail.lock(LockTerms(**args["terms"]), payee_key=args["payee_key"])
        elif action == "claim":
            result = await rail.claim(args["ref"], args["secret"])
        else:
            result = await rail.refund(args["ref"])
        print(json.dumps({"result": result, "notes": notes}))
    finally:
        await rail.aclose()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
