"""The demo's chain: a local anvil with the escrow deployed and both demo accounts funded.

Only `tclk-tui demo --rail evm-htlc` starts one. The ether is anvil's test ether on a chain
that lives for the length of the demo, on loopback; nothing touches a real network.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from eth_account import Account

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.evm import save_evm_settings
from tclk_tui.engine.views import OfferDraft
from tclk_tui.rails.evm import EvmConfig, NodeClient, Sender, TxLog, deploy_escrow, format_ether
from tclk_tui.rails.evm.anvil import AnvilNotFound, start_anvil

__all__ = ["DEMO_FUNDING_WEI", "EVM_DEMO_OFFERS", "DemoChain", "demo_chain"]

DEMO_FUNDING_WEI = 100 * 10**18

EVM_DEMO_OFFERS = (
    OfferDraft(role="payer", amount="250000000000000000", asset="ETH", lock="hash",
               rails="evm-htlc", claim_in_s="1800", refund_gap_s="1800", expires_in_s="900",
               job="a2a:translate-report"),
    OfferDraft(role="payer", amount="40000000000000000", asset="ETH", lock="point",
               rails="evm-htlc", claim_in_s="3600", refund_gap_s="1800", expires_in_s="1500",
               job="acp:4471"),
)


@dataclass
class DemoChain:
    config: EvmConfig
    node: NodeClient

    async def fund(self, address: str, wei: int = DEMO_FUNDING_WEI) -> None:
        await self.node.call("anvil_setBalance", address, hex(wei))

    async def balance(self, address: str) -> int:
        return await self.node.balance(address)

    async def balance_text(self, address: str) -> str:
        wei = await self.balance(address)
        return f"{wei} wei ({format_ether(wei)})"

    def configure(self, profile_dir: Path) -> None:
        save_evm_settings(profile_dir, self.config)


@contextlib.asynccontextmanager
async def demo_chain(directory: Path) -> AsyncIterator[DemoChain]:
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
        sender.txlog.close()
        config = EvmConfig(url=node_info.url, chain_id=node_info.chain_id, escrow=escrow)
        yield DemoChain(config=config, node=node)
    finally:
        await node.aclose()
        anvil_cm.__exit__(None, None, None)
