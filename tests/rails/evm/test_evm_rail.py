"""EvmHtlcRail between two wallets on a real anvil: deals to the wei, refunds, the secret read
back from the chain, and every bad input refused with its rule named and nothing sent."""

from __future__ import annotations

import dataclasses

import pytest

from tclk_tui.rails.base import SettlementError, SettlementRail
from tclk_tui.rails.evm import (
    TIMELOCK_MARGIN_S,
    EvmConfig,
    EvmHtlcRail,
    address_of_key,
    format_ref,
    parse_ref,
)
from tests.rails.evm.chain import ETHER, hash_pair, make_terms, point_pair, public_key


async def _pair(chain):
    payer = await chain.rail("payer")
    payee = await chain.rail("payee")
    return payer, payee, public_key(payee.key)


async def _sent(rail) -> int:
    return len(rail.txlog.all())


async def test_the_rail_is_a_settlement_rail_that_moves_value(chain):
    rail = await chain.rail("any", wei=0)
    assert isinstance(rail, SettlementRail)
    assert rail.moves_value is True and rail.id == "evm-htlc"
    assert "MOVES REAL VALUE" in rail.describe()


def test_the_ref_format_round_trips_and_is_strict():
    escrow = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
    ref = format_ref(31337, escrow.lower(), b"\xab" * 32)
    assert ref == f"eip155:31337:{escrow}:0x" + "ab" * 32
    parsed = parse_ref(ref)
    assert parsed is not None and parsed.chain_id == 31337 and parsed.escrow == escrow
    for bad in (ref.replace(escrow, escrow.lower()), ref + "00", ref.replace("eip155", "evm"),
                ref.replace(":31337:", ":031337:"), ref.upper(), None, 5, ""):
        assert parse_ref(bad) is None


@pytest.mark.parametrize("kind", ["hash", "point"])
async def test_a_deal_moves_exact_wei_and_the_payer_learns_the_secret_from_the_chain(chain,
                                                                                      kind):
    payer, payee, payee_key = await _pair(chain)
    secret, statement = hash_pair() if kind == "hash" else point_pair()
    terms = make_terms(await chain.now_s(), lock=kind, statement=statement, amount=123456789)
    recipient = address_of_key(payee_key)
    payer_before, payee_before = await payer.balance(), await chain.node.balance(recipient)

    ref = await payer.lock(terms, payee_key=payee_key)
    report = await payee.inspect_lock(terms, ref, payee_key=payee_key)
    assert report.ok, report
    facts = dict(report.facts)
    assert facts["chain id"] == "31337" and facts["recipient"] == recipient
    assert facts["amount locked"] == "0.000000000123456789 ETH (123456789 wei)"
    assert facts["timelock"] == str(terms.refund_after_ms // 1000 - TIMELOCK_MARGIN_S)
    assert await payee.lock_status(ref) == "locked"

    await payee.claim(ref, secret)
    assert await payer.lock_status(ref) == "claimed"
    assert await payer.claimed_with(ref) == secret.lower()  # from the Claimed event

    deposit = await payer.sender.receipt(payer.txlog.all()[0].tx_hash)
    claim = await payee.sender.receipt(payee.txlog.all()[0].tx_hash)
    assert await payer.balance() == payer_before - 123456789 - deposit.fee_wei
    if recipient == payee.address:
        assert await payee.balance() == payee_before + 123456789 - claim.fee_wei
    assert await chain.node.balance(chain.escrow) == 0
    # A second claim is not sent: the chain already says claimed with this secret.
    await payee.claim(ref, secret)
    assert await _sent(payee) == 1
    assert not await payee.verify_lock(terms, ref, payee_key=payee_key)
    assert (await payee.inspect_lock(terms, ref, payee_key=payee_key)).rule == "not-locked"
    with pytest.raises(SettlementError) as settled:
        await payer.lock(terms, payee_key=payee_key)  # the same lock again, already claimed
    assert settled.value.code == "already-settled"
    assert await _sent(payer) == 1


async def test_a_payee_paid_to_a_key_of_its_own_account_receives_to_the_wei(chain):
    payer = await chain.rail("payer")
    payee = await chain.rail("payee", wei=ETHER)
    payee_key = public_key(payee.key)  # the payee's account key is its paymentKey
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=5 * 10**17)
    ref = await payer.lock(terms, payee_key=payee_key)
    before = await payee.balance()
    await payee.claim(ref, secret)
    claim = await payee.sender.receipt(payee.txlog.all()[0].tx_hash)
    assert await payee.balance() == before + 5 * 10**17 - claim.fee_wei


