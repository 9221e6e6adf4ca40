"""A detached daemon watches by itself: it refunds an expired lock, and runs the operator's
alert command when a payee's last safe moment to reveal comes near; the alerts are shown to
the face that attaches later, with the venue's budgets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path

from tclk_tui.daemon.client import DaemonClient, NoDaemon
from tclk_tui.daemon.paths import socket_path
from tclk_tui.daemon.remote import RemoteDoor
from tests.daemon.conftest import cli_env
from tests.engine.helpers import Clock, draft, open_wallet, until

RECORDER = Path(__file__).parents[1] / "engine" / "record_alert.py"
HOUR_MS = 3_600_000


async def _call(client: DaemonClient, method: str, **params: object) -> dict:
    # The daemon reads the venue this test serves: never block the loop waiting for it.
    return await asyncio.to_thread(client.call, method, dict(params))


async def _start(venue_url: str, home: Path, clock_file: Path) -> asyncio.subprocess.Process:
    with (home / "daemon.stderr").open("ab") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).with_name("clocked_daemon.py")), venue_url,
            str(home), "alice", str(clock_file), stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr, env=dict(cli_env(), PYTHONPATH=os.pathsep.join(sys.path)))
    async with asyncio.timeout(30):
        while True:
            assert proc.returncode is None, (home / "daemon.stderr").read_text()
            with contextlib.suppress(NoDaemon, OSError), DaemonClient(
                    socket_path(home / "alice"), timeout_s=5) as client:
                if (await asyncio.to_thread(client.call, "daemon.status"))["pid"] == proc.pid:
                    return proc
            await asyncio.sleep(0.05)


async def test_a_detached_daemon_refunds_by_itself_and_alerts_a_payees_claim_deadline(
        venue, home):
    clock = Clock(1_800_000_000_000)
    clock_file = home / "clock"
    clock_file.write_text(str(clock.ms))
    venue.venue.config.clock = clock.seconds
    record = home / "alerts.jsonl"
    (home / "alice").mkdir(mode=0o700, exist_ok=True)
    (home / "alice" / "policy.toml").write_text(
        f"[alerts]\ncommand = {json.dumps([sys.executable, str(RECORDER), str(record)])}\n")
    proc = await _start(venue.url, home, clock_file)
    bob = await open_wallet(venue.url, home / "bob-home", "bob", clock=clock)
    client = DaemonClient(socket_path(home / "alice"), timeout_s=60)
    try:
        # Deal 1: the daemon pays and locks; nobody refunds it by hand.
        owed = await _call(client, "offer", amount="4000", asset="FLOP", rails="paper",
                           claim_in=3600, refund_gap=3600)
        await bob.sync()
        await bob.accept_offer(owed["deal"])
        async with asyncio.timeout(30):
            while (await _call(client, "status", deal=owed["deal"]))["status"] != "accepted":
                await asyncio.sleep(0.05)
        await _call(client, "lock", deal=owed["deal"], yes=True)
        # Deal 2: the daemon is the payee of a lock whose claim deadline will come near.
        paid = await bob.post_offer(draft(rails="paper", amount="5000", claim_in_s="9000"))
        await _call(client, "accept", offer=paid.deal_id)
        deal_b = bob.deal(paid.deal_id)
        await until(lambda: deal_b.state.status == "accepted", step=bob.sync, timeout_s=30)
        await deal_b.confirm(deal_b.request_lock("paper"))
        async with asyncio.timeout(30):
            while (await _call(client, "status", deal=paid.deal_id))["status"] != "locked":
                await asyncio.sleep(0.05)
        # Two hours pass with no screen attached.
        clock.advance(2 * HOUR_MS + 60_000)
        clock_file.write_text(str(clock.ms))
        deal_a = bob.deal(owed["deal"])
        await until(lambda: deal_a.state.status == "refunded", step=bob.sync, timeout_s=30)
        await until(lambda: {"auto", "deadline"} <= {line["kind"] for line in _lines(record)},
                    timeout_s=30)
        deadline = next(line for line in _lines(record) if line["kind"] == "deadline")
        assert deadline["deal"] == paid.deal_id
        assert "last safe moment to reveal" in deadline["text"]
        refunded = next(line for line in _lines(record) if line["kind"] == "auto")
        assert "refunded by itself" in refunded["text"]
        # A face attaching now is shown both, once, and the venue's budgets.
        remote = RemoteDoor.attach(home / "alice")
        assert remote is not None
        try:
            shown = await asyncio.to_thread(remote.take_alerts)
            assert {a.kind for a in shown} >= {"auto", "deadline"}
            assert await asyncio.to_thread(remote.take_alerts) == []
            budget = await asyncio.to_thread(remote.venue_budget)
            assert budget is not None and budget.budget.waiters == 2
            assert len(budget.waiting) <= 2 and budget.budget.source == "the venue's /config"
        finally:
            await remote.close()
        assert len([line for line in _lines(record) if line["kind"] == "deadline"]) == 1
    finally:
        client.close()
        await bob.close()
        proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            await proc.wait()


def _lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]
