# pragma version 0.4.3
"""
@title A fee-on-transfer token (tests only)
@notice Every transfer burns 1% of what is sent, so the receiver gets less than the amount
        named: the escrow must refuse to count it as a lock of that amount.
"""

decimals: public(uint8)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@deploy
def __init__():
    self.decimals = 18


@external
def mint(to: address, amount: uint256):
    self.balanceOf[to] += amount


@internal
def _move(sender: address, receiver: address, amount: uint256):
    assert self.balanceOf[sender] >= amount, "balance too low"
    self.balanceOf[sender] -= amount
    self.balanceOf[receiver] += amount - amount // 100


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
    return True
