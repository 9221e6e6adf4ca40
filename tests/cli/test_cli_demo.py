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
