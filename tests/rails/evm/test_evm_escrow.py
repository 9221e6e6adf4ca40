"""The escrow contract on a real anvil: the shipped bytes, the point-lock construction, and the
deposit / claim / refund rules enforced by the chain itself (transactions sent past the
wallet's own checks, so it is the contract that refuses)."""

from __future__ import annotations

import json
from pathlib import Path

import coincurve
import pytest
from eth_abi import encode
from eth_utils import keccak, to_checksum_address
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.secp import N
from tclk_tui.rails.evm import address_of_key, artifact
from tclk_tui.rails.evm.account import Account
from tclk_tui.rails.evm.build import ARTIFACT, SHIPPED, SOURCE, artifact_path, compile_contract
from tclk_tui.rails.evm.escrow import claim_data, deposit_data, lock_id, locks_data, refund_data
from tests.rails.evm.chain import ETHER, fresh_key, hash_pair, point_pair, public_key

GX = 0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798
GY = 0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8


TEST_CONTRACTS = Path(__file__).resolve().parent / "contracts"


@pytest.mark.parametrize("source", [*SHIPPED, *sorted(TEST_CONTRACTS.glob("*.vy"))],
                         ids=lambda path: path.name)
def test_each_shipped_artifact_is_what_the_pinned_vyper_makes_of_its_source(source):
    shipped = json.loads(artifact_path(source).read_text(encoding="utf-8"))
    rebuilt = compile_contract(source)
    assert rebuilt["bytecode"] == shipped["bytecode"]
    assert rebuilt["bytecode_runtime"] == shipped["bytecode_runtime"]
    assert rebuilt["abi"] == shipped["abi"]
    if source == SOURCE:
        assert artifact_path(source) == ARTIFACT
        assert artifact().runtime.hex() == shipped["bytecode_runtime"][2:]


def test_the_generator_has_even_y_so_ecrecover_takes_v_27():
    assert GY % 2 == 0
    assert coincurve.PublicKey.from_point(GX, GY).format(compressed=True)[0] == 2


def _ecrecover_model(y: int) -> bytes:
    """What the precompile computes for (hash=0, v=27, r=Gx, s=Gx*y mod n): r^-1 (s R - 0 G)
    with R = G, done with libsecp256k1's own recovery on a zero message hash."""
    s = GX * y % N
    signature = GX.to_bytes(32, "big") + s.to_bytes(32, "big") + b"\x00"  # recid 0 = even R
    return coincurve.PublicKey.from_signature_and_message(signature, b"\x00" * 32,
                                                          hasher=None).format(compressed=True)


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=N - 1))
def test_recovery_with_r_gx_and_s_gx_y_yields_y_g(y):
    assert _ecrecover_model(y) == coincurve.PrivateKey(y.to_bytes(32, "big")).public_key.format()


async def test_the_chains_ecrecover_agrees_with_coincurve_on_the_construction(chain):
    for _ in range(5):
        y = int.from_bytes(fresh_key(), "big")
        s = GX * y % N
        call = (b"\x00" * 32 + (27).to_bytes(32, "big") + GX.to_bytes(32, "big")
                + s.to_bytes(32, "big"))
        raw = await chain.node.call("eth_call", {"to": "0x" + "00" * 19 + "01",
                                                 "data": "0x" + call.hex()}, "latest")
        recovered = to_checksum_address("0x" + raw[-40:])
        expected = coincurve.PrivateKey(y.to_bytes(32, "big")).public_key.format(False)
        assert recovered == to_checksum_address(keccak(expected[1:])[12:])
        assert recovered == address_of_key(public_key(y.to_bytes(32, "big")))
        # v = 28 names the other R (odd y): it recovers a different point.
        odd = call[:32] + (28).to_bytes(32, "big") + call[64:]
        other = await chain.node.call("eth_call", {"to": "0x" + "00" * 19 + "01",
                                                   "data": "0x" + odd.hex()}, "latest")
        assert to_checksum_address("0x" + other[-40:]) != recovered


def test_the_lock_id_is_keccak_of_the_abi_encoded_terms():
    contract, statement = b"\x11" * 32, b"\x22" * 32
    recipient, depositor = "0x" + "33" * 20, "0x" + "44" * 20
    token = "0x" + "55" * 20
    expected = keccak(encode(["bytes32", "uint8", "bytes", "address", "uint256", "address",
                              "address"],
                             [contract, 0, statement, recipient, 1234, depositor, token]))
    assert lock_id(contract, 0, statement, recipient, 1234, depositor, token) == expected
    # An ether lock's token is the empty address: the id still commits to it.
    ether = keccak(encode(["bytes32", "uint8", "bytes", "address", "uint256", "address",
                           "address"],
                          [contract, 0, statement, recipient, 1234, depositor, "0x" + "00" * 20]))
    assert lock_id(contract, 0, statement, recipient, 1234, depositor) == ether != expected


