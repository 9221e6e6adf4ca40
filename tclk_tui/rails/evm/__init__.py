"""The evm-htlc rail: tclk/1 locks in an EVM escrow contract (HtlcEscrow.vy), over JSON-RPC.

Ether and the ERC-20 tokens a profile names in its `evm.json` settle in the same escrow.
"""

from .deploy import deploy_contract, deploy_escrow, deploy_test_token
from .escrow import NATIVE, address_of_key, artifact
from .expect import (
    ASSET,
    TIMELOCK_MARGIN_S,
    format_ether,
    format_units,
    margin_text,
    timelock_of,
)
from .rail import EvmConfig, EvmHtlcRail, LockReport
from .ref import EvmRef, format_ref, parse_ref
from .rpc import NodeClient
from .token import ETHER, TokenAsset, parse_assets
from .tx import DEFAULT_FEE_CAP, FeeCap, Sender
from .txlog import TxLog

__all__ = [
    "ASSET",
    "DEFAULT_FEE_CAP",
    "ETHER",
    "NATIVE",
    "TIMELOCK_MARGIN_S",
    "EvmConfig",
    "EvmHtlcRail",
    "EvmRef",
    "FeeCap",
    "LockReport",
    "NodeClient",
    "Sender",
    "TokenAsset",
    "TxLog",
    "address_of_key",
    "artifact",
    "deploy_contract",
    "deploy_escrow",
    "deploy_test_token",
    "format_ether",
    "format_ref",
    "format_units",
    "margin_text",
    "parse_assets",
    "parse_ref",
    "timelock_of",
]
