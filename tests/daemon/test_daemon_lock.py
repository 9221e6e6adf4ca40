"""One owner per profile: the lock, who holds it, and what a second opener is told."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.engine.errors import ProfileBusy
from tclk_tui.engine.wallet import Wallet
from tclk_tui.store.profile_lock import ProfileLock, ProfileLocked, is_locked, owner_pid
from tests.daemon.conftest import make_vault, run_cli


def test_a_second_lock_is_refused_naming_the_owner_and_what_to_do(tmp_path):
    lock = ProfileLock.acquire(tmp_path / "alice")
    try:
        with pytest.raises(ProfileLocked) as refused:
            ProfileLock.acquire(tmp_path / "alice")
        assert refused.value.pid == os.getpid()
        message = str(refused.value)
        assert str(os.getpid()) in message and "tclk-tui daemon stop" in message
        assert "attach" in message
        assert is_locked(tmp_path / "alice") and owner_pid(tmp_path / "alice") == os.getpid()
    finally:
        lock.release()
    assert not is_locked(tmp_path / "alice")
    ProfileLock.acquire(tmp_path / "alice").release()  # free again


def test_the_os_releases_the_lock_of_a_killed_owner(tmp_path):
    profile = tmp_path / "alice"
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, pathlib; from tclk_tui.store.profile_lock import ProfileLock; "
         "ProfileLock.acquire(pathlib.Path(sys.argv[1])); print('held', flush=True); "
         "sys.stdin.read()", str(profile)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        with pytest.raises(ProfileLocked) as refused:
            ProfileLock.acquire(profile)
        assert refused.value.pid == child.pid
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    ProfileLock.acquire(profile).release()  # nothing left behind stops the next owner


async def test_a_second_wallet_on_a_profile_is_refused_before_its_journal_opens(venue,
                                                                                 tmp_path):
    vault = make_vault(tmp_path, "alice")
    first = await Wallet.open("alice", venue_url=venue.url, data_dir=tmp_path, vault=vault,
                              follow=False)
    try:
        with pytest.raises(ProfileBusy) as refused:
            await Wallet.open("alice", venue_url=venue.url, data_dir=tmp_path,
                              vault=make_vault(tmp_path, "alice"), follow=False)
        assert refused.value.pid == os.getpid()
    finally:
        await first.close()
    again = await Wallet.open("alice", venue_url=venue.url, data_dir=tmp_path, vault=vault,
                              follow=False)
    await again.close()


async def test_a_failed_open_leaves_the_profile_free(venue, tmp_path):
    make_vault(tmp_path, "alice")
    wrong = make_vault(tmp_path / "other", "alice")
    first = await Wallet.open("alice", venue_url=venue.url, data_dir=tmp_path,
                              vault=make_vault(tmp_path, "alice"), follow=False)
    await first.close()
    with pytest.raises(Exception, match="not profile alice"):
        await Wallet.open("alice", venue_url=venue.url, data_dir=tmp_path, vault=wrong,
                          follow=False)
    assert not is_locked(tmp_path / "alice")


async def test_a_second_daemon_on_a_profile_is_refused_with_the_owner(daemon):
    code, out, err = await run_cli(daemon.venue_url, daemon.home, "alice", "daemon")
    assert code == 1, (out, err)
    assert f"process {daemon.proc.pid}" in err and "Traceback" not in err


def test_the_lock_file_is_private(tmp_path: Path):
    lock = ProfileLock.acquire(tmp_path / "alice")
    try:
        assert (lock.path.stat().st_mode & 0o777) == 0o600
    finally:
        lock.release()


async def test_every_entry_point_attaches_to_the_running_daemon_or_is_refused(daemon, venue):
    # The CLI answers through the daemon: it never opens the vault (a wrong passphrase is
    # never even read) nor the journal.
    code, out, err = await run_cli(venue.url, daemon.home, "alice", "--json",
                                   "--passphrase-env", "NO_SUCH_VARIABLE", "identity")
    assert code == 0, err
    assert json.loads(out)["profile"] == "alice"
    # The app attaches (a remote wallet on the daemon's socket).
    remote = RemoteDoor.attach(daemon.profile_dir)
    assert remote is not None and remote.owner_pid == daemon.proc.pid
    await remote.close()
    # A second engine in-process (what the demo, the agents' tools or a script would open) is
    # refused, naming the daemon.
    with pytest.raises(ProfileBusy) as refused:
        await Wallet.open("alice", venue_url=venue.url, data_dir=daemon.home,
                          vault=make_vault(daemon.home, "alice"), follow=False)
    assert refused.value.pid == daemon.proc.pid
    assert "tclk-tui daemon stop" in str(refused.value)
