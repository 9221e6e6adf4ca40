"""Pattern-4 sealing on one core: mailbox deliveries sealed+opened/s, room lines
encrypted+decrypted/s, and the line length a full-size piece of plaintext takes.

Run: python3 benchmarks/e2e.py [--seconds 2]
Figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from tclk_tui.technocore.e2e import (
    MAX_PLAIN_BYTES,
    decrypt_line,
    encrypt_line,
    new_channel,
    open_channel,
    seal_channel,
    x25519_public,
)


def rate(work: Callable[[], object], seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        work()
        count += 1
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    static = os.urandom(32)
    public = x25519_public(static)
    channel = new_channel()
    sealed = rate(lambda: open_channel(seal_channel(public, channel), static), args.seconds)
    print(f"seal+open a mailbox delivery: {sealed:,.0f}/s")
    small = "tclk1 " + "x" * 400
    lines = rate(lambda: decrypt_line(channel.key, encrypt_line(channel.key, small)),
                 args.seconds)
    print(f"encrypt+decrypt a 406-byte line: {lines:,.0f}/s")
    full = "x" * MAX_PLAIN_BYTES
    print(f"a {MAX_PLAIN_BYTES}-byte piece seals to {len(encrypt_line(channel.key, full))} "
          f"characters (venue cap 4096); a delivery line is "
          f"{len(seal_channel(public, channel))} characters")


if __name__ == "__main__":
    main()
