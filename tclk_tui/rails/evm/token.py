"""ERC-20 tokens as the rail speaks to them: the assets a profile trades, and reading a token.

A profile names its tokens in `evm.json` (`"assets": {"USDC": {"address": "0x…",
"decimals": 6}}`). The token contract is a stranger's code: everything read from it is checked
(it has code, its `decimals()` is the configured one), and nothing it answers is believed
beyond what the escrow re-checks itself (the balance it actually received).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eth_abi import decode, encode
from eth_utils import keccak, to_checksum_address

from tclk_tui.rails.base import SettlementError

from .rpc import NodeClient

__all__ = ["ETHER", "TokenAsset", "TokenState", "approve_data", "check_token", "parse_assets",
           "permit_digest", "read_token"]

_SYMBOL_RE = re.compile(r"[A-Za-z0-9._-]{1,16}")
_ADDRESS_RE = re.compile(r"0x[0-9a-fA-F]{40}")
PERMIT_TYPEHASH = keccak(
    text="Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")


@dataclass(frozen=True, slots=True)
class TokenAsset:
    """One asset this profile trades on its chain: ether (no address) or an ERC-20 token."""

    symbol: str
    address: str | None  # None: ether, the chain's own coin
    decimals: int

    @property
    def native(self) -> bool:
        return self.address is None


ETHER = TokenAsset(symbol="ETH", address=None, decimals=18)


def parse_assets(raw: object) -> dict[str, TokenAsset]:
    """`evm.json`'s `assets` member; ValueError naming what is wrong."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError('"assets" must map a symbol to {"address": "0x…", "decimals": N}')
    assets: dict[str, TokenAsset] = {}
    seen: dict[str, str] = {}
    for symbol, entry in raw.items():
        if not isinstance(symbol, str) or not _SYMBOL_RE.fullmatch(symbol):
            raise ValueError(f"asset symbol {str(symbol)[:20]!r} is not 1-16 letters or digits")
        if symbol == ETHER.symbol:
            raise ValueError("ETH is the chain's own coin; it needs no entry in assets")
        if not isinstance(entry, dict):
            raise ValueError(f"asset {symbol} must be {{\"address\": ..., \"decimals\": ...}}")
        address, decimals = entry.get("address"), entry.get("decimals")
        if not isinstance(address, str) or not _ADDRESS_RE.fullmatch(address):
            raise ValueError(f"asset {symbol}: address must be 0x and 40 hex digits")
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 36:
            raise ValueError(f"asset {symbol}: decimals must be a whole number from 0 to 36")
        checksummed = to_checksum_address(address)
        if checksummed in seen:
            raise ValueError(f"assets {seen[checksummed]} and {symbol} name the same token")
        seen[checksummed] = symbol
        assets[symbol] = TokenAsset(symbol=symbol, address=checksummed, decimals=decimals)
    return assets


def _selector(signature: str) -> bytes:
    return keccak(text=signature)[:4]


def approve_data(spender: str, amount: int) -> bytes:
    return _selector("approve(address,uint256)") + encode(["address", "uint256"],
                                                          [spender, amount])


def permit_digest(domain_separator: bytes, owner: str, spender: str, value: int, nonce: int,
                  deadline: int) -> bytes:
    """The EIP-712 digest an EIP-2612 permit signs, under the token's own domain separator."""
    inner = keccak(encode(["bytes32", "address", "address", "uint256", "uint256", "uint256"],
                          [PERMIT_TYPEHASH, owner, spender, value, nonce, deadline]))
    return keccak(b"\x19\x01" + domain_separator + inner)


@dataclass(frozen=True, slots=True)
class TokenState:
    """One account's standing with one token, as read now."""

    balance: int
    allowance: int  # what the escrow may pull already
    permit_nonce: int | None  # None: the token has no EIP-2612 permit
    domain_separator: bytes | None


def _refuse(message: str, code: str) -> SettlementError:
    return SettlementError(f"tclk: evm-htlc {message}", code=code)


async def _uint(node: NodeClient, token: str, data: bytes, what: str) -> int:
    raw = await node.eth_call(token, "0x" + data.hex())
    try:
        (value,) = decode(["uint256"], raw)
    except Exception:  # eth-abi raises its own hierarchy for short or odd data
        raise _refuse(f"token {token} answered {what} with something that is not a number",
                      "bad-token") from None
    return int(value)


async def check_token(node: NodeClient, asset: TokenAsset) -> None:
    """The configured token exists on this chain and its decimals are the configured ones."""
    assert asset.address is not None
    if not await node.code(asset.address):
        raise _refuse(f"asset {asset.symbol}: no contract at {asset.address} on this chain "
                      "(a token address with no code)", "token-no-code")
    try:
        decimals = await _uint(node, asset.address, _selector("decimals()"), "decimals()")
    except SettlementError as exc:
        raise _refuse(f"asset {asset.symbol}: token {asset.address} does not answer decimals() "
                      f"({exc})", "bad-token") from None
    if decimals != asset.decimals:
        raise _refuse(f"asset {asset.symbol}: evm.json says {asset.decimals} decimals, the token "
                      f"at {asset.address} says {decimals}", "token-decimals-mismatch")


async def read_token(node: NodeClient, asset: TokenAsset, owner: str,
                     spender: str) -> TokenState:
    assert asset.address is not None
    token = asset.address
    balance = await _uint(node, token, _selector("balanceOf(address)") + encode(
        ["address"], [owner]), "balanceOf")
    allowance = await _uint(node, token, _selector("allowance(address,address)") + encode(
        ["address", "address"], [owner, spender]), "allowance")
    nonce: int | None = None
    domain: bytes | None = None
    try:
        domain = await node.eth_call(token, "0x" + _selector("DOMAIN_SEPARATOR()").hex())
        nonce = await _uint(node, token, _selector("nonces(address)") + encode(
            ["address"], [owner]), "nonces")
    except SettlementError as exc:
        if exc.code != "node-refused":
            raise
        domain = nonce = None  # no EIP-2612 here: an approve transaction goes first
    if domain is not None and len(domain) != 32:
        domain = nonce = None
    return TokenState(balance=balance, allowance=allowance, permit_nonce=nonce,
                      domain_separator=domain)
