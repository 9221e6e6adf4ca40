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
