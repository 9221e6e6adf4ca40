"""Starting the app: on a real profile, or on the demo's throwaway profile and local venue.

On a real profile the app attaches to the profile's owner when one runs (a daemon, or another
app), through the control socket; otherwise it owns the profile itself and serves that socket
while it runs. The app and an in-process engine share one asyncio loop (Textual's), so the
wallet is opened inside the app's loop and closed before it ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

ATTACH_WAIT_S = 10.0


def _theme_memory(door: Any) -> tuple[str | None, Callable[[str], None]]:
    """The theme the owner's journal remembers, and how to remember a new one (the `theme`
    command, in the background: a theme that could not be remembered is only not kept)."""
    saving: set[asyncio.Task[Any]] = set()

    async def save(name: str) -> None:
        with contextlib.suppress(Exception):
            await door.run("theme", {"theme": name})

    def remember(name: str) -> None:
        task = asyncio.get_running_loop().create_task(save(name))
        saving.add(task)
        task.add_done_callback(saving.discard)

    return door.theme(), remember


async def _run_app(door: Any, agents: Any = None, *, first_run: bool = False,
                   welcome: str = "") -> int:
    """Run the app over `door` until it quits; its exit status: 0, or non-zero after a crash
    (Textual prints the report and returns, so a shell or a service manager learns of it only
    here)."""
    from tclk_tui.tui.app import TclkApp

    # The board just loaded (up to a whole ring of offers) and lives as long as the app: keep
    # it out of later full garbage collections, which would otherwise stall a repaint.
    gc.freeze()
    from tclk_tui.tui.user_config import keymap_file, user_themes_dir

    theme, remember = _theme_memory(door)
    app = TclkApp(door, theme=theme, on_theme_change=remember, agents=agents,
                  keymap_file=keymap_file(), user_themes_dir=user_themes_dir(),
                  first_run=first_run, welcome=welcome)
    with _quit_on_hangup(app):
        await app.run_async()
    return int(app.return_code or 0)


@contextlib.contextmanager
def _quit_on_hangup(app: Any) -> Iterator[None]:
    """A closed terminal (SIGHUP) or a polite kill (SIGTERM) quits the app as ctrl+q does, so
    whatever its caller opened is closed in order: the wallet and its journal, and the demo's
    throwaway profile, which would otherwise stay behind in the temporary directory. Only while
    the app runs; the daemon, which outlives a terminal, has its own handlers."""
    loop = asyncio.get_running_loop()
    signals = [signal.SIGHUP, signal.SIGTERM] if hasattr(signal, "SIGHUP") else []
    for signum in signals:
        loop.add_signal_handler(signum, app.exit)
    try:
        yield
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)


def run_wallet_app(args: argparse.Namespace, open_wallet: Callable[..., Awaitable[Any]],
                   profile_dir: Path) -> int:
    """Attach to the profile's owner when one runs; else own the profile for as long as the
    app runs, serving the same control socket so other faces attach to this process. Returns
    the app's exit status."""
    return asyncio.run(_attached_or_owner(args, open_wallet, profile_dir))


async def _attached_or_owner(args: argparse.Namespace,
                             open_wallet: Callable[..., Awaitable[Any]],
                             profile_dir: Path) -> int:
    from tclk_tui.daemon.remote import RemoteDoor
    from tclk_tui.engine.errors import ProfileBusy

    remote = RemoteDoor.attach(profile_dir)
    if remote is None:
        try:
            return await _run_owner(args, open_wallet, profile_dir)
        except ProfileBusy:
            # An owner that has not bound its socket yet (starting up): attach once it does.
            remote = await _attach_soon(profile_dir)
            if remote is None:
                raise
    from tclk_tui.agents.remote_desk import RemoteDesk

    remote.start()
    try:
        # The agents' desk lives in the owner, beside its engine; the app answers it there.
        return await _run_app(remote, RemoteDesk.attach(remote))
    finally:
        await remote.close()


async def _attach_soon(profile_dir: Path, within_s: float = ATTACH_WAIT_S) -> Any:
    from tclk_tui.daemon.remote import RemoteDoor

    deadline = asyncio.get_running_loop().time() + within_s
    while asyncio.get_running_loop().time() < deadline:
        remote = RemoteDoor.attach(profile_dir)
        if remote is not None:
            return remote
        await asyncio.sleep(0.1)
    return None


