"""Nodes that lie or stall: a made-up receipt, a receipt for another transaction, a node that
never answers. Each is refused with its rule named, and the real chain shows nothing moved."""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.rails.base import SettlementError
from tclk_tui.rails.evm import EvmConfig, EvmHtlcRail, NodeClient, TxLog
from tests.rails.evm.chain import fresh_key, hash_pair, make_terms, public_key
from tests.rails.evm.hostile import hostile_node


def _swallow(body: dict) -> object:
    """Accept a raw transaction without forwarding it: answer its hash, send nothing."""
    from eth_utils import keccak
    return "0x" + keccak(bytes.fromhex(body["params"][0][2:])).hex()


def _made_up_receipt(body: dict) -> object:
    return {"transactionHash": body["params"][0], "blockNumber": "0x1", "status": "0x1",
            "gasUsed": "0x5208", "effectiveGasPrice": "0x1", "logs": []}


async def _rail_via(chain, url: str, name: str, *, timeout_s: float = 10.0) -> EvmHtlcRail:
    config = EvmConfig(url=url, chain_id=chain.anvil.chain_id, escrow=chain.escrow)
    key = fresh_key()
    rail = EvmHtlcRail(config, key, TxLog(chain.tmp / f"{name}.sqlite3"),
                       node=NodeClient(url, timeout_s=timeout_s))
    chain._rails.append(rail)
    await chain.fund(rail.address, 10**19)
    return rail


async def test_a_made_up_receipt_for_a_deposit_is_not_believed(chain):
    payee_key = public_key(fresh_key())
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement, amount=10**17)
    with hostile_node(chain.anvil.url, {"eth_sendRawTransaction": _swallow,
                                        "eth_getTransactionReceipt": _made_up_receipt}) as (
            url, _seen):
        rail = await _rail_via(chain, url, "fooled")
        with pytest.raises(SettlementError) as refused:
            await rail.lock(terms, payee_key=payee_key)
    assert refused.value.code == "receipt-mismatch"
    assert await chain.node.balance(rail.address) == 10**19  # nothing moved on the real chain
    assert await chain.node.balance(chain.escrow) == 0


async def test_a_receipt_for_another_transaction_is_refused(chain):
    payee_key = public_key(fresh_key())
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)

    def other(body: dict) -> object:
        return {**_made_up_receipt(body), "transactionHash": "0x" + "ee" * 32}

    with hostile_node(chain.anvil.url, {"eth_sendRawTransaction": _swallow,
                                        "eth_getTransactionReceipt": other}) as (url, _):
        rail = await _rail_via(chain, url, "other")
        with pytest.raises(SettlementError) as refused:
            await rail.lock(terms, payee_key=payee_key)
    assert refused.value.code == "bad-receipt"
    assert await chain.node.balance(chain.escrow) == 0


async def test_a_node_answering_another_hash_for_the_sent_transaction_is_refused(chain):
    payee_key = public_key(fresh_key())
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    with hostile_node(chain.anvil.url,
                      {"eth_sendRawTransaction": lambda body: "0x" + "ab" * 32}) as (url, _):
        rail = await _rail_via(chain, url, "rehash")
        with pytest.raises(SettlementError) as refused:
            await rail.lock(terms, payee_key=payee_key)
    assert refused.value.code == "bad-node"


async def test_a_node_claiming_another_chain_is_refused_before_anything_is_signed(chain):
    payee_key = public_key(fresh_key())
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    with hostile_node(chain.anvil.url, {"eth_chainId": lambda body: "0x1"}) as (url, seen):
        rail = await _rail_via(chain, url, "mainnet")
        with pytest.raises(SettlementError) as refused:
            await rail.lock(terms, payee_key=payee_key)
    assert refused.value.code == "wrong-chain"
    assert not any(r["method"] == "eth_sendRawTransaction" for r in seen)
    assert rail.txlog.all() == []


async def test_a_stalling_node_is_an_error_with_its_own_name(chain):
    payee_key = public_key(fresh_key())
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), statement=statement)
    with hostile_node(chain.anvil.url, {}, stall=True) as (url, _):
        config = EvmConfig(url=url, chain_id=chain.anvil.chain_id, escrow=chain.escrow)
        rail = EvmHtlcRail(config, fresh_key(), TxLog(chain.tmp / "stall.sqlite3"),
                           node=NodeClient(url, timeout_s=0.3))
        try:
            with pytest.raises(SettlementError) as refused:
                await asyncio.wait_for(rail.lock(terms, payee_key=payee_key), 10)
            assert refused.value.code == "node-stalled"
            assert not await rail.verify_lock(terms, "eip155:31337:" + chain.escrow + ":0x"
                                              + "00" * 32, payee_key=payee_key)
            assert rail.txlog.all() == []
        finally:
            await rail.aclose()
