"""The rail contract suite (tests/rails/contract.py) on evm-htlc, on one anvil for the module:
in ether, and in a 6-decimal token (each test its own escrow, token and accounts)."""

from __future__ import annotations

import secrets

import pytest

from tclk_tui.rails.evm import format_ref
from tests.rails.contract import RailContract, RailHarness, fresh_terms
from tests.rails.evm.chain import ETHER, Chain, public_key


async def _harness(chain: Chain, asset: str) -> RailHarness:
    payer = await chain.rail("payer", wei=ETHER)
    payee = await chain.rail("payee", wei=ETHER // 10)
    if asset != "ETH":
        await chain.mint(chain.assets[asset], payer.address, 10**12)

    async def terms(kind: str):
        claim_by = (await chain.now_s() + 600) * 1000
        return fresh_terms(kind, claim_by_ms=claim_by, refund_after_ms=claim_by + 600_000,
                           amount="123456", asset=asset)

    async def past_deadline(terms) -> None:
        await chain.advance(max(1, terms.refund_after_ms // 1000 - await chain.now_s()))

    def unknown_ref(terms) -> str:
        return format_ref(chain.anvil.chain_id, chain.escrow, secrets.token_bytes(32))

    return RailHarness(payer=payer, payee=payee, terms=terms, past_deadline=past_deadline,
                       unknown_ref=unknown_ref, payee_key=public_key(payee.key))


class TestEvmEtherRailContract(RailContract):
    @pytest.fixture
    async def harness(self, shared_chain) -> RailHarness:
        return await _harness(shared_chain, "ETH")


class TestEvmTokenRailContract(RailContract):
    @pytest.fixture
    async def harness(self, shared_chain) -> RailHarness:
        await shared_chain.token("USDC", 6)
        return await _harness(shared_chain, "USDC")
