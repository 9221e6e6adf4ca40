"""Agent tool-call latency: in-process, over MCP stdio, and over a room mailbox on loopback.

Run: python3 benchmarks/tools.py [--calls 200]

One wallet on a rehearsal venue in this process, with one deal, and an agent granted read tools.
Each figure is one call of `rails` (the call path alone) or `status` (a deal's whole view
and transcript), end to end: in-process through the desk (grant, parameters,
registry command, audit-trail row); over MCP stdio through the official SDK's client driving
`tclk-tui mcp` in a subprocess, which attaches to this wallet's control socket; over a room as
a JSON-RPC `tools/call` written on the signed lane into the wallet's mailbox and answered into
the caller's (long-polled both ways). Figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tclk_tui.agents.room import mailbox_of
from tclk_tui.agents.room_caller import RoomCaller
from tclk_tui.agents.service import agent_methods, serving_agents
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import RpcError
from tclk_tui.engine.views import OfferDraft
from tclk_tui.engine.wallet import Wallet
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.identity import Identity
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

TARGETS_MS = {"in-process": 1.0, "mcp-stdio": 20.0, "room": 50.0}


def vault(path: Path, profile: str) -> Vault:
    return Vault(FileVaultBackend(path / f"{profile}.vault", passphrase=lambda: "bench",
                                  kdf=KdfParams.minimum()), profile=profile)


def report(name: str, tool: str, samples: list[float]) -> None:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p90 = ms[int(len(ms) * 0.9) - 1]
    target = TARGETS_MS[name]
    print(f"{name:<11} {tool:<7} n={len(ms):<4} p50 {p50:8.3f} ms  p90 {p90:8.3f} ms  "
          f"max {ms[-1]:8.3f} ms  (target p50 < {target:g} ms: "
          f"{'met' if p50 < target else 'NOT met'})")


async def timed(n: int, call) -> list[float]:
    for _ in range(min(5, n)):  # warm up
        await call()
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


async def main(calls: int) -> None:
    agent = Identity.generate()
    async with start_venue() as venue:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            wallet = await Wallet.open("bench", venue_url=venue.url, data_dir=home,
                                       vault=vault(home, "bench"),
                                       rails={"memory": MemoryRail()}, follow=False)
            try:
                folder = home / "bench" / "agents"
                folder.mkdir(parents=True)
                (folder / "reader.toml").write_text(
                    f'tools = ["status", "deals", "board", "rails"]\ndid = "{agent.did}"\n',
                    encoding="utf-8")
                deal = await wallet.post_offer(OfferDraft(role="payer", amount="1000",
                                                          asset="FLOP", rails="memory"))
                params = {"deal": deal.deal_id}
                mailbox = mailbox_of(wallet.journal)
                async with serving_agents(wallet, room=True) as desk, \
                        serve_wallet(wallet, home / "bench",
                                     extra=agent_methods(desk, RpcError)):
                    for tool, args in (("rails", {}), ("status", params)):
                        report("in-process", tool, await timed(
                            calls, lambda t=tool, a=args: desk.call("reader", t, a)))
                    server = StdioServerParameters(
                        command=sys.executable,
                        args=["-m", "tclk_tui.cli", "--home", str(home), "--profile", "bench",
                              "mcp", "--agent", "reader"], env=dict(os.environ))
                    async with Client(server, read_timeout_seconds=60) as mcp:
                        for tool, args in (("rails", {}), ("status", params)):
                            report("mcp-stdio", tool, await timed(
                                calls, lambda t=tool, a=args: mcp.call_tool(t, a)))
                    async with VenueClient(venue.url, agent) as client, \
                            RoomCaller(client, "mb-p-bench-caller") as caller:
                        for tool, args in (("rails", {}), ("status", params)):
                            report("room", tool, await timed(
                                min(calls, 100),
                                lambda t=tool, a=args: caller.call_tool(
                                    mailbox, t, a, callee_did=wallet.did)))
            finally:
                with contextlib.suppress(Exception):
                    await wallet.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    asyncio.run(main(parser.parse_args().calls))
