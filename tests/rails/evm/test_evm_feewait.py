"""A transaction the fee cap cannot pay waits in the account's queue, on one anvil for the
module: it is journaled before its caller hears that it waits (why, in gwei, and how long it
can), nothing is signed meanwhile, it is sent when a new block brings the fee under the cap, in
the order the transactions began to wait with no gap in the nonces, a claim whose deadline
passes is dropped unsent (its secret never leaves the wallet), a refund waits indefinitely, the
operator can cancel a waiting one, and a SIGKILL while waiting resumes the wait with one send."""

from __future__ import annotations

import asyncio
import dataclasses
from decimal import Decimal

import pytest
from eth_abi import encode
from eth_utils import keccak

from tclk_tui.rails.base import FeeWaiting, SettlementError
from tclk_tui.rails.evm import EvmHtlcRail, TxLog
from tclk_tui.rails.evm import feewait as feewait_module
from tests.rails.evm.chain import ETHER, fresh_key, hash_pair, make_terms, public_key
from tests.rails.evm.test_evm_crash import SIGKILLED, drive, rows

GWEI = 10**9


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    monkeypatch.setattr(feewait_module, "WAIT_POLL_S", 0.05)


@pytest.fixture
async def fee(shared_chain):
    """Set the network's base fee (the next block's), and leave it low for the next test."""
    async def at(gwei: float, *, mine: bool = False) -> None:
        await shared_chain.node.call("anvil_setNextBlockBaseFeePerGas", hex(int(gwei * GWEI)))
        if mine:
            await shared_chain.node.call("evm_mine")

    yield at
    await at(1, mine=True)


def capped(chain, fee_gwei: int = 2, tip_gwei: int = 1):
    return dataclasses.replace(chain.config, max_fee_gwei=Decimal(fee_gwei),
                               max_priority_fee_gwei=Decimal(tip_gwei))


async def _terms(chain, **kw):
    _, statement = hash_pair()
    return make_terms(await chain.now_s(), statement=statement, **kw)


async def waiting(call) -> FeeWaiting:
    with pytest.raises(FeeWaiting) as info:
        await call
    assert info.value.code == "fee-wait"
    return info.value


async def test_a_lock_over_the_cap_waits_journaled_and_goes_when_a_block_brings_the_fee_down(
        shared_chain, fee):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER, config=capped(chain))
    payee_key = public_key(fresh_key())
    terms = await _terms(chain, amount=10**15)
    await fee(5)
    wait = await waiting(payer.lock(terms, payee_key=payee_key))
    told = wait.wait
    assert (told.action, told.contract, told.held) == ("lock", terms.contract, True)
    assert "the network's base fee is 5 gwei" in told.reason
    assert "above this profile's max_fee_gwei of 2 gwei" in told.reason
    assert told.until_ms == terms.claim_by_ms and "until claimByMs" in told.horizon
    assert "dropped unsent" in told.horizon
    # Journaled before the caller heard; nothing signed, no nonce taken.
    assert [(w.state, w.action, w.contract) for w in payer.txlog.all_waits()] == [
        ("waiting", "lock", terms.contract)]
    assert payer.txlog.all() == [] and await chain.node.nonce(payer.address, "pending") == 0
    assert payer.fee_waits() == (told,)
    # Asked again while it waits: the same operation, not a second one.
    again = await waiting(payer.lock(terms, payee_key=payee_key))
    assert again.wait == told and len(payer.txlog.all_waits()) == 1
    await fee(5, mine=True)  # a new block, still too dear: it waits on
    await asyncio.sleep(0.2)
    assert payer.txlog.all() == []
    await fee(1, mine=True)
    ref = await asyncio.wait_for(wait.done, 20)
    assert await payer.verify_lock(terms, ref, payee_key=payee_key)
    assert [w.state for w in payer.txlog.all_waits()] == ["sent"]
    assert [(r.kind, r.state) for r in payer.txlog.all()] == [("deposit", "mined")]
    assert payer.fee_waits() == ()


