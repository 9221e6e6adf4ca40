"""The README's demo, headless: a full deal on a local venue against the scripted agent."""

import io

from tclk_tui.engine.demo import run_headless


async def test_headless_demo_ends_claimed():
    out = io.StringIO()
    status = await run_headless(out)
    text = out.getvalue()
    assert status == "claimed"
    assert "final      claimed" in text
    assert "reveal of the secret (claim)" in text
    assert "127.0.0.1" in text  # loopback only


async def test_demo_headless_command_exits_zero_and_ends_claimed():
    import asyncio
    import sys

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tclk_tui.cli", "demo", "--headless",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(90):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert out.decode().rstrip().endswith("final      claimed")


async def test_the_evm_demo_moves_test_ether_and_shows_balances_before_and_after():
    import re

    out = io.StringIO()
    status = await run_headless(out, timeout_s=60, rail="evm-htlc")
    text = out.getvalue()
    assert status == "claimed", text
    assert "local anvil, chain id 31337" in text
    before = dict(re.findall(r"balance    (you|agent)\s+0x[0-9a-fA-F]{40} before: [0-9.]+ ETH "
                             r"\((\d+) wei\)", text))
    after = dict(re.findall(r"balance    (you|agent)\s+0x[0-9a-fA-F]{40} after:  [0-9.]+ ETH "
                            r"\((\d+) wei\)", text))
    amount = 250000000000000000
    assert int(before["you"]) == int(before["agent"]) == 100 * 10**18
    gas_you = int(before["you"]) + amount - int(after["you"])
    gas_agent = int(before["agent"]) - amount - int(after["agent"])
    assert 0 < gas_you < 10**16 and 0 < gas_agent < 10**16  # only gas besides the amount
    assert "escrow     holds 0 ETH (0 wei)" in text
    assert "amount locked: 0.25 ETH (250000000000000000 wei)" in text


async def test_the_evm_demo_in_usdc_deploys_a_test_token_and_moves_it_to_the_unit():
    import re

    out = io.StringIO()
    status = await run_headless(out, timeout_s=60, rail="evm-htlc", asset="USDC")
    text = out.getvalue()
    assert status == "claimed", text
    assert re.search(r"token      USDC at 0x[0-9a-fA-F]{40} \(a test token of 6 decimals", text)
    assert "payer 25 USDC, hash lock" in text
    units = {(who, when): int(n) for who, when, n in re.findall(
        r"balance    (you|agent)\s+0x[0-9a-fA-F]{40} (before|after):.*?; [0-9.]+ USDC "
        r"\((\d+) units of USDC", text)}
    assert units[("you", "before")] == units[("agent", "before")] == 1000 * 10**6
    assert units[("you", "after")] == 1025 * 10**6  # to the unit: the token pays no gas
    assert units[("agent", "after")] == 975 * 10**6
    assert "+25 USDC" in text and "-25 USDC" in text
    assert "amount locked: 25 USDC (25000000 units of USDC, 6 decimals)" in text
    assert "escrow     holds 0 ETH (0 wei); 0 USDC" in text
