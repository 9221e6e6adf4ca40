"""Wiring the evm-htlc rail into a profile: its settings, its account, its journal.

A profile settles on an EVM chain when its directory holds `evm.json`:

    {"url": "https://node.example", "chain_id": 1, "escrow": "0x…", "confirmations": 3,
     "assets": {"USDC": {"address": "0x…", "decimals": 6}},
     "max_fee_gwei": 50, "max_priority_fee_gwei": 2}

`assets` names the ERC-20 tokens it trades besides ether (an offer's `asset` maps to one of
them, or is refused); the two fee caps bound what any transaction may pay per gas.

The account key is derived from the profile's master seed under its own domain string (one
seed backup restores it) and cached in the vault like every derived secret. The rail's
transaction journal lives beside the profile's journal, as `evm-tx.sqlite3`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, cast

from tclk_tui.engine.crash import crashpoint
from tclk_tui.engine.errors import EngineError
from tclk_tui.protocol.secp import scalar_base_mult
from tclk_tui.rails.base import Clock
from tclk_tui.vault.seed import Vault, derive_scalar

if TYPE_CHECKING:  # the rail loads eth-abi and eth-account (seconds): only a profile using it pays
    from tclk_tui.rails.evm import EvmConfig, EvmHtlcRail

__all__ = ["EVM_ACCOUNT_DOMAIN", "EVM_SETTINGS_FILE", "account_answer", "evm_account_key",
           "evm_account_public_key", "load_evm_settings", "open_evm_rail", "save_evm_settings"]

EVM_ACCOUNT_ENTRY = "evm-account-secp256k1"
EVM_ACCOUNT_DOMAIN = "tclk-tui/v1/evm-account"
EVM_SETTINGS_FILE = "evm.json"
EVM_TXLOG_FILE = "evm-tx.sqlite3"


def evm_account_key(vault: Vault) -> bytes:
    """The profile's EVM account key: derived from the master seed, cached in the vault."""
    backend = vault.backend
    cached = backend.get(EVM_ACCOUNT_ENTRY)
    if cached is not None:
        return bytes(cached)
    key = derive_scalar(vault.master_seed(), EVM_ACCOUNT_DOMAIN)
    backend.put(EVM_ACCOUNT_ENTRY, key)
    return key


def evm_account_public_key(vault: Vault) -> str:
    """Its compressed public key, the paymentKey this wallet signs into evm-htlc deals."""
    return "0x" + scalar_base_mult(int.from_bytes(evm_account_key(vault), "big")).hex()


def load_evm_settings(profile_dir: Path) -> EvmConfig | None:
    path = Path(profile_dir) / EVM_SETTINGS_FILE
    if not path.exists():
        return None
    from tclk_tui.rails.evm import DEFAULT_FEE_CAP, EvmConfig, parse_assets

    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise TypeError("not a JSON object")
        return EvmConfig(url=str(raw["url"]), chain_id=int(raw["chain_id"]),
                         escrow=str(raw["escrow"]),
                         confirmations=int(raw.get("confirmations", 1)),
                         assets=parse_assets(raw.get("assets")),
                         max_fee_gwei=_gwei(raw, "max_fee_gwei", DEFAULT_FEE_CAP.max_fee_wei),
                         max_priority_fee_gwei=_gwei(raw, "max_priority_fee_gwei",
                                                     DEFAULT_FEE_CAP.max_priority_fee_wei))
    except (ValueError, KeyError, TypeError, ArithmeticError, RecursionError) as exc:
        raise EngineError(f"{path.name} is not usable ({type(exc).__name__}: {exc}); expected "
                          '{"url": ..., "chain_id": ..., "escrow": "0x...", '
                          '"confirmations": N, "assets": {"USDC": {"address": "0x...", '
                          '"decimals": 6}}, "max_fee_gwei": N, "max_priority_fee_gwei": N}'
                          ) from None


def _gwei(raw: dict, name: str, default_wei: int) -> Decimal:
    value = raw.get(name)
    if value is None:
        return Decimal(default_wei) / 10**9
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{name} must be a number of gwei")
    return Decimal(str(value))


def save_evm_settings(profile_dir: Path, config: EvmConfig) -> Path:
    path = Path(profile_dir) / EVM_SETTINGS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    body: dict = {"url": config.url, "chain_id": config.chain_id, "escrow": config.escrow,
                  "confirmations": config.confirmations,
                  "max_fee_gwei": str(config.max_fee_gwei),
                  "max_priority_fee_gwei": str(config.max_priority_fee_gwei)}
    if config.assets:
        body["assets"] = {symbol: {"address": asset.address, "decimals": asset.decimals}
                          for symbol, asset in config.assets.items()}
    path.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    return path


def open_evm_rail(vault: Vault, profile_dir: Path, config: EvmConfig, clock: Clock,
                  on_step: Callable[[str], None] = crashpoint) -> EvmHtlcRail:
    from tclk_tui.rails.evm import EvmHtlcRail, TxLog

    # The account's send lock lives in the data directory, so two profiles restored from one
    # seed (one account) never send with the same nonce.
    return EvmHtlcRail(config, evm_account_key(vault), TxLog(Path(profile_dir) / EVM_TXLOG_FILE),
                       clock=clock, on_step=on_step, lock_dir=Path(profile_dir).parent)


async def account_answer(rail: object) -> dict:
    """The profile's EVM account on its chain and what it holds now, for `identity`: ether
    and every configured token, as money and in minimal units; a node that cannot answer is
    said, not raised (the address is still worth printing: it is what to fund)."""
    from tclk_tui.rails.evm import ETHER, EvmHtlcRail, format_units

    evm = cast(EvmHtlcRail, rail)
    answer: dict = {"address": evm.address, "chain_id": evm.config.chain_id, "balances": []}
    try:
        held = await evm.holdings()
    except Exception as exc:  # an unreachable node, a token that is not one
        answer["error"] = str(exc).removeprefix("tclk: ")
        return answer
    assets = {ETHER.symbol: ETHER, **evm.config.assets}
    answer["balances"] = [
        {"asset": symbol, "units": str(units),
         "text": format_units(units, assets[symbol])}
        for symbol, units in held.items()]
    return answer
