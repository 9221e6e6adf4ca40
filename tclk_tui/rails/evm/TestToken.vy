# pragma version 0.4.3
"""
@title A test ERC-20 token for the demo, the tests and the benchmark (never a real asset)
@notice A plain ERC-20 with the decimals it is deployed with, EIP-2612 permit when deployed
        with `permits` (otherwise DOMAIN_SEPARATOR and permit revert, as on a token without
        them), and a `mint` anyone may call: it is worth nothing, by construction.
"""

name: public(String[32])
symbol: public(String[16])
decimals: public(uint8)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])
nonces: public(HashMap[address, uint256])
permits: public(bool)

DOMAIN_TYPEHASH: constant(bytes32) = keccak256(
    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
PERMIT_TYPEHASH: constant(bytes32) = keccak256(
    "Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")


event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256


event Approval:
    owner: indexed(address)
    spender: indexed(address)
    value: uint256


@deploy
def __init__(name: String[32], symbol: String[16], decimals: uint8, permits: bool):
    self.name = name
    self.symbol = symbol
    self.decimals = decimals
    self.permits = permits


@external
def mint(to: address, amount: uint256):
    self.balanceOf[to] += amount
    self.totalSupply += amount
    log Transfer(sender=empty(address), receiver=to, value=amount)


@internal
def _move(sender: address, receiver: address, amount: uint256):
    assert self.balanceOf[sender] >= amount, "balance too low"
    self.balanceOf[sender] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=sender, receiver=receiver, value=amount)


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self._move(msg.sender, receiver, amount)
    return True


@external
def transferFrom(sender: address, receiver: address, amount: uint256) -> bool:
    assert self.allowance[sender][msg.sender] >= amount, "allowance too low"
    self.allowance[sender][msg.sender] -= amount
    self._move(sender, receiver, amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log Approval(owner=msg.sender, spender=spender, value=amount)
    return True


@view
@internal
def _domain() -> bytes32:
    return keccak256(abi_encode(DOMAIN_TYPEHASH, keccak256(self.name), keccak256("1"),
                                chain.id, self))


@view
@external
def DOMAIN_SEPARATOR() -> bytes32:
    assert self.permits, "no permit"
    return self._domain()


@external
def permit(owner: address, spender: address, amount: uint256, deadline: uint256, v: uint8,
           r: bytes32, s: bytes32):
    assert self.permits, "no permit"
    assert deadline >= block.timestamp, "permit expired"
    nonce: uint256 = self.nonces[owner]
    digest: bytes32 = keccak256(concat(b"\x19\x01", self._domain(), keccak256(abi_encode(
        PERMIT_TYPEHASH, owner, spender, amount, nonce, deadline))))
    signer: address = ecrecover(digest, v, r, s)
    assert signer != empty(address) and signer == owner, "bad permit signature"
    self.nonces[owner] = nonce + 1
    self.allowance[owner][spender] = amount
    log Approval(owner=owner, spender=spender, value=amount)
