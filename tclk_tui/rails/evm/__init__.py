"""The evm-htlc rail: tclk/1 locks in an EVM escrow contract (HtlcEscrow.vy), over JSON-RPC."""

from .escrow import address_of_key, artifact
from .expect import ASSET, TIMELOCK_MARGIN_S, format_ether, margin_text, timelock_of
from .rail import EvmConfig, EvmHtlcRail, LockReport, deploy_escrow
from .ref import EvmRef, format_ref, parse_ref
from .rpc import NodeClient
from .tx import Sender
from .txlog import TxLog

__all__ = [
    "ASSET",
    "TIMELOCK_MARGIN_S",
    "EvmConfig",
    "EvmHtlcRail",
    "EvmRef",
    "LockReport",
    "NodeClient",
    "Sender",
    "TxLog",
    "address_of_key",
    "artifact",
    "deploy_escrow",
    "format_ether",
    "format_ref",
    "margin_text",
    "parse_ref",
    "timelock_of",
]
