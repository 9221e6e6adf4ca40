"""ERC-20 deals on evm-htlc, on one anvil for the module (each test deploys its own escrow and
tokens and uses fresh accounts): settled to the unit with the 6- and 18-decimal test tokens,
by permit and by approve, refunded after the timelock; the tokens and configurations a wallet
must refuse, each refused with its rule named and nothing deposited. Balances are read from the
token contract itself, never through the rail."""

from __future__ import annotations

import dataclasses

import pytest

from tclk_tui.rails.base import SettlementError
from tclk_tui.rails.evm import TokenAsset, address_of_key
from tclk_tui.rails.evm.escrow import claim_data
from tests.rails.evm.chain import ETHER, fresh_key, hash_pair, make_terms, point_pair, public_key

UNITS_6 = 1_234_567  # 1.234567 USDC
UNITS_18 = 5 * 10**17 + 3  # 0.500000000000000003 FLOP


def _kinds(rows) -> list[str]:
    return [row.kind for row in rows]


@pytest.mark.parametrize(("kind", "decimals", "permits", "amount"), [
    ("hash", 6, True, UNITS_6),
    ("point", 18, False, UNITS_18),
])
async def test_a_token_deal_settles_to_the_unit(shared_chain, kind, decimals, permits, amount):
    chain = shared_chain
    token = await chain.token("USDC" if decimals == 6 else "FLOP", decimals, permits=permits)
    payer = await chain.rail("payer", wei=ETHER)
    payee = await chain.rail("payee", wei=ETHER // 10)
    payee_key = public_key(payee.key)
    recipient = address_of_key(payee_key)
    await chain.mint(token, payer.address, 3 * amount)
    secret, statement = hash_pair() if kind == "hash" else point_pair()
    terms = make_terms(await chain.now_s(), lock=kind, statement=statement, amount=amount,
                       asset=token.symbol)

    ref = await payer.lock(terms, payee_key=payee_key)
    # A permit rides in the deposit itself; without one, an approve of exactly the amount first.
    assert _kinds(payer.txlog.all()) == (["deposit"] if permits else ["approve", "deposit"])
    assert await chain.token_balance(token, chain.escrow) == amount
    assert await chain.token_balance(token, payer.address) == 2 * amount
    assert await chain.allowance(token, payer.address, chain.escrow) == 0
    report = await payee.inspect_lock(terms, ref, payee_key=payee_key)
    assert report.ok, report
    facts = dict(report.facts)
    assert facts["token"] == f"{token.symbol} at {token.address}"
    shown = "1.234567 USDC" if decimals == 6 else "0.500000000000000003 FLOP"
    assert facts["amount locked"] == f"{shown} ({amount} units of {token.symbol}, " \
                                     f"{decimals} decimals)"

    await payee.claim(ref, secret)
    assert await chain.token_balance(token, recipient) == amount
    assert await chain.token_balance(token, chain.escrow) == 0
    assert await payer.lock_status(ref) == "claimed"
    assert await payer.claimed_with(ref) == secret.lower()


async def test_a_token_lock_refunds_after_the_timelock_and_a_late_claim_reverts(shared_chain):
    chain = shared_chain
    token = await chain.token("USDC", 6)
    payer = await chain.rail("payer", wei=ETHER)
    payee = await chain.rail("payee", wei=ETHER // 10)
    payee_key = public_key(payee.key)
    await chain.mint(token, payer.address, UNITS_6)
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=UNITS_6,
                       asset="USDC")
    ref = await payer.lock(terms, payee_key=payee_key)
    with pytest.raises(SettlementError) as early:
        await payer.refund(ref)
    assert early.value.code == "refund-too-early"
    await chain.advance(terms.refund_after_ms // 1000 - await chain.now_s())
    with pytest.raises(SettlementError) as late:
        await payee.claim(ref, secret)
    assert late.value.code == "claim-too-late"
    # The escrow itself refuses the late claim, past the wallet's own check.
    lock = bytes.fromhex(ref.rsplit(":", 1)[1][2:])
    reverted = await chain.send_as(payee.key, chain.escrow,
                                   claim_data(lock, bytes.fromhex(secret[2:])))
    assert reverted["status"] == "0x0"
    await payer.refund(ref)
    assert await chain.token_balance(token, payer.address) == UNITS_6
    assert await chain.token_balance(token, chain.escrow) == 0
    assert await payee.lock_status(ref) == "refunded"


async def test_a_lock_in_one_token_never_answers_for_another(shared_chain):
    chain = shared_chain
    token = await chain.token("USDC", 6)
    other = await chain.token("USDX", 6)
    payer = await chain.rail("payer", wei=ETHER)
    await chain.mint(token, payer.address, UNITS_6)
    payee = await chain.rail("payee", wei=0, config=dataclasses.replace(
        chain.config, assets={"USDC": dataclasses.replace(other, symbol="USDC")}))
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=UNITS_6, asset="USDC")
    ref = await payer.lock(terms, payee_key=public_key(payee.key))
    report = await payee.inspect_lock(terms, ref, payee_key=public_key(payee.key))
    assert not report.ok and report.rule == "wrong-token", report


async def _refused(rail, terms, payee_key) -> SettlementError:
    with pytest.raises(SettlementError) as refused:
        await rail.lock(terms, payee_key=payee_key)
    return refused.value


async def test_tokens_and_settings_a_wallet_must_refuse_are_refused_with_their_rule(
        shared_chain):
    chain = shared_chain
    fee = await chain.hostile_token("FeeToken", "FEE", 18)
    false = await chain.hostile_token("FalseToken", "NOPE", 6)
    real = await chain.token("USDC", 6)
    ghost = TokenAsset(symbol="GHOST", address="0x" + "42" * 20, decimals=6)
    payee_key = public_key(fresh_key())
    config = dataclasses.replace(chain.config, assets={
        **chain.config.assets, "GHOST": ghost, "USDX": dataclasses.replace(real, symbol="USDX",
                                                                           decimals=18)})
    payer = await chain.rail("payer", wei=ETHER, config=config)
    for token in (fee, false, real):
        await chain.mint(token, payer.address, 10**20)

    def terms(asset: str, amount: int = 1000):
        return make_terms(now, statement=hash_pair()[1], amount=amount, asset=asset)

    now = await chain.now_s()
    cases = {
        "token-fee-on-transfer": terms("FEE"),
        "token-returned-false": terms("NOPE"),
        "token-no-code": terms("GHOST"),
        "token-decimals-mismatch": terms("USDX"),
        "unknown-asset": terms("DAI"),
        "insufficient-token-balance": terms("USDC", 10**21),
    }
    for rule, case in cases.items():
        error = await _refused(payer, case, payee_key)
        assert error.code == rule, (rule, error)
        assert rule in str(error) or error.code == rule
    # Nothing was deposited: no deposit was ever journaled, and the escrow holds nothing.
    assert "deposit" not in _kinds(payer.txlog.all())
    for token in (fee, false, real):
        assert await chain.token_balance(token, chain.escrow) == 0
    # Ether is refused too when the account cannot pay the gas.
    broke = await chain.rail("broke", wei=0)
    await chain.mint(real, broke.address, 10**6)
    error = await _refused(broke, terms("USDC"), payee_key)
    assert error.code == "insufficient-funds", error


async def test_an_allowance_too_small_is_given_exactly_the_amount_first(shared_chain):
    chain = shared_chain
    token = await chain.token("FLOP", 18, permits=False)
    payer = await chain.rail("payer", wei=ETHER)
    await chain.mint(token, payer.address, 10 * UNITS_18)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=UNITS_18, asset="FLOP")
    quote = await payer.lock_quote(terms, payee_key=public_key(fresh_key()))
    facts = dict(quote.facts)
    assert quote.problems == (), quote
    assert facts["allowance"] == "0 FLOP (0 units of FLOP, 18 decimals)"
    assert "an approve transaction for exactly 0.500000000000000003 FLOP goes first" \
        in facts["paid by"]
    assert facts["token balance"].startswith("5.00000000000000003 FLOP")
    assert "ETH" in facts["estimated gas"] and facts["margin"].endswith("left after the lock "
                                                                        "and its gas")
    await payer.lock(terms, payee_key=public_key(fresh_key()))
    assert _kinds(payer.txlog.all()) == ["approve", "deposit"]
    assert await chain.allowance(token, payer.address, chain.escrow) == 0
    assert await chain.token_balance(token, chain.escrow) == UNITS_18


async def test_the_lock_quote_refuses_what_the_account_cannot_cover(shared_chain):
    chain = shared_chain
    token = await chain.token("USDC", 6)
    poor = await chain.rail("poor", wei=10**12)  # far too little ether for any gas
    await chain.mint(token, poor.address, 10)
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=UNITS_6, asset="USDC")
    quote = await poor.lock_quote(terms, payee_key=public_key(fresh_key()))
    text = " ".join(quote.problems)
    assert "insufficient-token-balance" in text and "insufficient-funds" in text
    facts = dict(quote.facts)
    assert facts["token balance"] == "0.00001 USDC (10 units of USDC, 6 decimals)"
    assert facts["margin"].startswith("short by ")
    ether_terms = make_terms(await chain.now_s(), statement=statement, amount=ETHER)
    quote = await poor.lock_quote(ether_terms, payee_key=public_key(fresh_key()))
    facts = dict(quote.facts)
    assert facts["amount plus gas"].startswith("1.000")
    assert any("insufficient" in p for p in quote.problems)
    assert poor.txlog.all() == []
