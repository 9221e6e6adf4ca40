"""The `ref` an evm-htlc lock frame carries: `eip155:<chain id>:<escrow address>:<lock id>`.

For example `eip155:1:0x5FbDB2315678afecb367f032d93F642f64180aa3:0x` followed by the 64 hex
digits of the lock id. The chain id is decimal (CAIP-2 style), the escrow address is
EIP-55 checksummed, the lock id is the escrow's keccak id of the deposit. Parsing is strict: the
ref comes from a stranger's frame.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eth_utils import to_checksum_address

__all__ = ["EvmRef", "format_ref", "parse_ref"]

_REF_RE = re.compile(r"eip155:([1-9][0-9]{0,18}):(0x[0-9a-fA-F]{40}):(0x[0-9a-f]{64})")


@dataclass(frozen=True, slots=True)
class EvmRef:
    chain_id: int
    escrow: str
    lock_id: str  # 0x + 64 lowercase hex

    @property
    def lock_bytes(self) -> bytes:
        return bytes.fromhex(self.lock_id[2:])


def format_ref(chain_id: int, escrow: str, lock_id: bytes) -> str:
    return f"eip155:{chain_id}:{to_checksum_address(escrow)}:0x{lock_id.hex()}"


def parse_ref(ref: object) -> EvmRef | None:
    if not isinstance(ref, str):
        return None
    match = _REF_RE.fullmatch(ref)
    if match is None:
        return None
    escrow = match.group(2)
    if to_checksum_address(escrow) != escrow:
        return None
    return EvmRef(chain_id=int(match.group(1)), escrow=escrow, lock_id=match.group(3))