class Raw:
    """Sends escrow transactions directly, past every check the wallet's rail would make."""

    def __init__(self, chain, key: bytes) -> None:
        self.chain, self.account = chain, Account.from_key(key)

    async def send(self, data: bytes, value: int = 0, gas: int = 400_000,
                   to: str | None = None) -> dict:
        node = self.chain.node
        nonce = int(await node.call("eth_getTransactionCount", self.account.address,
                                    "pending"), 16)
        signed = self.account.sign_transaction({
            "type": 2, "chainId": self.chain.anvil.chain_id, "nonce": nonce,
            "to": to or self.chain.escrow, "value": value, "gas": gas, "data": data,
            "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 10**9})
        tx_hash = await node.call("eth_sendRawTransaction",
                                  "0x" + bytes(signed.raw_transaction).hex())
        return await self.chain.receipt(tx_hash)

    async def deposit(self, kind: int, statement: str, recipient: str, timelock: int,
                      value: int, contract: bytes = b"\x01" * 32) -> tuple[dict, bytes]:
        raw = bytes.fromhex(statement[2:])
        receipt = await self.send(deposit_data(contract, kind, raw, recipient, timelock), value)
        return receipt, lock_id(contract, kind, raw, recipient, timelock, self.account.address)


async def _funded(chain, wei: int = 10 * ETHER) -> Raw:
    key = fresh_key()
    raw = Raw(chain, key)
    await chain.fund(raw.account.address, wei)
    return raw


async def _status(chain, lock: bytes) -> int:
    out = await chain.node.eth_call(chain.escrow, "0x" + locks_data(lock).hex())
    return int.from_bytes(out[32 + 10 * 32: 32 + 11 * 32], "big")


async def _balance(chain, address: str) -> int:
    return await chain.node.balance(address)


@pytest.mark.parametrize("kind", ["hash", "point"])
async def test_claim_pays_the_recipient_exactly_and_publishes_the_secret(chain, kind):
    payer, claimer = await _funded(chain), await _funded(chain)
    recipient = Account.create().address
    secret, statement = hash_pair() if kind == "hash" else point_pair()
    timelock = await chain.now_s() + 600
    receipt, lock = await payer.deposit(0 if kind == "hash" else 1, statement, recipient,
                                        timelock, 12345)
    assert receipt["status"] == "0x1"
    assert await _balance(chain, chain.escrow) == 12345
    receipt = await claimer.send(claim_data(lock, bytes.fromhex(secret[2:])))
    assert receipt["status"] == "0x1"
    assert await _balance(chain, recipient) == 12345
    assert await _balance(chain, chain.escrow) == 0
    (log,) = receipt["logs"]
    assert log["data"] == secret.lower()
    # No second claim, no refund of a claimed lock.
    again = await claimer.send(claim_data(lock, bytes.fromhex(secret[2:])))
    assert again["status"] == "0x0"
    await chain.advance(700)
    refund = await payer.send(refund_data(lock))
    assert refund["status"] == "0x0"
    assert await _balance(chain, recipient) == 12345


@pytest.mark.parametrize("kind", ["hash", "point"])
async def test_a_wrong_secret_does_not_open_the_lock(chain, kind):
    payer = await _funded(chain)
    _secret, statement = hash_pair() if kind == "hash" else point_pair()
    other, _ = hash_pair() if kind == "hash" else point_pair()
    receipt, lock = await payer.deposit(0 if kind == "hash" else 1, statement,
                                        Account.create().address, await chain.now_s() + 600, 1)
    assert receipt["status"] == "0x1"
    bad = await payer.send(claim_data(lock, bytes.fromhex(other[2:])))
    assert bad["status"] == "0x0"
    assert await _status(chain, lock) == 1


async def test_a_point_witness_out_of_range_is_refused_even_when_it_reduces_to_y(chain):
    payer = await _funded(chain)
    secret, statement = point_pair()
    y = int(secret, 16)
    receipt, lock = await payer.deposit(1, statement, Account.create().address,
                                        await chain.now_s() + 600, 1)
    assert receipt["status"] == "0x1"
    zero = await payer.send(claim_data(lock, b"\x00" * 32))
    assert zero["status"] == "0x0"
    if y + N < 2**256:
        alias = await payer.send(claim_data(lock, (y + N).to_bytes(32, "big")))
        assert alias["status"] == "0x0"
    ok = await payer.send(claim_data(lock, bytes.fromhex(secret[2:])))
    assert ok["status"] == "0x1"


async def test_claim_after_the_timelock_reverts_and_refund_before_it_reverts(chain):
    payer = await _funded(chain)
    secret, statement = hash_pair()
    timelock = await chain.now_s() + 300
    receipt, lock = await payer.deposit(0, statement, Account.create().address, timelock, 777)
    assert receipt["status"] == "0x1"
    early = await payer.send(refund_data(lock))
    assert early["status"] == "0x0"
    await chain.advance(301)
    late = await payer.send(claim_data(lock, bytes.fromhex(secret[2:])))
    assert late["status"] == "0x0"
    before = await _balance(chain, payer.account.address)
    refund = await payer.send(refund_data(lock))
    assert refund["status"] == "0x1"
    fee = int(refund["gasUsed"], 16) * int(refund["effectiveGasPrice"], 16)
    assert await _balance(chain, payer.account.address) == before + 777 - fee
    twice = await payer.send(refund_data(lock))
    assert twice["status"] == "0x0"


async def test_deposits_the_contract_refuses(chain):
    payer = await _funded(chain)
    _, statement = hash_pair()
    now = await chain.now_s()
    recipient = Account.create().address
    cases = [
        (0, statement, recipient, now + 600, 0),  # nothing to lock
        (0, statement, "0x" + "00" * 20, now + 600, 1),  # no recipient
        (0, statement, recipient, now - 1, 1),  # timelock passed
        (2, statement, recipient, now + 600, 1),  # unknown kind
        (1, "0x02" + "00" * 32, recipient, now + 600, 1),  # x = 0 is not on the curve
        (1, "0x04" + "11" * 32, recipient, now + 600, 1),  # not compressed
        (0, "0x" + "11" * 33, recipient, now + 600, 1),  # hash statement of 33 bytes
    ]
    for kind, stmt, to, timelock, value in cases:
        receipt, _ = await payer.deposit(kind, stmt, to, timelock, value)
        assert receipt["status"] == "0x0", (kind, stmt, to, timelock, value)
    receipt, _ = await payer.deposit(0, statement, recipient, now + 600, 1)
    assert receipt["status"] == "0x1"
    again, _ = await payer.deposit(0, statement, recipient, now + 600, 1)
    assert again["status"] == "0x0"  # the same id twice


async def test_the_deposit_records_the_point_address_the_chain_derived(chain):
    payer = await _funded(chain)
    secret, statement = point_pair()
    _, lock = await payer.deposit(1, statement, Account.create().address,
                                  await chain.now_s() + 600, 5)
    out = await chain.node.eth_call(chain.escrow, "0x" + locks_data(lock).hex())
    stored = to_checksum_address(out[32 + 7 * 32 + 12: 32 + 8 * 32])
    assert stored == address_of_key(statement)
    assert stored == address_of_key(public_key(bytes.fromhex(secret[2:])))


ATTACKER = """
# pragma version 0.4.3
target: public(address)
lock: public(bytes32)
secret: public(bytes32)
reentered: public(bool)
calls: public(uint256)


@deploy
def __init__(target: address):
    self.target = target


@external
def arm(lock: bytes32, secret: bytes32):
    self.lock = lock
    self.secret = secret


@external
@payable
def __default__():
    # Paid by the escrow: try to claim the same lock again before the first claim returns.
    self.calls += 1
    ok: bool = raw_call(self.target, abi_encode(self.lock, self.secret,
                        method_id=method_id("claim(bytes32,bytes32)")), revert_on_failure=False)
    self.reentered = ok
"""


async def test_a_recipient_that_calls_back_cannot_claim_twice(chain):
    from vyper.compiler import compile_code

    out = compile_code(ATTACKER, output_formats=["bytecode"])
    payer = await _funded(chain)
    code = bytes.fromhex(out["bytecode"][2:]) + encode(["address"], [chain.escrow])
    node = chain.node
    nonce = int(await node.call("eth_getTransactionCount", payer.account.address, "pending"), 16)
    signed = payer.account.sign_transaction({
        "type": 2, "chainId": chain.anvil.chain_id, "nonce": nonce, "value": 0,
        "gas": 1_000_000, "data": code, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 10**9})
    deployed = await chain.receipt(await node.call(
        "eth_sendRawTransaction", "0x" + bytes(signed.raw_transaction).hex()))
    attacker = to_checksum_address(deployed["contractAddress"])
    secret, statement = hash_pair()
    receipt, lock = await payer.deposit(0, statement, attacker, await chain.now_s() + 600, 5555)
    assert receipt["status"] == "0x1"
    arm = keccak(text="arm(bytes32,bytes32)")[:4] + encode(["bytes32", "bytes32"],
                                                            [lock, bytes.fromhex(secret[2:])])
    assert (await payer.send(arm, to=attacker))["status"] == "0x1"
    claim = await payer.send(claim_data(lock, bytes.fromhex(secret[2:])))
    assert claim["status"] == "0x1"
    assert await _balance(chain, attacker) == 5555  # paid once, exactly
    assert await _balance(chain, chain.escrow) == 0

    def getter(name: str) -> str:
        return "0x" + keccak(text=f"{name}()")[:4].hex()

    calls = await node.eth_call(attacker, getter("calls"))
    reentered = await node.eth_call(attacker, getter("reentered"))
    assert int.from_bytes(calls, "big") == 1  # the callback ran
    assert int.from_bytes(reentered, "big") == 0  # and its second claim was refused
