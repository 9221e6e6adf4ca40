# pragma version 0.4.3
"""
@title A token that answers false instead of reverting (tests only)
@notice transfer and transferFrom move nothing and return false; balances and allowances
        look like any token's, so only the answer tells the caller that nothing moved.
"""

decimals: public(uint8)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@deploy
def __init__():
    self.decimals = 6


@external
def mint(to: address, amount: uint256):
    self.balanceOf[to] += amount


@external
def transfer(receiver: address, amount: uint256) -> bool:
    return False


@external
def transferFrom(sender: address, receiver: address, amount: uint256) -> bool:
    return False


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    return True
