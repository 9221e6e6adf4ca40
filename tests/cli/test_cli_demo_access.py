"""The demo can be looked at: while it runs, the CLI (and an agent) answer from its profile,
with the home and profile the app says on screen when it opens."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys

from tclk_tui.demo.session import demo_session
from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.views import OfferDraft
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.run import DEMO_AGENT, demo_owner
from tests.tui.conftest import wait_for


def environment(hint: str) -> dict[str, str]:
    """The `export ...` the hint says, applied to a copy of this environment."""
    exported = re.findall(r"^export (TCLK_\w+)=(\S+)$", hint, re.MULTILINE)
    assert [name for name, _ in exported] == ["TCLK_HOME", "TCLK_PROFILE"]
    env = dict(os.environ)
    env.pop("TCLK_VENUE", None)
    env.update(exported)
    return env


async def cli(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tclk_tui.cli", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    return proc.returncode or 0, out.decode(), err.decode()


async def test_the_demo_answers_the_cli_and_lists_its_agent_while_it_runs():
    async with demo_session() as session, demo_owner(session) as (desk, hint):
        wallet = session.wallet
        app = TclkApp(LocalDoor(wallet), agents=desk, welcome=hint)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: any("TCLK_HOME=" in n.message
                                              for n in app._notifications),
                           what="the welcome naming the demo's home")
        env = environment(hint)
        assert env["TCLK_HOME"] == str(session.directory)
        offered = await wallet.post_offer(OfferDraft(role="payer", amount="1000", asset="FLOP",
                                                     lock="hash", rails="paper"))
        code, out, err = await cli(env, "deals", "--json")
        assert code == 0, err
        assert offered.deal_id in [d["deal"] for d in json.loads(out)["deals"]]
        code, out, err = await cli(env, "agents", "list", "--json")
        assert code == 0, err
        assert DEMO_AGENT in out