async def test_refund_after_the_timelock_and_a_late_claim_is_refused(chain):
    payer, payee, payee_key = await _pair(chain)
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=ETHER)
    ref = await payer.lock(terms, payee_key=payee_key)
    with pytest.raises(SettlementError) as early:
        await payer.refund(ref)
    assert early.value.code == "refund-too-early"
    await chain.advance(terms.refund_after_ms // 1000 - await chain.now_s())
    with pytest.raises(SettlementError) as late:
        await payee.claim(ref, secret)
    assert late.value.code == "claim-too-late"
    assert await _sent(payee) == 0
    before = await payer.balance()
    await payer.refund(ref)
    refund = await payer.sender.receipt(payer.txlog.all()[-1].tx_hash)
    assert await payer.balance() == before + ETHER - refund.fee_wei
    assert await payee.lock_status(ref) == "refunded"
    with pytest.raises(SettlementError) as after:
        await payee.claim(ref, secret)
    assert after.value.code == "not-locked"
    await payer.refund(ref)  # already refunded: nothing sent again
    assert await _sent(payer) == 2


async def test_locking_twice_sends_one_deposit(chain):
    payer, _payee, payee_key = await _pair(chain)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    first = await payer.lock(terms, payee_key=payee_key)
    assert await payer.lock(terms, payee_key=payee_key) == first
    assert await _sent(payer) == 1


async def test_confirmations_are_counted_before_a_lock_verifies(chain):
    payer, _payee, payee_key = await _pair(chain)
    strict = await chain.rail("strict", config=dataclasses.replace(chain.config,
                                                                    confirmations=3))
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    ref = await payer.lock(terms, payee_key=payee_key)
    report = await strict.inspect_lock(terms, ref, payee_key=payee_key)
    assert (report.ok, report.rule, report.confirmations) == (False, "unconfirmed", 1)
    await chain.mine(2)
    assert await strict.verify_lock(terms, ref, payee_key=payee_key)


async def test_a_reorg_that_removes_the_lock_takes_the_verification_back(chain):
    payer, payee, payee_key = await _pair(chain)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    snapshot = await chain.node.call("evm_snapshot")
    ref = await payer.lock(terms, payee_key=payee_key)
    assert await payee.verify_lock(terms, ref, payee_key=payee_key)
    assert await chain.node.call("evm_revert", snapshot) is True
    await chain.mine(3)  # the chain moves on without the deposit
    report = await payee.inspect_lock(terms, ref, payee_key=payee_key)
    assert (report.ok, report.rule) == (False, "no-lock")


async def test_an_anvil_reorg_of_the_deposit_block_takes_the_verification_back(chain):
    payer, payee, payee_key = await _pair(chain)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    ref = await payer.lock(terms, payee_key=payee_key)
    assert await payee.verify_lock(terms, ref, payee_key=payee_key)
    await chain.node.call("anvil_reorg", 1, [])  # replace the last block with an empty one
    assert not await payee.verify_lock(terms, ref, payee_key=payee_key)


# -- bad input: refused with the rule named, nothing sent ------------------------------------


async def test_terms_the_payer_rail_refuses_before_sending_anything(chain):
    payer, _payee, payee_key = await _pair(chain)
    _, statement = hash_pair()
    now = await chain.now_s()
    cases = {
        "unknown-asset": dict(asset="FLOP"),
        "bad-amount": dict(amount=0),
        "window-too-narrow": dict(gap_s=2 * TIMELOCK_MARGIN_S - 1),
    }
    for rule, changes in cases.items():
        terms = make_terms(now, statement=statement, **changes)
        with pytest.raises(SettlementError) as refused:
            await payer.lock(terms, payee_key=payee_key)
        assert refused.value.code == rule, rule
    terms = make_terms(now, statement=statement)
    for key, rule in ((None, "no-payment-key"), ("0x02" + "00" * 32, "bad-payment-key")):
        with pytest.raises(SettlementError) as refused:
            await payer.lock(terms, payee_key=key)
        assert refused.value.code == rule
    assert await _sent(payer) == 0


async def test_a_lock_the_balance_cannot_cover_is_refused_before_it_is_sent(chain):
    payer = await chain.rail("poor", wei=ETHER // 10)
    payee = await chain.rail("payee")
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=ETHER // 10)
    nonce = await chain.node.nonce(payer.address)
    with pytest.raises(SettlementError) as refused:
        await payer.lock(terms, payee_key=public_key(payee.key))
    assert refused.value.code == "insufficient-funds"
    assert "wei" in str(refused.value)
    assert await _sent(payer) == 0 and await chain.node.nonce(payer.address) == nonce
    assert await payer.balance() == ETHER // 10


async def test_a_wrong_chain_id_is_refused(chain):
    wrong = await chain.rail("wrong", config=dataclasses.replace(chain.config, chain_id=1))
    payee = await chain.rail("payee")
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    with pytest.raises(SettlementError) as refused:
        await wrong.lock(terms, payee_key=public_key(payee.key))
    assert refused.value.code == "wrong-chain"
    assert await _sent(wrong) == 0


async def test_an_escrow_address_without_the_escrows_code_is_refused(chain):
    bogus = await chain.rail("bogus", config=dataclasses.replace(
        chain.config, escrow="0x" + "12" * 20))
    payee = await chain.rail("payee")
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    with pytest.raises(SettlementError) as refused:
        await bogus.lock(terms, payee_key=public_key(payee.key))
    assert refused.value.code == "not-the-escrow"
    assert await _sent(bogus) == 0


async def test_a_lock_that_differs_from_the_terms_is_named_by_the_payee(chain):
    payer, payee, payee_key = await _pair(chain)
    _, statement = hash_pair()
    _, other_statement = hash_pair()
    other_payee = await chain.rail("other", wei=0)
    terms = make_terms(await chain.now_s(), statement=statement, amount=1000)
    locked = {
        "wrong-amount": (dataclasses.replace(terms, amount="999"), payee_key),
        "wrong-recipient": (terms, public_key(other_payee.key)),
        "wrong-statement": (dataclasses.replace(terms, statement=other_statement), payee_key),
        "wrong-timelock": (dataclasses.replace(terms,
                                               refund_after_ms=terms.refund_after_ms + 5000),
                           payee_key),
    }
    for rule, (lock_terms, key) in locked.items():
        ref = await payer.lock(lock_terms, payee_key=key)
        report = await payee.inspect_lock(terms, ref, payee_key=payee_key)
        assert (report.ok, report.rule) == (False, rule), (rule, report)
    point_secret, point_statement = point_pair()
    del point_secret
    point_terms = dataclasses.replace(terms, lock="point", statement=point_statement)
    ref = await payer.lock(point_terms, payee_key=payee_key)
    report = await payee.inspect_lock(dataclasses.replace(point_terms, lock="hash",
                                                          statement=statement), ref,
                                      payee_key=payee_key)
    assert report.rule in ("lock-id", "wrong-kind") and not report.ok


async def test_a_ref_on_another_escrow_or_chain_is_refused(chain):
    payer, payee, payee_key = await _pair(chain)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    ref = await payer.lock(terms, payee_key=payee_key)
    parsed = parse_ref(ref)
    elsewhere = format_ref(parsed.chain_id, "0x" + "34" * 20, parsed.lock_bytes)
    report = await payee.inspect_lock(terms, elsewhere, payee_key=payee_key)
    assert (report.ok, report.rule) == (False, "other-escrow")
    other_chain = format_ref(5, parsed.escrow, parsed.lock_bytes)
    assert (await payee.inspect_lock(terms, other_chain, payee_key=payee_key)).rule == \
        "wrong-chain"
    for bad_ref in (elsewhere, other_chain, "0xdead"):
        with pytest.raises(SettlementError):
            await payee.claim(bad_ref, "0x" + "00" * 32)
    assert await _sent(payee) == 0


async def test_a_wrong_secret_is_refused_before_a_claim_is_sent(chain):
    payer, payee, payee_key = await _pair(chain)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    ref = await payer.lock(terms, payee_key=payee_key)
    with pytest.raises(SettlementError) as refused:
        await payee.claim(ref, "0x" + "ab" * 32)
    assert refused.value.code == "bad-secret"
    assert await _sent(payee) == 0


async def test_an_unreachable_node_is_an_error_not_a_no(tmp_path):
    from tclk_tui.rails.evm import TxLog
    from tclk_tui.rails.evm.anvil import free_port
    config = EvmConfig(url=f"http://127.0.0.1:{free_port()}", chain_id=31337,
                       escrow="0x" + "12" * 20)
    rail = EvmHtlcRail(config, b"\x01" * 32, TxLog(tmp_path / "tx.sqlite3"))
    try:
        _, statement = hash_pair()
        terms = make_terms(1_900_000_000, statement=statement)
        with pytest.raises(SettlementError) as refused:
            await rail.lock(terms, payee_key=public_key(b"\x02" * 32))
        assert refused.value.code == "node-unreachable"
        assert rail.txlog.all() == []
    finally:
        await rail.aclose()


def test_a_missing_anvil_binary_is_a_sentence_not_a_traceback(monkeypatch, tmp_path):
    from tclk_tui.rails.evm.anvil import ANVIL_ENV, AnvilNotFound, find_anvil

    monkeypatch.setenv(ANVIL_ENV, str(tmp_path / "no-such-anvil"))
    with pytest.raises(AnvilNotFound, match="not an executable file"):
        find_anvil()
