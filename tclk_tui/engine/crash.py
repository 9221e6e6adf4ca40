"""Named crash points, so the crash tests can kill a wallet at each step of a deal.

`TCLK_CRASH_AT=<name>` makes the process SIGKILL itself when it reaches that point: no cleanup,
no flush, exactly what a power cut or an OOM kill does. Unset, a crash point costs one lookup.
"""

from __future__ import annotations

import os
import signal

CRASH_ENV = "TCLK_CRASH_AT"

CRASH_POINTS = (
    "after-secret-derived",
    "after-journal",
    "after-post",
    "before-confirm",
    "after-rail-lock",
    "after-rail-claim",
    # The evm-htlc rail: after a transaction is journaled and signed, and after it is sent
    # (before its receipt is journaled).
    "evm-deposit-signed",
    "evm-deposit-sent",
    "evm-claim-signed",
    "evm-claim-sent",
    "evm-refund-signed",
    "evm-refund-sent",
    "evm-approve-signed",
    "evm-approve-sent",
)


def crashpoint(name: str) -> None:
    if os.environ.get(CRASH_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
