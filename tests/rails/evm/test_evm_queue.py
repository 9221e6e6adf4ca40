"""One account's transaction queue on evm-htlc, on one anvil for the module: concurrent locks
get distinct nonces (from one rail, and from two rails on one seed, as two profiles would be),
a second sender on the account waits or is refused by name, a stuck transaction is replaced
with higher fees within the operator's cap (the journal keeps both hashes), a fee the cap
cannot pay waits and says how long it can, and time on chain is the next block's."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import itertools
import os
from decimal import Decimal

import pytest

from tclk_tui.rails.base import SettlementError
from tclk_tui.rails.evm import TxLog
from tclk_tui.rails.evm import tx as tx_module
from tests.rails.evm.chain import ETHER, fresh_key, hash_pair, make_terms, public_key

GWEI = 10**9


async def _terms(chain, **kw):
    _, statement = hash_pair()
    return make_terms(await chain.now_s(), statement=statement, **kw)


async def _poll(predicate, timeout_s: float = 20.0):
    async with asyncio.timeout(timeout_s):
        while not (found := predicate()):
            await asyncio.sleep(0.02)
    return found


@contextlib.asynccontextmanager
async def _automine_off(chain):
    await chain.node.call("evm_setAutomine", False)
    try:
        yield
    finally:
        await chain.node.call("evm_setAutomine", True)


async def test_ten_concurrent_locks_from_one_account_get_ten_distinct_nonces(shared_chain):
    chain = shared_chain
    payer = await chain.rail("payer", wei=10 * ETHER)
    payee_key = public_key(fresh_key())
    terms = [await _terms(chain, amount=10**15 + i) for i in range(10)]
    refs = await asyncio.gather(*(payer.lock(t, payee_key=payee_key) for t in terms))
    rows = payer.txlog.all()
    assert sorted(row.nonce for row in rows) == list(range(10))
    assert {row.state for row in rows} == {"mined"}
    assert await chain.node.nonce(payer.address, "latest") == 10
    for t, ref in zip(terms, refs, strict=True):
        assert await payer.verify_lock(t, ref, payee_key=payee_key)


async def test_two_profiles_on_one_seed_send_from_the_account_without_colliding(
        shared_chain, tmp_path):
    chain = shared_chain
    key = fresh_key()
    one = await chain.rail("one", key=key, wei=10 * ETHER, lock_dir=tmp_path)
    two = await chain.rail("two", key=key, wei=0, lock_dir=tmp_path)
    payee_key = public_key(fresh_key())
    terms = [await _terms(chain, amount=10**15 + i) for i in range(6)]
    await asyncio.gather(*(rail.lock(t, payee_key=payee_key)
                           for rail, t in zip([one, two] * 3, terms, strict=True)))
    nonces = sorted(row.nonce for rail in (one, two) for row in rail.txlog.all())
    assert nonces == list(range(6))
    assert await chain.node.nonce(one.address, "latest") == 6


async def test_a_second_sender_on_the_account_waits_then_is_refused_by_name(
        shared_chain, tmp_path, monkeypatch):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER, lock_dir=tmp_path)
    held = os.open(payer.sender._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)  # another process is sending from this account
    try:
        monkeypatch.setattr(tx_module, "ACCOUNT_WAIT_S", 0.3)
        with pytest.raises(SettlementError) as busy:
            await payer.lock(await _terms(chain), payee_key=public_key(fresh_key()))
        assert busy.value.code == "account-busy"
        assert "one sender per account" in str(busy.value)
        assert payer.txlog.all() == []
        monkeypatch.setattr(tx_module, "ACCOUNT_WAIT_S", 30.0)
        queued = asyncio.ensure_future(payer.lock(await _terms(chain),
                                                  payee_key=public_key(fresh_key())))
        await asyncio.sleep(0.2)
        assert not queued.done() and payer.txlog.all() == []  # waiting its turn, unsigned
    finally:
        os.close(held)
    await queued
    assert [row.state for row in payer.txlog.all()] == ["mined"]


async def test_a_stuck_transaction_is_replaced_with_higher_fees_within_the_cap(shared_chain):
    chain = shared_chain
    await chain.node.call("anvil_setNextBlockBaseFeePerGas", hex(GWEI))
    # Base fee 1 gwei and the node's tip 1 gwei: the first send offers 3 gwei, each
    # replacement an eighth more, until the cap of 4 gwei leaves no room for another.
    cap_fee, cap_tip = 4 * GWEI, 2 * GWEI
    config = dataclasses.replace(chain.config, max_fee_gwei=Decimal(4),
                                 max_priority_fee_gwei=Decimal(2))
    payer = await chain.rail("payer", wei=ETHER, config=config, replace_after_s=0.1)
    terms = await _terms(chain)
    async with _automine_off(chain):
        await chain.node.call("anvil_setNextBlockBaseFeePerGas", hex(GWEI))
        lock = asyncio.ensure_future(payer.lock(terms, payee_key=public_key(fresh_key())))
        rows = await _poll(lambda: (found := payer.txlog.all()) and len(found) >= 2 and found)
        await chain.node.call("evm_mine")
        ref = await lock
    rows = payer.txlog.all()
    assert len({row.nonce for row in rows}) == 1 and len(rows) in (2, 3)
    assert len({row.tx_hash for row in rows}) == len(rows)
    for older, newer in itertools.pairwise(rows):
        assert newer.replaces == older.id
        assert newer.fields["maxFeePerGas"] >= older.fields["maxFeePerGas"] * 1.1
        assert newer.fields["maxPriorityFeePerGas"] >= \
            older.fields["maxPriorityFeePerGas"] * 1.1
    for row in rows:  # never above the operator's cap
        assert row.fields["maxFeePerGas"] <= cap_fee
        assert row.fields["maxPriorityFeePerGas"] <= cap_tip
    assert sorted(row.state for row in rows) == ["mined", *["replaced"] * (len(rows) - 1)]
    mined = next(row for row in rows if row.state == "mined")
    receipt = await chain.node.call("eth_getTransactionReceipt", mined.tx_hash)
    assert receipt["status"] == "0x1"
    assert await payer.lock_status(ref) == "locked"
    # A restart finds the same outcome in its journal.
    again = TxLog(payer.txlog.path)
    try:
        assert [row.state for row in again.all()] == [row.state for row in rows]
    finally:
        again.close()


async def test_a_fee_the_cap_cannot_pay_waits_and_says_how_long_it_can(shared_chain):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER)
    payee = await chain.rail("payee", wei=ETHER // 10, config=dataclasses.replace(
        chain.config, max_fee_gwei=Decimal(2), max_priority_fee_gwei=Decimal(1)))
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=10**15)
    ref = await payer.lock(terms, payee_key=public_key(payee.key))
    capped = await chain.rail("capped", wei=ETHER, config=payee.config)
    await chain.node.call("anvil_setNextBlockBaseFeePerGas", hex(5 * GWEI))
    with pytest.raises(SettlementError) as lock_waits:
        await capped.lock(await _terms(chain), payee_key=public_key(payee.key))
    assert lock_waits.value.code == "fee-above-cap"
    assert "5 gwei" in str(lock_waits.value) and "max_fee_gwei of 2 gwei" in str(lock_waits.value)
    assert "the lock can wait about" in str(lock_waits.value)
    with pytest.raises(SettlementError) as claim_waits:
        await payee.claim(ref, secret)
    assert claim_waits.value.code == "fee-above-cap"
    assert "the claim can wait" in str(claim_waits.value)
    assert capped.txlog.all() == [] and payee.txlog.all() == []
    # The lock gate says the same before anything is asked.
    quote = await capped.lock_quote(await _terms(chain), payee_key=public_key(payee.key))
    assert any("fee-above-cap" in problem for problem in quote.problems)
    await chain.mine()  # the base fee falls back once a block is mined without the override
    await chain.node.call("anvil_setNextBlockBaseFeePerGas", hex(GWEI))
    await payee.claim(ref, secret)
    assert await payer.lock_status(ref) == "claimed"


async def test_a_refund_is_judged_by_the_next_block_on_a_chain_that_mines_on_demand(
        shared_chain):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER)
    payee = await chain.rail("payee", wei=ETHER // 10)
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=10**15)
    ref = await payer.lock(terms, payee_key=public_key(payee.key))
    timelock = terms.refund_after_ms // 1000 - 60
    # Time passes and nothing is mined: the last block is older than the timelock, the next
    # block (whenever anyone sends one) is not.
    await chain.node.call("evm_increaseTime", hex(timelock - await chain.now_s() + 5))
    assert await chain.now_s() < timelock
    with pytest.raises(SettlementError) as late:
        await payee.claim(ref, secret)
    assert late.value.code == "claim-too-late"
    await payer.refund(ref)
    assert await payer.lock_status(ref) == "refunded"