async def test_a_waiting_claim_is_dropped_unsent_once_its_deadline_passes(shared_chain, fee):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER)
    payee = await chain.rail("payee", wei=ETHER // 10, config=capped(chain))
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=10**15, gap_s=130)
    ref = await payer.lock(terms, payee_key=public_key(payee.key))
    timelock = terms.refund_after_ms // 1000 - 60
    await fee(5)
    wait = await waiting(payee.claim(ref, secret))
    assert wait.wait.action == "claim" and wait.wait.until_ms == (timelock - 60) * 1000
    assert "the escrow's timelock less 60 s" in wait.wait.horizon
    assert "publish the secret for nothing" in wait.wait.horizon
    # Time passes the claim's deadline while the fee stays above the cap.
    await chain.node.call("evm_increaseTime", hex(timelock - 60 - await chain.now_s() + 1))
    await fee(5, mine=True)
    with pytest.raises(SettlementError) as dropped:
        await asyncio.wait_for(wait.done, 20)
    assert dropped.value.code == "fee-wait-expired"
    assert "dropped, unsent" in str(dropped.value)
    assert [w.state for w in payee.txlog.all_waits()] == ["expired"]
    assert payee.txlog.all() == []  # never signed: the secret never left the wallet
    assert await chain.node.nonce(payee.address, "pending") == 0
    assert await payer.lock_status(ref) == "locked"
    assert secret[2:].encode() not in payee.txlog.path.read_bytes()


async def test_a_refund_can_wait_indefinitely_and_the_operator_can_cancel_it(shared_chain, fee):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER, config=capped(chain))
    terms = await _terms(chain, amount=10**15)
    ref = await payer.lock(terms, payee_key=public_key(fresh_key()))
    await chain.advance(terms.refund_after_ms // 1000 - await chain.now_s())
    await fee(5)
    wait = await waiting(payer.refund(ref))
    assert wait.wait.action == "refund" and wait.wait.until_ms is None
    assert "can wait indefinitely, but the funds stay locked" in wait.wait.horizon
    assert payer.cancel_fee_wait(terms.contract, "lock") is False  # nothing of that waits
    assert payer.cancel_fee_wait(terms.contract, "refund") is True
    with pytest.raises(SettlementError) as cancelled:
        await asyncio.wait_for(wait.done, 20)
    assert cancelled.value.code == "fee-wait-cancelled"
    assert payer.cancel_fee_wait(terms.contract, "refund") is False  # once
    assert [w.state for w in payer.txlog.all_waits()] == ["cancelled"]
    assert [r.kind for r in payer.txlog.all()] == ["deposit"]  # no refund was signed
    await fee(1, mine=True)
    await payer.refund(ref)  # asked again once the fee fits: sent at once
    assert await payer.lock_status(ref) == "refunded"


async def test_waiting_transactions_go_in_the_order_they_began_to_wait_with_dense_nonces(
        shared_chain, fee):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER, config=capped(chain))
    payee_key = public_key(fresh_key())
    terms = [await _terms(chain, amount=10**15 + i) for i in range(3)]
    await fee(5)
    waits = []
    for t in terms:
        waits.append(await waiting(payer.lock(t, payee_key=payee_key)))
    assert "the network's base fee is 5 gwei" in waits[0].wait.reason
    assert waits[1].wait.reason.startswith("1 earlier transaction(s) of this account wait")
    assert waits[2].wait.reason.startswith("2 earlier transaction(s)")
    assert [w.contract for w in payer.fee_waits()] == [t.contract for t in terms]
    assert payer.cancel_fee_wait(terms[1].contract, "lock")  # the middle one: no gap left
    with pytest.raises(SettlementError):
        await asyncio.wait_for(waits[1].done, 20)
    await fee(1, mine=True)
    refs = [await asyncio.wait_for(waits[i].done, 20) for i in (0, 2)]
    journal = payer.txlog.all()
    assert [(r.lock_id, r.nonce) for r in journal] == [
        (refs[0].rsplit(":", 1)[1], 0), (refs[1].rsplit(":", 1)[1], 1)]
    assert await chain.node.nonce(payer.address, "latest") == 2
    for t, ref in zip((terms[0], terms[2]), refs, strict=True):
        assert await payer.verify_lock(t, ref, payee_key=payee_key)


