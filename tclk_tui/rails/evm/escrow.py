"""The escrow contract as the wallet speaks to it: its artifact, calls, lock ids and events.

One escrow holds ether and ERC-20 tokens alike; a lock names its token (the empty address for
ether), and so does its id.

ABI encoding is eth-abi's and hashing is eth-hash's keccak; nothing here is hand-rolled. The
lock id is computed here exactly as the contract computes it, so a payer can find its own lock
on chain before sending anything (the crash-safe path), and a payee can recompute the id of a
lock it reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from eth_abi import decode, encode
from eth_utils import keccak, to_checksum_address

from tclk_tui.protocol.secp import uncompressed

__all__ = [
    "KIND_CODES",
    "NATIVE",
    "STATUS_NAMES",
    "EscrowArtifact",
    "OnChainLock",
    "address_of_key",
    "artifact",
    "claim_data",
    "contract_artifact",
    "decode_lock",
    "deposit_data",
    "deposit_token_data",
    "deposit_token_permit_data",
    "lock_id",
    "locks_data",
    "refund_data",
]

KIND_CODES = {"hash": 0, "point": 1}
KIND_NAMES = {code: name for name, code in KIND_CODES.items()}
STATUS_NAMES = {0: None, 1: "locked", 2: "claimed", 3: "refunded"}
_LOCK_TUPLE = ("(bytes32,address,address,address,uint256,uint8,bytes,address,uint256,uint256,"
               "uint8,bytes32)")
NATIVE = "0x0000000000000000000000000000000000000000"
"""The token address of an ether lock."""


@dataclass(frozen=True, slots=True)
class EscrowArtifact:
    abi: list
    bytecode: bytes
    runtime: bytes
    compiler: str


@cache
def contract_artifact(name: str) -> EscrowArtifact:
    """The shipped compile output of `<name>.vy` (see `tclk_tui.rails.evm.build`)."""
    text = resources.files("tclk_tui.rails.evm").joinpath(f"{name}.json").read_text("utf-8")
    raw = json.loads(text)
    return EscrowArtifact(abi=raw["abi"], bytecode=bytes.fromhex(raw["bytecode"][2:]),
                          runtime=bytes.fromhex(raw["bytecode_runtime"][2:]),
                          compiler=raw["compiler"])


def artifact() -> EscrowArtifact:
    """The escrow's shipped compile output."""
    return contract_artifact("HtlcEscrow")


def _selector(signature: str) -> bytes:
    return keccak(text=signature)[:4]


def event_topic(signature: str) -> str:
    return "0x" + keccak(text=signature).hex()


DEPOSITED_TOPIC = event_topic("Deposited(bytes32,bytes32,address,address,address,uint256,uint8,"
                              "bytes,uint256)")
CLAIMED_TOPIC = event_topic("Claimed(bytes32,bytes32,bytes32)")
REFUNDED_TOPIC = event_topic("Refunded(bytes32,bytes32)")


def address_of_key(public_key: str) -> str | None:
    """The Ethereum address of a SEC1 secp256k1 public key (hex, 0x optional), or None.

    This is how a payer learns where the payee is paid: from the paymentKey the payee signed
    into its accept, never from an address someone typed.
    """
    if not isinstance(public_key, str):
        return None
    try:
        raw = bytes.fromhex(public_key.removeprefix("0x"))
    except ValueError:
        return None
    full = uncompressed(raw)
    if full is None:
        return None
    return to_checksum_address(keccak(full[1:])[12:])


def lock_id(contract: bytes, kind: int, statement: bytes, recipient: str, timelock: int,
            depositor: str, token: str = NATIVE) -> bytes:
    """keccak256(abi.encode(contract, kind, statement, recipient, timelock, depositor, token))."""
    return keccak(encode(["bytes32", "uint8", "bytes", "address", "uint256", "address",
                          "address"],
                         [contract, kind, statement, recipient, timelock, depositor, token]))


_TERMS = ["bytes32", "uint8", "bytes", "address", "uint256"]


def deposit_data(contract: bytes, kind: int, statement: bytes, recipient: str,
                 timelock: int) -> bytes:
    return _selector("deposit(bytes32,uint8,bytes,address,uint256)") + encode(
        _TERMS, [contract, kind, statement, recipient, timelock])


def deposit_token_data(token: str, amount: int, contract: bytes, kind: int, statement: bytes,
                       recipient: str, timelock: int) -> bytes:
    return _selector("deposit_token(address,uint256,bytes32,uint8,bytes,address,uint256)") + \
        encode(["address", "uint256", *_TERMS],
               [token, amount, contract, kind, statement, recipient, timelock])


def deposit_token_permit_data(token: str, amount: int, contract: bytes, kind: int,
                              statement: bytes, recipient: str, timelock: int, deadline: int,
                              v: int, r: bytes, s: bytes) -> bytes:
    return _selector("deposit_token_permit(address,uint256,bytes32,uint8,bytes,address,uint256,"
                     "uint256,uint8,bytes32,bytes32)") + encode(
        ["address", "uint256", *_TERMS, "uint256", "uint8", "bytes32", "bytes32"],
        [token, amount, contract, kind, statement, recipient, timelock, deadline, v, r, s])


def claim_data(lock: bytes, secret: bytes) -> bytes:
    return _selector("claim(bytes32,bytes32)") + encode(["bytes32", "bytes32"], [lock, secret])


def refund_data(lock: bytes) -> bytes:
    return _selector("refund(bytes32)") + encode(["bytes32"], [lock])


def locks_data(lock: bytes) -> bytes:
    return _selector("locks(bytes32)") + encode(["bytes32"], [lock])


@dataclass(frozen=True, slots=True)
class OnChainLock:
    """One lock as the escrow's storage holds it (status None: no such lock)."""

    contract: bytes
    depositor: str
    recipient: str
    token: str  # NATIVE for ether
    amount: int
    kind: str | None
    statement: bytes
    point_address: str
    timelock: int
    deposited_block: int
    status: str | None
    secret: bytes | None = field(repr=False)


def decode_lock(raw: bytes) -> OnChainLock:
    """Decode the `locks(id)` getter's answer; ValueError for anything malformed."""
    try:
        (row,) = decode([_LOCK_TUPLE], raw)
    except Exception as exc:  # eth-abi raises its own hierarchy for short or odd data
        raise ValueError(f"not a lock record: {type(exc).__name__}") from None
    (contract, depositor, recipient, token, amount, kind, statement, point_address, timelock,
     block, status, secret) = row
    if status not in STATUS_NAMES:
        raise ValueError("lock record has an unknown status")
    return OnChainLock(contract=contract, depositor=to_checksum_address(depositor),
                       recipient=to_checksum_address(recipient),
                       token=to_checksum_address(token), amount=amount,
                       kind=KIND_NAMES.get(kind), statement=statement,
                       point_address=to_checksum_address(point_address), timelock=timelock,
                       deposited_block=block, status=STATUS_NAMES[status],
                       secret=secret if STATUS_NAMES[status] == "claimed" else None)
