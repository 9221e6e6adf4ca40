"""A wallet SIGKILLed mid-transaction on the evm-htlc rail, then restarted: it finds its own
transaction on chain (or sends the very same bytes again) and never sends a second one."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
from pathlib import Path

import pytest

from tclk_tui.engine.crash import CRASH_ENV, CRASH_POINTS
from tclk_tui.rails.evm import TxLog
from tests.rails.evm.chain import hash_pair, make_terms, point_pair, public_key

ROOT = Path(__file__).resolve().parents[3]
SIGKILLED = -9


async def drive(chain, rail, action: str, arg: dict, crash_at: str | None = None):
    env = {k: v for k, v in os.environ.items() if k != CRASH_ENV}
    if crash_at is not None:
        assert crash_at in CRASH_POINTS
        env[CRASH_ENV] = crash_at
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.rails.evm.crash_driver", chain.anvil.url,
        str(chain.anvil.chain_id), chain.escrow, rail.key.hex(), str(rail.txlog.path), action,
        json.dumps(arg), cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    return proc.returncode, out.decode(), err.decode()


def rows(rail) -> list:
    log = TxLog(rail.txlog.path)
    try:
        return log.all()
    finally:
        log.close()


@pytest.mark.parametrize("at", ["evm-claim-sent", "evm-claim-signed"])
@pytest.mark.parametrize("kind", ["hash", "point"])
async def test_a_claim_killed_mid_flight_is_reconciled_and_never_sent_twice(chain, at, kind):
    payer = await chain.rail("payer")
    payee = await chain.rail("payee")
    secret, statement = hash_pair() if kind == "hash" else point_pair()
    terms = make_terms(await chain.now_s(), lock=kind, statement=statement, amount=424242)
    ref = await payer.lock(terms, payee_key=public_key(payee.key))
    nonce = await chain.node.nonce(payee.address)

    code, out, err = await drive(chain, payee, "claim", {"ref": ref, "secret": secret},
                                 crash_at=at)
    assert code == SIGKILLED, out + err
    (journaled,) = rows(payee)
    assert journaled.kind == "claim" and journaled.state == "signed"
    assert journaled.raw is None  # a claim's bytes carry the secret: never stored
    assert secret[2:] not in payee.txlog.path.read_bytes().hex()
    assert secret[2:].encode() not in payee.txlog.path.read_bytes()

    code, out, err = await drive(chain, payee, "claim", {"ref": ref, "secret": secret})
    assert code == 0, out + err
    (after,) = rows(payee)
    assert after.tx_hash == journaled.tx_hash and after.state == "mined"
    assert await chain.node.nonce(payee.address) == nonce + 1  # exactly one claim, ever
    assert await payer.lock_status(ref) == "claimed"
    assert await payer.claimed_with(ref) == secret.lower()


@pytest.mark.parametrize("at", ["evm-deposit-signed", "evm-deposit-sent"])
async def test_a_deposit_killed_mid_flight_is_found_or_resent_unchanged(chain, at):
    payer = await chain.rail("payer")
    payee = await chain.rail("payee")
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=10**15)
    arg = {"terms": dataclasses.asdict(terms), "payee_key": public_key(payee.key)}
    before = await payer.balance()
    code, out, err = await drive(chain, payer, "lock", arg, crash_at=at)
    assert code == SIGKILLED, out + err
    (journaled,) = rows(payer)
    code, out, err = await drive(chain, payer, "lock", arg)
    assert code == 0, out + err
    (after,) = rows(payer)
    assert after.tx_hash == journaled.tx_hash and after.state == "mined"
    assert await chain.node.nonce(payer.address) == 1
    assert await chain.node.balance(chain.escrow) == 10**15
    assert before - await payer.balance() >= 10**15
    assert await payee.verify_lock(terms, json.loads(out)["result"],
                                   payee_key=public_key(payee.key))


@pytest.mark.parametrize("at", ["evm-approve-sent", "evm-deposit-signed"])
async def test_a_token_lock_killed_mid_flight_approves_and_deposits_once(chain, at):
    token = await chain.token("FLOP", 18, permits=False)
    payer = await chain.rail("payer")
    payee = await chain.rail("payee", wei=0)
    await chain.mint(token, payer.address, 10**18)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=10**17, asset="FLOP")
    arg = {"terms": dataclasses.asdict(terms), "payee_key": public_key(payee.key),
           "assets": {"FLOP": {"address": token.address, "decimals": 18}}}
    code, out, err = await drive(chain, payer, "lock", arg, crash_at=at)
    assert code == SIGKILLED, out + err
    code, out, err = await drive(chain, payer, "lock", arg)
    assert code == 0, out + err
    journal = rows(payer)
    assert [row.kind for row in journal] == ["approve", "deposit"]
    assert [row.state for row in journal] == ["mined", "mined"]
    assert await chain.node.nonce(payer.address) == 2  # one approve, one deposit, ever
    assert await chain.token_balance(token, chain.escrow) == 10**17
    assert await chain.token_balance(token, payer.address) == 9 * 10**17
