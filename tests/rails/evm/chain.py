"""A test's view of one anvil chain: funded accounts, the deployed escrow, rails, terms."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from eth_abi import encode
from eth_utils import keccak

from tclk_tui.protocol.locks import hash_lock_from_preimage, point_lock_from_witness
from tclk_tui.protocol.secp import N, scalar_base_mult
from tclk_tui.rails.base import LockTerms
from tclk_tui.rails.evm import (
    EvmConfig,
    EvmHtlcRail,
    NodeClient,
    Sender,
    TokenAsset,
    TxLog,
    deploy_contract,
    deploy_escrow,
    deploy_test_token,
)
from tclk_tui.rails.evm.account import Account
from tclk_tui.rails.evm.anvil import AnvilNode

ETHER = 10**18
CONTRACTS = Path(__file__).resolve().parent / "contracts"


def fresh_key() -> bytes:
    while True:
        key = secrets.token_bytes(32)
        if 0 < int.from_bytes(key, "big") < N:
            return key


def public_key(key: bytes) -> str:
    return "0x" + scalar_base_mult(int.from_bytes(key, "big")).hex()


@dataclass
class Chain:
    anvil: AnvilNode
    tmp: Path
    node: NodeClient
    escrow: str = ""
    deployer: Sender | None = None
    assets: dict[str, TokenAsset] = field(default_factory=dict)
    _rails: list[EvmHtlcRail] = field(default_factory=list)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, anvil: AnvilNode, tmp: Path) -> AsyncIterator[Chain]:
        chain = cls(anvil=anvil, tmp=tmp, node=NodeClient(anvil.url))
        try:
            deployer = fresh_key()
            await chain.fund(Account.from_key(deployer).address, 10 * ETHER)
            chain.deployer = Sender(chain.node, anvil.chain_id, deployer,
                                    TxLog(tmp / "deployer.sqlite3"))
            chain.escrow = await deploy_escrow(chain.deployer)
            yield chain
        finally:
            for rail in chain._rails:
                await rail.aclose()
            if chain.deployer is not None:
                chain.deployer.txlog.close()
            await chain.node.aclose()

    @property
    def config(self) -> EvmConfig:
        """The escrow and every token this test deployed (`token`), as a profile names them."""
        return EvmConfig(url=self.anvil.url, chain_id=self.anvil.chain_id, escrow=self.escrow,
                         assets=dict(self.assets))

    async def token(self, symbol: str, decimals: int, *, permits: bool = True) -> TokenAsset:
        """Deploy the shipped test token; the chain's config names it from now on."""
        assert self.deployer is not None
        address = await deploy_test_token(self.deployer, symbol, decimals, permits=permits)
        self.assets[symbol] = TokenAsset(symbol=symbol, address=address, decimals=decimals)
        return self.assets[symbol]

    async def hostile_token(self, name: str, symbol: str, decimals: int) -> TokenAsset:
        """Deploy one of the suite's own tokens (tests/rails/evm/contracts/<name>.vy)."""
        assert self.deployer is not None
        raw = json.loads((CONTRACTS / f"{name}.json").read_text(encoding="utf-8"))
        address = await deploy_contract(self.deployer, bytes.fromhex(raw["bytecode"][2:]))
        self.assets[symbol] = TokenAsset(symbol=symbol, address=address, decimals=decimals)
        return self.assets[symbol]

    async def send_as(self, key: bytes, to: str, data: bytes, gas: int = 300_000) -> dict:
        """A transaction straight from `key`, past every check of the wallet's rail."""
        account = Account.from_key(key)
        nonce = await self.node.nonce(account.address, "pending")
        signed = account.sign_transaction({
            "type": 2, "chainId": self.anvil.chain_id, "nonce": nonce, "to": to, "value": 0,
            "gas": gas, "data": data, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9})
        return await self.receipt(await self.node.call(
            "eth_sendRawTransaction", "0x" + bytes(signed.raw_transaction).hex()))

    async def mint(self, token: TokenAsset, address: str, amount: int) -> None:
        assert self.deployer is not None and token.address is not None
        data = keccak(text="mint(address,uint256)")[:4] + encode(["address", "uint256"],
                                                                  [address, amount])
        deployer_key = self.deployer._account.key
        receipt = await self.send_as(bytes(deployer_key), token.address, data)
        assert receipt["status"] == "0x1"

    async def token_balance(self, token: TokenAsset, address: str) -> int:
        """Read straight from the token contract (not through the rail)."""
        assert token.address is not None
        out = await self.node.eth_call(token.address, "0x" + (
            keccak(text="balanceOf(address)")[:4] + encode(["address"], [address])).hex())
        return int.from_bytes(out, "big")

    async def allowance(self, token: TokenAsset, owner: str, spender: str) -> int:
        assert token.address is not None
        out = await self.node.eth_call(token.address, "0x" + (
            keccak(text="allowance(address,address)")[:4]
            + encode(["address", "address"], [owner, spender])).hex())
        return int.from_bytes(out, "big")

    async def fund(self, address: str, wei: int) -> None:
        await self.node.call("anvil_setBalance", address, hex(wei))

    async def rail(self, name: str, *, wei: int = 10 * ETHER, key: bytes | None = None,
                   config: EvmConfig | None = None, **kwargs) -> EvmHtlcRail:
        key = key or fresh_key()
        rail = EvmHtlcRail(config or self.config, key, TxLog(self.tmp / f"{name}.sqlite3"),
                           **kwargs)
        self._rails.append(rail)
        if wei:
            await self.fund(rail.address, wei)
        rail.key = key  # type: ignore[attr-defined]  # the test needs the payee's public key
        return rail

    async def receipt(self, tx_hash: str, timeout_s: float = 30.0) -> dict:
        """Poll for a receipt (anvil mines a sent transaction soon, not always at once)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = await self.node.call("eth_getTransactionReceipt", tx_hash)
            if found is not None:
                return found
            await asyncio.sleep(0.02)
        raise AssertionError(f"no receipt for {tx_hash} in {timeout_s} s")

    async def now_s(self) -> int:
        head = await self.node.block("latest")
        return int(head["timestamp"], 16)

    async def advance(self, seconds: int) -> None:
        await self.node.call("evm_increaseTime", hex(seconds))
        await self.node.call("evm_mine")

    async def mine(self, blocks: int = 1) -> None:
        await self.node.call("anvil_mine", hex(blocks))


def hash_pair() -> tuple[str, str]:
    """(secret, statement) of a fresh hash lock."""
    lock = hash_lock_from_preimage(secrets.token_bytes(32))
    return lock.preimage, lock.hash


def point_pair() -> tuple[str, str]:
    witness = fresh_key()
    lock = point_lock_from_witness(witness)
    return "0x" + witness.hex(), lock.statement


def make_terms(now_s: int, *, lock: str = "hash", statement: str, amount: int = ETHER // 10,
               asset: str = "ETH", claim_in_s: int = 600, gap_s: int = 600) -> LockTerms:
    contract = "0x" + hashlib.sha256(secrets.token_bytes(16)).hexdigest()
    claim_by = (now_s + claim_in_s) * 1000
    return LockTerms(contract=contract, lock=lock, statement=statement, amount=str(amount),
                     asset=asset, payer="did:key:zpayer", payee="did:key:zpayee",
                     claim_by_ms=claim_by, refund_after_ms=claim_by + gap_s * 1000)
