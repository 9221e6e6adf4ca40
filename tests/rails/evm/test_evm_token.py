"""ERC-20 deals on evm-htlc, on one anvil for the module (each test deploys its own escrow and
tokens and uses fresh accounts): settled to the unit with the 6- and 18-decimal test tokens,
by permit and by approve, refunded after the timelock; the tokens and configurations a wallet
must refuse, each refused with its rule named and nothing deposited (a token the escrow would
refuse, before any approve is sent: the approve and the deposit are simulated together first,
and a node that cannot simulate is said). Balances are read from the token contract itself,
never through the rail."""

from __future__ import annotations

import dataclasses

import httpx
import pytest

from tclk_tui.rails.base import SettlementError
from tclk_tui.rails.evm import EvmHtlcRail, NodeClient, TokenAsset, TxLog, address_of_key
from tclk_tui.rails.evm.escrow import claim_data
from tclk_tui.rails.evm.funding import NOT_SIMULATED, SIMULATED
from tclk_tui.rails.evm.token import approve_data
from tests.rails.evm.chain import ETHER, fresh_key, hash_pair, make_terms, point_pair, public_key
from tests.rails.evm.hostile import hostile_node

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
    # Nothing was sent: not even an approve (the two were simulated first), and the escrow
    # holds nothing.
    assert payer.txlog.all() == []
    assert await chain.node.nonce(payer.address, "pending") == 0
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
    assert facts["simulated"] == SIMULATED
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


async def test_a_token_the_escrow_would_refuse_is_refused_as_the_lock_gate_opens(shared_chain):
    chain = shared_chain
    fee = await chain.hostile_token("FeeToken", "FEE", 18)
    false = await chain.hostile_token("FalseToken", "NOPE", 6)
    payer = await chain.rail("payer", wei=ETHER)
    for token, rule in ((fee, "token-fee-on-transfer"), (false, "token-returned-false")):
        await chain.mint(token, payer.address, 10**20)
        terms = make_terms(await chain.now_s(), statement=hash_pair()[1], amount=1000,
                           asset=token.symbol)
        quote = await payer.lock_quote(terms, payee_key=public_key(fresh_key()))
        assert any(rule in problem for problem in quote.problems), (rule, quote.problems)
        assert await chain.allowance(token, payer.address, chain.escrow) == 0
    assert payer.txlog.all() == []


async def test_a_node_that_cannot_simulate_is_said_and_the_escrow_refuses_last(shared_chain):
    chain = shared_chain
    fee = await chain.hostile_token("FeeToken", "FEE", 18)

    def without_override(body: dict) -> object:  # a node that takes no state override
        if body["method"] != "eth_call" or len(body["params"]) < 3:
            return NotImplemented
        reply = httpx.post(chain.anvil.url, json={**body, "params": body["params"][:2]},
                           trust_env=False).json()
        return reply.get("result", "0x")

    with hostile_node(chain.anvil.url, {"eth_call": without_override}) as (url, _seen):
        config = dataclasses.replace(chain.config, url=url)
        key = fresh_key()
        payer = EvmHtlcRail(config, key, TxLog(chain.tmp / "blind.sqlite3"),
                            node=NodeClient(url))
        chain._rails.append(payer)
        await chain.fund(payer.address, ETHER)
        await chain.mint(fee, payer.address, 10**20)
        terms = make_terms(await chain.now_s(), statement=hash_pair()[1], amount=1000,
                           asset="FEE")
        quote = await payer.lock_quote(terms, payee_key=public_key(fresh_key()))
        assert dict(quote.facts)["simulated"] == NOT_SIMULATED and quote.problems == ()
        error = await _refused(payer, terms, public_key(fresh_key()))
        assert error.code == "token-fee-on-transfer", error  # the escrow's refusal, last
        assert _kinds(payer.txlog.all()) == ["approve"]
        assert await chain.token_balance(fee, chain.escrow) == 0


async def test_an_approve_whose_allowance_is_gone_before_its_deposit_is_given_again(
        shared_chain):
    chain = shared_chain
    token = await chain.token("FLOP", 18, permits=False)
    payer = await chain.rail("payer", wei=ETHER)
    await chain.mint(token, payer.address, 10 * UNITS_18)
    terms = make_terms(await chain.now_s(), statement=hash_pair()[1], amount=UNITS_18,
                       asset="FLOP")
    payee_key = public_key(fresh_key())

    def killed(step: str) -> None:  # the wallet stops once its approve is out
        if step == "evm-approve-sent":
            raise RuntimeError("killed")

    payer.sender.on_step = killed
    with pytest.raises(RuntimeError):
        await payer.lock(terms, payee_key=payee_key)
    payer.sender.on_step = lambda step: None
    assert await chain.allowance(token, payer.address, chain.escrow) == UNITS_18
    # Meanwhile the allowance is spent or overwritten (another lock in the token, another
    # wallet on the account): the journaled approve no longer pays for this deposit.
    await chain.send_as(payer.key, token.address or "", approve_data(chain.escrow, 0))
    ref = await payer.lock(terms, payee_key=payee_key)
    assert await payer.verify_lock(terms, ref, payee_key=payee_key)
    assert _kinds(payer.txlog.all()) == ["approve", "approve", "deposit"]
    assert await chain.token_balance(token, chain.escrow) == UNITS_18
