"""The demo's chain: a local anvil with the escrow deployed and both demo accounts funded.

Only `tclk-tui demo --rail evm-htlc` starts one. The ether is anvil's test ether on a chain
that lives for the length of the demo, on loopback; nothing touches a real network. With
`--asset USDC` it also deploys the shipped test token (6 decimals, EIP-2612 permit, worth
nothing) as `USDC`, names it in both profiles' `evm.json` and mints it to both accounts.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from eth_abi import encode
from eth_utils import keccak

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.evm import save_evm_settings
from tclk_tui.engine.views import OfferDraft
from tclk_tui.protocol.money import money_text
from tclk_tui.rails.evm import (
    ETHER,
    EvmConfig,
    NodeClient,
    Sender,
    TokenAsset,
    TxLog,
    deploy_escrow,
    deploy_test_token,
    format_units,
)
from tclk_tui.rails.evm.account import Account
from tclk_tui.rails.evm.anvil import AnvilNotFound, start_anvil
from tclk_tui.rails.evm.token import read_token

__all__ = ["DEMO_ASSETS", "DEMO_FUNDING_WEI", "EVM_DEMO_OFFERS", "DemoChain", "demo_chain",
           "demo_offers"]

DEMO_FUNDING_WEI = 100 * 10**18
DEMO_ASSETS = ("ETH", "USDC")
DEMO_TOKEN_UNITS = 1000 * 10**6  # 1000 test USDC for each side

EVM_DEMO_OFFERS = (
    OfferDraft(role="payer", amount="250000000000000000", asset="ETH", lock="hash",
               rails="evm-htlc", claim_in_s="1800", refund_gap_s="1800", expires_in_s="900",
               job="a2a:translate-report"),
    OfferDraft(role="payer", amount="40000000000000000", asset="ETH", lock="point",
               rails="evm-htlc", claim_in_s="3600", refund_gap_s="1800", expires_in_s="1500",
               job="acp:4471"),
)


USDC_DEMO_OFFERS = (
    OfferDraft(role="payer", amount="25000000", asset="USDC", lock="hash",
               rails="evm-htlc", claim_in_s="1800", refund_gap_s="1800", expires_in_s="900",
               job="a2a:translate-report"),
    OfferDraft(role="payer", amount="4500000", asset="USDC", lock="point",
               rails="evm-htlc", claim_in_s="3600", refund_gap_s="1800", expires_in_s="1500",
               job="acp:4471"),
)


def demo_offers(asset: str) -> tuple[OfferDraft, ...]:
    """The agent's offers on the demo chain, in ether or in the test token."""
    return USDC_DEMO_OFFERS if asset == "USDC" else EVM_DEMO_OFFERS


@dataclass
class DemoChain:
    config: EvmConfig
    node: NodeClient
    deployer: bytes = b""
    asset: TokenAsset = ETHER  # what the demo's deals are in

    async def fund(self, address: str, wei: int = DEMO_FUNDING_WEI) -> None:
        """Test ether for the gas (and the amounts), and test tokens when the demo uses them."""
        await self.node.call("anvil_setBalance", address, hex(wei))
        if self.asset.address is not None:
            await self._mint(address, DEMO_TOKEN_UNITS)

    async def _mint(self, address: str, units: int) -> None:
        account = Account.from_key(self.deployer)
        data = keccak(text="mint(address,uint256)")[:4] + encode(["address", "uint256"],
                                                                  [address, units])
        nonce = await self.node.nonce(account.address, "pending")
        signed = account.sign_transaction({
            "type": 2, "chainId": self.config.chain_id, "nonce": nonce,
            "to": self.asset.address, "value": 0, "gas": 100_000, "data": data,
            "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9})
        await self.node.call("eth_sendRawTransaction",
                             "0x" + bytes(signed.raw_transaction).hex())

    async def balance(self, address: str) -> int:
        return await self.node.balance(address)

    async def holdings(self, address: str) -> dict[str, int]:
        """What `address` holds now, read from the chain: ether, and the demo's token."""
        held = {ETHER.symbol: await self.balance(address)}
        if self.asset.address is not None:
            held[self.asset.symbol] = (await read_token(self.node, self.asset, address,
                                                        self.config.escrow)).balance
        return held

    async def holdings_text(self, address: str) -> str:
        held = await self.holdings(address)
        return "; ".join(format_units(units, self._asset(symbol))
                         for symbol, units in held.items())

    def _asset(self, symbol: str) -> TokenAsset:
        return ETHER if symbol == ETHER.symbol else self.asset

    def change_text(self, before: dict[str, int], after: dict[str, int]) -> str:
        """`+25 USDC, -0.0001 ETH`: each asset's change, to the unit (gas is in the ether)."""
        parts = []
        for symbol, units in after.items():
            delta = units - before.get(symbol, 0)
            sign = "+" if delta >= 0 else "-"
            asset = self._asset(symbol)
            parts.append(f"{sign}{money_text(abs(delta), symbol, asset.decimals)}")
        return ", ".join(parts)

    async def balance_text(self, address: str) -> str:
        return format_units(await self.balance(address), ETHER)

    def configure(self, profile_dir: Path) -> None:
        save_evm_settings(profile_dir, self.config)


@contextlib.asynccontextmanager
async def demo_chain(directory: Path, asset: str = "ETH") -> AsyncIterator[DemoChain]:
    if asset not in DEMO_ASSETS:
        raise EngineError(f"the evm-htlc demo trades {' or '.join(DEMO_ASSETS)}, not {asset}")
    try:
        anvil_cm = start_anvil()
        node_info = anvil_cm.__enter__()
    except AnvilNotFound as exc:
        raise EngineError(f"the evm-htlc demo needs anvil: {exc}") from None
    node = NodeClient(node_info.url)
    try:
        deployer = secrets.token_bytes(32)
        address = Account.from_key(deployer).address
        await node.call("anvil_setBalance", address, hex(10**18))
        sender = Sender(node, node_info.chain_id, deployer, TxLog(directory / "deployer.sqlite3"))
        escrow = await deploy_escrow(sender)
        token = ETHER
        if asset != ETHER.symbol:
            address = await deploy_test_token(sender, asset, 6, name="Demo test USDC")
            token = TokenAsset(symbol=asset, address=address, decimals=6)
        sender.txlog.close()
        config = EvmConfig(url=node_info.url, chain_id=node_info.chain_id, escrow=escrow,
                           assets={} if token.native else {token.symbol: token})
        yield DemoChain(config=config, node=node, deployer=deployer, asset=token)
    finally:
        await node.aclose()
        anvil_cm.__exit__(None, None, None)
