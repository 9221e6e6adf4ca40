# pragma version 0.4.3
"""
@title tclk/1 HTLC escrow (evm-htlc)
@notice Holds ether, or an ERC-20 token's units, under one tclk/1 contract's lock until the
        recipient claims it with the secret before the timelock, or the depositor takes it
        back at or after the timelock. A token deposit pulls exactly the amount with
        transferFrom (after an allowance, or an EIP-2612 permit in the same call) and is
        refused when the escrow's balance does not grow by exactly that amount (fee-on-transfer
        and rebasing tokens), so a claim or refund can always pay back what was locked.
        Hash locks open with a 32-byte preimage whose sha256 is the statement; point locks open
        with the scalar y whose y*G is the 33-byte compressed statement Y. A claim publishes the
        secret in the Claimed event and in storage, so a payer learns it from the chain alone.
"""

# Lock kinds, as tclk/1 names them.
HASH: constant(uint8) = 0
POINT: constant(uint8) = 1

# Lock status.
EMPTY: constant(uint8) = 0
LOCKED: constant(uint8) = 1
CLAIMED: constant(uint8) = 2
REFUNDED: constant(uint8) = 3

# secp256k1: the field prime, the group order, the generator's x (its y is even).
P: constant(uint256) = 115792089237316195423570985008687907853269984665640564039457584007908834671663
N: constant(uint256) = 115792089237316195423570985008687907852837564279074904382605163141518161494337
GX: constant(uint256) = 55066263022277343669578718895168534326250603453777594175500187360389116729240
# (P + 1) / 4: P = 3 mod 4, so a square root of a is a ** SQRT_EXP mod P.
SQRT_EXP: constant(uint256) = 28948022309329048855892746252171976963317496166410141009864396001977208667916
MODEXP: constant(address) = 0x0000000000000000000000000000000000000005


interface ERC20:
    def balanceOf(owner: address) -> uint256: view


struct Lock:
    contract_id: bytes32
    depositor: address
    recipient: address
    # The ERC-20 token the amount is counted in; the empty address for ether.
    token: address
    amount: uint256
    kind: uint8
    statement: Bytes[33]
    # For a point lock, the Ethereum address of Y, which is what ecrecover can compare.
    point_address: address
    timelock: uint256
    # The block the deposit landed in, so a reader can count confirmations without logs.
    deposited_block: uint256
    status: uint8
    secret: bytes32


event Deposited:
    id: indexed(bytes32)
    contract_id: indexed(bytes32)
    depositor: address
    recipient: address
    # The ERC-20 token the amount is counted in; the empty address for ether.
    token: address
    amount: uint256
    kind: uint8
    statement: Bytes[33]
    timelock: uint256


event Claimed:
    id: indexed(bytes32)
    contract_id: indexed(bytes32)
    secret: bytes32


event Refunded:
    id: indexed(bytes32)
    contract_id: indexed(bytes32)


locks: public(HashMap[bytes32, Lock])


@pure
@external
def lock_id(contract_id: bytes32, kind: uint8, statement: Bytes[33], recipient: address,
            timelock: uint256, depositor: address, token: address) -> bytes32:
    """
    @notice The id a deposit with these terms gets: the depositor is part of it, so nobody can
            squat on another payer's id by depositing first, and so is the token (the empty
            address for ether), so a lock in one token never answers for another.
    """
    return self._lock_id(contract_id, kind, statement, recipient, timelock, depositor, token)


@pure
@internal
def _lock_id(contract_id: bytes32, kind: uint8, statement: Bytes[33], recipient: address,
             timelock: uint256, depositor: address, token: address) -> bytes32:
    return keccak256(abi_encode(contract_id, kind, statement, recipient, timelock, depositor,
                                token))


@view
@internal
def _point_address(statement: Bytes[33]) -> address:
    """The address of the compressed point Y (y recovered from x with the modexp precompile)."""
    assert len(statement) == 33, "point statement must be 33 bytes"
    prefix: uint256 = convert(slice(statement, 0, 1), uint256)
    assert prefix == 2 or prefix == 3, "point statement must be compressed"
    x: uint256 = convert(extract32(statement, 1), uint256)
    assert x < P, "point x out of range"
    rhs: uint256 = uint256_addmod(uint256_mulmod(uint256_mulmod(x, x, P), x, P), 7, P)
    out: Bytes[32] = raw_call(
        MODEXP,
        concat(convert(32, bytes32), convert(32, bytes32), convert(32, bytes32),
               convert(rhs, bytes32), convert(SQRT_EXP, bytes32), convert(P, bytes32)),
        max_outsize=32,
        is_static_call=True,
    )
    y: uint256 = convert(convert(out, bytes32), uint256)
    assert uint256_mulmod(y, y, P) == rhs, "point is not on the curve"
    if y % 2 != prefix - 2:
        y = P - y
    digest: bytes32 = keccak256(concat(convert(x, bytes32), convert(y, bytes32)))
    return convert(convert(slice(digest, 12, 20), bytes20), address)


