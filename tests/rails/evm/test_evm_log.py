"""The evm-htlc rail's log tells each transaction's story from the layer that decides it:
refused before signing (funds), signed and journaled, sent, mined with its receipt, and after a
restart found on chain by the reconcile. A claim's calldata carries the secret: no line does."""

from __future__ import annotations

import logging

import pytest

from tclk_tui.rails.base import SettlementError
from tests.rails.evm.chain import hash_pair, make_terms, public_key

TX = "tclk_tui.rails.evm.tx"
RAIL = "tclk_tui.rails.evm.rail"


def said(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == name]


async def test_a_deal_on_chain_is_logged_send_by_send_and_never_with_its_secret(chain, caplog):
    caplog.set_level(logging.INFO, logger="tclk_tui")
    payer, payee = await chain.rail("payer"), await chain.rail("payee")
    payee_key = public_key(payee.key)
    secret, statement = hash_pair()
    terms = make_terms(await chain.now_s(), lock="hash", statement=statement, amount=4242)
    ref = await payer.lock(terms, payee_key=payee_key)
    await payee.claim(ref, secret)
    deposit, claim = payer.txlog.all()[0], payee.txlog.all()[0]
    lines = said(caplog, TX)
    for row in (deposit, claim):
        mine = [line for line in lines if row.tx_hash in line]
        assert mine[0].startswith(f"evm {row.kind} for lock {row.lock_id}: signed {row.tx_hash} "
                                  f"(chain {chain.config.chain_id}, nonce {row.nonce}, gas ")
        assert mine[0].endswith("and journaled before sending")
        assert mine[1] == f"evm {row.kind} {row.tx_hash} sent; waiting for its receipt"
        assert mine[2].startswith(f"evm {row.kind} {row.tx_hash} mined in block ")
        assert ": ok, gas used " in mine[2] and mine[2].endswith(" wei")

    # After a restart the reconcile looks up what the journal does not know to be mined.
    payer.txlog.mark(deposit, "sent")
    caplog.clear()
    notes = await payer.reconcile()
    assert len(notes) == 1
    assert said(caplog, RAIL) == [
        f"evm reconcile: 1 journaled transaction(s) not known to be mined on chain "
        f"{chain.config.chain_id}",
        f"evm reconcile: deposit {deposit.tx_hash} (journaled sent) found in block "
        f"{payer.txlog.all()[0].block} (ok)"]

    text = "\n".join(r.getMessage() + repr(r.args) for r in caplog.records)
    assert secret.removeprefix("0x").lower() not in text.lower()


async def test_a_lock_the_balance_cannot_cover_is_logged_as_refused_before_signing(chain,
                                                                                   caplog):
    caplog.set_level(logging.INFO, logger="tclk_tui")
    payer, payee = await chain.rail("poor", wei=10_000), await chain.rail("payee")
    _, statement = hash_pair()
    terms = make_terms(await chain.now_s(), lock="hash", statement=statement, amount=5_000)
    with pytest.raises(SettlementError):
        await payer.lock(terms, payee_key=public_key(payee.key))
    [line] = said(caplog, TX)
    assert line.startswith("evm deposit for lock ") and "refused before signing: " in line
    assert payer.txlog.all() == []
