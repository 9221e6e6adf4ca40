# pragma version 0.4.3
"""
@title The deposit probe (never deployed)
@notice Runs only inside an eth_call, as the code of the payer's own account (a state
        override), so the token sees the payer itself approve the escrow and the escrow sees the
        payer deposit: the approve and the deposit a token lock would send, simulated together
        before either is sent. A token that takes a fee on transfer, answers false, or refuses
        the approve makes the call revert with the escrow's (or the token's) reason. A node that
        cannot override state never runs this code (a call to an account without code answers
        nothing), and `ping` tells the two apart.
"""

PROBED: constant(bytes32) = keccak256("tclk-tui/v1/deposit-probe")


@pure
@external
def ping() -> bytes32:
    return PROBED


@external
def approve_and_deposit(token: address, escrow: address, amount: uint256,
                        deposit: Bytes[1024]) -> bytes32:
    """
    @notice Approve exactly `amount` for the escrow, then make the deposit (its calldata as the
            wallet would send it); revert with the first refusal.
    """
    response: Bytes[32] = raw_call(
        token, abi_encode(escrow, amount, method_id=method_id("approve(address,uint256)")),
        max_outsize=32)
    if len(response) > 0:
        assert len(response) == 32 and convert(response, uint256) == 1, "token returned false"
    raw_call(escrow, deposit)
    return PROBED