@internal
def _open(contract_id: bytes32, kind: uint8, statement: Bytes[33], recipient: address,
          timelock: uint256, token: address, amount: uint256) -> bytes32:
    """Check the terms and record the lock (the caller moves the value in)."""
    assert amount > 0, "nothing to lock"
    assert recipient != empty(address), "no recipient"
    assert timelock > block.timestamp, "timelock already passed"
    point_address: address = empty(address)
    if kind == HASH:
        assert len(statement) == 32, "hash statement must be 32 bytes"
    elif kind == POINT:
        point_address = self._point_address(statement)
    else:
        raise "unknown lock kind"
    id: bytes32 = self._lock_id(contract_id, kind, statement, recipient, timelock, msg.sender,
                                token)
    assert self.locks[id].status == EMPTY, "lock id already used"
    self.locks[id] = Lock(
        contract_id=contract_id, depositor=msg.sender, recipient=recipient, token=token,
        amount=amount, kind=kind, statement=statement, point_address=point_address,
        timelock=timelock, deposited_block=block.number, status=LOCKED, secret=empty(bytes32))
    log Deposited(id=id, contract_id=contract_id, depositor=msg.sender, recipient=recipient,
                  token=token, amount=amount, kind=kind, statement=statement, timelock=timelock)
    return id


@internal
def _token_call(token: address, data: Bytes[100]):
    """Call a token and accept only a revert-free answer that is empty or true: a token that
    returns false instead of reverting has moved nothing and must not count as paid."""
    response: Bytes[32] = raw_call(token, data, max_outsize=32)
    if len(response) > 0:
        assert len(response) == 32 and convert(response, uint256) == 1, "token returned false"


@internal
def _pull(token: address, amount: uint256):
    """Take exactly `amount` of `token` from the caller, or revert."""
    assert token.is_contract, "token has no code"
    before: uint256 = staticcall ERC20(token).balanceOf(self)
    self._token_call(token, abi_encode(msg.sender, self, amount,
                                       method_id=method_id("transferFrom(address,address,uint256)")))
    after: uint256 = staticcall ERC20(token).balanceOf(self)
    assert after == before + amount, "token balance changed by another amount (fee-on-transfer or rebasing token)"


@internal
def _pay(token: address, to: address, amount: uint256):
    if token == empty(address):
        raw_call(to, b"", value=amount)
    else:
        self._token_call(token, abi_encode(to, amount,
                                           method_id=method_id("transfer(address,uint256)")))


@payable
@external
@nonreentrant
def deposit(contract_id: bytes32, kind: uint8, statement: Bytes[33], recipient: address,
            timelock: uint256) -> bytes32:
    """
    @notice Lock msg.value (ether) for recipient under statement until timelock (unix seconds).
    """
    return self._open(contract_id, kind, statement, recipient, timelock, empty(address),
                      msg.value)


@external
@nonreentrant
def deposit_token(token: address, amount: uint256, contract_id: bytes32, kind: uint8,
                  statement: Bytes[33], recipient: address, timelock: uint256) -> bytes32:
    """
    @notice Lock `amount` units of `token`, pulled from the caller under its allowance.
    """
    id: bytes32 = self._open(contract_id, kind, statement, recipient, timelock, token, amount)
    self._pull(token, amount)
    return id


@external
@nonreentrant
def deposit_token_permit(token: address, amount: uint256, contract_id: bytes32, kind: uint8,
                         statement: Bytes[33], recipient: address, timelock: uint256,
                         deadline: uint256, v: uint8, r: bytes32, s: bytes32) -> bytes32:
    """
    @notice As deposit_token, with the allowance given by the caller's EIP-2612 permit in the
            same transaction. A permit someone else submitted first is no harm: the allowance
            is then already there, and the pull decides.
    """
    permitted: bool = raw_call(
        token, abi_encode(msg.sender, self, amount, deadline, v, r, s,
                          method_id=method_id("permit(address,address,uint256,uint256,uint8,bytes32,bytes32)")),
        revert_on_failure=False)
    id: bytes32 = self._open(contract_id, kind, statement, recipient, timelock, token, amount)
    self._pull(token, amount)
    return id


@view
@internal
def _opens(held: Lock, secret: bytes32) -> bool:
    if held.kind == HASH:
        return sha256(secret) == extract32(held.statement, 0)
    y: uint256 = convert(secret, uint256)
    if y == 0 or y >= N:
        return False
    # ecrecover computes r^-1 (s R - z G) for the point R with x = r and the parity v names.
    # With z = 0, R = G (x = GX, even y: v = 27) and s = GX * y mod n this is y G, and the
    # precompile hands back y G's address.
    return ecrecover(empty(bytes32), 27, GX, uint256_mulmod(GX, y, N)) == held.point_address


@external
@nonreentrant
def claim(id: bytes32, secret: bytes32):
    """
    @notice Pay the recipient (ether or the token), strictly before the timelock, with a secret
            that opens the lock.
    """
    held: Lock = self.locks[id]
    assert held.status == LOCKED, "not locked"
    assert block.timestamp < held.timelock, "timelock passed"
    assert self._opens(held, secret), "secret does not open the statement"
    self.locks[id].status = CLAIMED
    self.locks[id].secret = secret
    log Claimed(id=id, contract_id=held.contract_id, secret=secret)
    self._pay(held.token, held.recipient, held.amount)


@external
@nonreentrant
def refund(id: bytes32):
    """
    @notice Return the deposit to the depositor at or after the timelock.
    """
    held: Lock = self.locks[id]
    assert held.status == LOCKED, "not locked"
    assert block.timestamp >= held.timelock, "timelock not reached"
    self.locks[id].status = REFUNDED
    log Refunded(id=id, contract_id=held.contract_id)
    self._pay(held.token, held.depositor, held.amount)