async def _run_owner(args: argparse.Namespace, open_wallet: Callable[..., Awaitable[Any]],
                     profile_dir: Path) -> int:
    """The engine in this process: the agents' desk beside it, and the control socket (with
    the desk's methods, as a daemon serves them) while the app runs."""
    from tclk_tui.agents.service import agent_methods, serving_agents
    from tclk_tui.daemon.logs import remove_logging, setup_logging
    from tclk_tui.daemon.service import held_secrets, serve_wallet
    from tclk_tui.daemon.wire import RpcError
    from tclk_tui.engine.door import LocalDoor

    holder: list[Any] = []
    handler = setup_logging(profile_dir, getattr(args, "log_level", None) or "info",
                            lambda: held_secrets(holder[0]) if holder else ())
    try:
        # The venue is read behind the app: the board is drawn at once and fills as its ring
        # is checked.
        wallet = await open_wallet(args, follow=True, background=True)
        holder.append(wallet)
        freezer = asyncio.ensure_future(_freeze_once_read(wallet))
        try:
            # The profile's agents: the Approvals pane, the audit trail, the mailbox answered.
            async with serving_agents(wallet) as desk, serve_wallet(
                    wallet, profile_dir, extra=agent_methods(desk, RpcError)):
                return await _run_app(LocalDoor(wallet), desk, first_run=wallet.first_run)
        finally:
            freezer.cancel()
            await wallet.close()
    finally:
        remove_logging(handler)


async def _freeze_once_read(wallet: Any) -> None:
    """Once the board's ring is read (up to 20,000 offers, for as long as the app runs), keep
    it out of later full garbage collections, which would otherwise stall a repaint."""
    await wallet.rooms.first_read.wait()
    gc.freeze()


def run_demo_app(rail: str = "paper", asset: str = "ETH") -> int:
    from tclk_tui.demo.session import demo_session
    from tclk_tui.engine.door import LocalDoor

    async def main() -> int:
        async with demo_session(rail=rail, asset=asset) as session, \
                demo_owner(session) as (desk, hint):
            return await _run_app(LocalDoor(session.wallet), desk, welcome=hint)

    return asyncio.run(main())


# An agent the demo grants, so MCP and the Approvals pane can be tried on it: it reads, offers
# and accepts on its own, and every lock or reveal waits for the operator.
DEMO_AGENT = "scout"
DEMO_MANIFEST = """description = "the demo's agent: reads, offers, accepts; asks before money moves"
tools = ["board", "offer", "accept", "status", "deals", "rails", "lock", "reveal", "approval"]
rails = ["{rail}"]
max_open_deals = 3
[approval]
lock = "ask"
reveal = "ask"
"""


def demo_hint(profile_dir: Path) -> str:
    """How to reach the running demo from another terminal: the CLI, and an MCP client."""
    # One export a line: a line the toast wraps is still a whole command when copied.
    where = f"export TCLK_HOME={profile_dir.parent}\nexport TCLK_PROFILE={profile_dir.name}"
    return (f"This demo answers the CLI and agents while it runs. In another terminal run\n"
            f"{where}\nthen `tclk-tui deals --json` (or board, status, offer...); an MCP "
            f"client runs `tclk-tui mcp --agent {DEMO_AGENT}`. Both go away with the demo.")


@contextlib.asynccontextmanager
async def demo_owner(session: Any) -> AsyncIterator[tuple[Any, str]]:
    """Serve the demo profile's control socket and its agents' desk, as an app owning a real
    profile does, so `tclk-tui` commands with the demo's home and profile answer from it."""
    from tclk_tui.agents.manifest import agents_dir
    from tclk_tui.agents.service import agent_methods, serving_agents
    from tclk_tui.daemon.service import serve_wallet
    from tclk_tui.daemon.wire import RpcError

    wallet = session.wallet
    profile_dir = session.directory / wallet.profile
    rail = "evm-htlc" if session.chain is not None else "paper"
    folder = agents_dir(profile_dir)
    folder.mkdir(mode=0o700, exist_ok=True)
    (folder / f"{DEMO_AGENT}.toml").write_text(DEMO_MANIFEST.format(rail=rail),
                                               encoding="utf-8")
    async with serving_agents(wallet) as desk, serve_wallet(
            wallet, profile_dir, extra=agent_methods(desk, RpcError)):
        yield desk, demo_hint(profile_dir)