async def test_closed_while_waiting_the_wait_is_taken_up_again_never_twice(shared_chain, fee):
    chain = shared_chain
    key = fresh_key()
    first = await chain.rail("payer", key=key, wei=ETHER, config=capped(chain))
    payee_key = public_key(fresh_key())
    terms = await _terms(chain, amount=10**15)
    await fee(5)
    wait = await waiting(first.lock(terms, payee_key=payee_key))
    await first.aclose()  # the app closes mid-wait: the journal keeps it
    chain._rails.remove(first)
    second = EvmHtlcRail(capped(chain), key, TxLog(first.txlog.path))
    chain._rails.append(second)
    (journaled,) = second.fee_waits()
    assert (journaled.contract, journaled.held) == (terms.contract, False)
    assert journaled.since_ms == wait.wait.since_ms
    notes = await second.reconcile()
    assert any("still waits for the fee (journaled)" in note for note in notes)
    again = await waiting(second.lock(terms, payee_key=payee_key))
    assert again.wait.since_ms == wait.wait.since_ms  # the same wait, taken up again
    assert len(second.txlog.all_waits()) == 1
    await fee(1, mine=True)
    ref = await asyncio.wait_for(again.done, 20)
    assert await second.verify_lock(terms, ref, payee_key=payee_key)
    assert await chain.node.nonce(second.address, "latest") == 1


async def test_the_lock_gate_says_the_lock_would_wait_instead_of_refusing_it(shared_chain, fee):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER, config=capped(chain))
    await fee(5)
    quote = await payer.lock_quote(await _terms(chain), payee_key=public_key(fresh_key()))
    assert quote.problems == ()
    facts = dict(quote.facts)
    assert "the network's base fee is 5 gwei" in facts["network fee"]
    assert "the lock waits in the account's queue" in facts["network fee"]


async def test_a_claim_killed_while_it_waits_resumes_the_wait_and_claims_once(shared_chain, fee):
    chain = shared_chain
    payer = await chain.rail("payer", wei=ETHER)
    payee = await chain.rail("payee", wei=ETHER // 10)
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=10**15)
    ref = await payer.lock(terms, payee_key=public_key(payee.key))
    arg = {"ref": ref, "secret": secret, "max_fee_gwei": 2, "max_priority_fee_gwei": 1}
    await fee(5)
    code, out, err = await drive(chain, payee, "claim", arg, crash_at="evm-claim-waits")
    assert code == SIGKILLED, out + err
    log = TxLog(payee.txlog.path)
    try:
        assert [(w.action, w.state) for w in log.all_waits()] == [("claim", "waiting")]
    finally:
        log.close()
    assert rows(payee) == []
    assert secret[2:].encode() not in payee.txlog.path.read_bytes()
    await fee(1, mine=True)
    code, out, err = await drive(chain, payee, "claim", arg)
    assert code == 0, out + err
    assert [(r.kind, r.state) for r in rows(payee)] == [("claim", "mined")]
    log = TxLog(payee.txlog.path)
    try:
        assert [w.state for w in log.all_waits()] == ["sent"]  # the same wait, ended by its send
    finally:
        log.close()
    assert await chain.node.nonce(payee.address, "latest") == 1
    assert await payer.lock_status(ref) == "claimed"


async def test_a_wait_whose_lock_is_refused_once_the_fee_fits_ends_and_is_never_resumed(
        shared_chain, fee):
    chain = shared_chain
    token = await chain.token("USDC", 6)
    payer = await chain.rail("payer", wei=ETHER, config=capped(chain))
    await chain.mint(token, payer.address, 1000)
    terms = await _terms(chain, amount=1000, asset="USDC")
    await fee(5)
    wait = await waiting(payer.lock(terms, payee_key=public_key(fresh_key())))
    # While it waits, the account's tokens go elsewhere (another wallet on the account).
    sweep = keccak(text="transfer(address,uint256)")[:4] + encode(
        ["address", "uint256"], [chain.escrow, 1000])
    await chain.send_as(payer.key, token.address or "", sweep)
    await fee(1, mine=True)
    with pytest.raises(SettlementError) as refused:
        await asyncio.wait_for(wait.done, 20)
    assert refused.value.code == "insufficient-token-balance"
    assert [w.state for w in payer.txlog.all_waits()] == ["dropped"]
    assert payer.fee_waits() == () and payer.txlog.all() == []
