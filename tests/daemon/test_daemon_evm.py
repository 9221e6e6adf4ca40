"""evm-htlc through a real daemon on a real anvil: a daemon SIGKILLed between sending a deposit
and reading its receipt sends nothing a second time once it is back, and ten locks asked at
once from one account get ten distinct nonces and ten locks the payee verifies."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import signal
from pathlib import Path

from tclk_tui.daemon.client import DaemonClient
from tclk_tui.engine.crash import CRASH_ENV
from tclk_tui.engine.evm import EVM_TXLOG_FILE, save_evm_settings
from tclk_tui.engine.wallet import wall_clock_ms
from tclk_tui.rails.evm import TxLog
from tests.daemon.conftest import DaemonProcess, cli_argv, cli_env
from tests.engine.helpers import draft, open_wallet, until
from tests.rails.evm.chain import ETHER

OFFER = {"role": "payee", "amount": str(10**16), "asset": "ETH", "rails": "evm-htlc",
         "claim_in_s": "900", "refund_gap_s": "900"}
# Alice's daemon is the only wallet on this host that creates rooms (bob, the payee, offers on
# the board): it takes the address's whole new-room budget, enough for the eleven deals.
ONE_ROOM_MAKER = {"TCLK_VENUE_SHARE": "1"}


def _call(daemon: DaemonProcess, method: str, params: dict | None = None):
    with DaemonClient(daemon.socket, timeout_s=60) as client:
        return client.call(method, params or {})


def _journal(home: Path) -> list:
    log = TxLog(home / "alice" / EVM_TXLOG_FILE)
    try:
        return log.all()
    finally:
        log.close()


async def _accepted_deals(daemon, bob, n: int) -> list[str]:
    """Bob offers `n` payee deals; alice's daemon accepts them all (it pays, bob reveals)."""
    deals = [(await bob.post_offer(draft(**OFFER))).deal_id for _ in range(n)]

    async def on_board() -> bool:
        answer = await asyncio.to_thread(_call, daemon, "board", {})
        return set(deals) <= {offer["offer"] for offer in answer["offers"]}

    async with asyncio.timeout(30):
        while not await on_board():
            await asyncio.sleep(0.05)
    answers = await asyncio.gather(*(asyncio.to_thread(
        _call, daemon, "accept", {"offer": deal}) for deal in deals))
    assert all(answer["status"] == "accepted" for answer in answers), answers
    return deals


async def _start_crashing(venue, home: Path, crash_at: str) -> asyncio.subprocess.Process:
    env = {**cli_env(), **ONE_ROOM_MAKER, CRASH_ENV: crash_at}
    return await asyncio.create_subprocess_exec(
        *cli_argv(venue.url, home, "alice", "daemon"), stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL, env=env)


async def test_a_kill_mid_send_then_ten_locks_at_once_through_the_daemon(
        venue, home, chain, tmp_path):
    save_evm_settings(home / "alice", dataclasses.replace(chain.config))
    save_evm_settings(tmp_path / "bob" / "bob", dataclasses.replace(chain.config))
    bob = await open_wallet(venue.url, tmp_path / "bob", "bob", clock=wall_clock_ms)
    daemon = DaemonProcess(venue.url, home, "alice", env=ONE_ROOM_MAKER)
    # The daemon dies at the first deposit, after sending it and before reading its receipt.
    daemon.proc = await _start_crashing(venue, home, "evm-deposit-sent")
    try:
        await daemon.wait_ready()
        identity = await asyncio.to_thread(_call, daemon, "identity")
        address = identity["evm"]["address"]
        await chain.fund(address, 10 * ETHER)
        deals = await _accepted_deals(daemon, bob, 11)
        first, ten = deals[0], deals[1:]
        with contextlib.suppress(Exception):  # the connection dies with the daemon
            await asyncio.to_thread(_call, daemon, "lock", {"deal": first, "yes": True})
        async with asyncio.timeout(30):
            assert await daemon.proc.wait() == -signal.SIGKILL
        (sent,) = _journal(home)
        assert sent.kind == "deposit" and sent.state in ("signed", "sent")

        await daemon.start()
        answer = await asyncio.to_thread(_call, daemon, "lock", {"deal": first, "yes": True})
        assert answer["performed"], answer
        assert await chain.node.nonce(address, "latest") == 1  # the deposit went out once
        (found,) = _journal(home)
        assert found.tx_hash == sent.tx_hash and found.state == "mined"

        # Ten locks asked at once: ten more nonces, ten verified locks.
        answers = await asyncio.gather(*(asyncio.to_thread(
            _call, daemon, "lock", {"deal": deal, "yes": True}) for deal in ten))
        assert all(answer["performed"] for answer in answers), answers
        rows = _journal(home)
        assert sorted(row.nonce for row in rows) == list(range(11))
        assert {row.kind for row in rows} == {"deposit"}
        assert await chain.node.nonce(address, "latest") == 11
        await until(lambda: all(bob.deal(d).state.status == "locked" for d in deals),
                    timeout_s=30, step=bob.sync)
        for deal in deals:
            check = await bob.deal(deal).check_lock()
            assert check is not None and check.verified, check
    finally:
        await daemon.stop()
        await bob.close()
