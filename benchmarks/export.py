"""Reading a whole ring's export: `parse_export` on the body of a 20,000-offer ring, no HTTP.

Run: python3 benchmarks/export.py [--offers 20000] [--runs 3]

The body is the JSONL a venue exports (one signed offer a line, built before any clock starts).
Each figure is the best of `--runs` of one `parse_export` call:

- parse alone: every signature already known (`verified_before`), so no libsodium call;
- parse + verify, on the calling thread only, then on the verify threads;
- parse + verify + decode: as a first open reads the board, each line also decoded beside its
  check (the `while_verifying` hook);
- floor: libsodium alone checking the same signatures on as many threads, nothing else done.

Wall-clock seconds on the machine as it is, CPU seconds of this process beside them (both cores
may be shared). Figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from ingest import ring_records, verify_floor  # benchmarks/ingest.py, beside this script

from tclk_tui.engine.sync.decoded import DecodedLines
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.technocore import verify
from tclk_tui.technocore.records import RoomExport, parse_export, signature_key


def _best(runs: int, read: Callable[[], RoomExport]) -> tuple[float, float, RoomExport]:
    best: tuple[float, float] | None = None
    export = None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        export = read()
        took = (time.perf_counter() - wall, time.process_time() - cpu)
        best = took if best is None or took[0] < best[0] else best
    assert best is not None and export is not None
    return best[0], best[1], export


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    body = b"".join(json.dumps(record, separators=(",", ":")).encode() + b"\n"
                    for record in ring_records(args.offers))
    threads = verify.VERIFY_THREADS
    first = parse_export(OFFER_ROOM, body, 1)
    assert len(first.records) == args.offers and not first.malformed
    known = {signature_key(record.transcript) for record in first.records}

    def decoding() -> RoomExport:
        decoded, fresh = DecodedLines(), set[Any]()
        return parse_export(OFFER_ROOM, body, 1, verified_before=fresh,
                            while_verifying=lambda r: signature_key(r) in fresh
                            or decoded.decode(r.line))

    serial_min = verify.PARALLEL_VERIFY_MIN
    cases: list[tuple[str, Callable[[], RoomExport], int]] = [
        ("parse alone (every signature known)",
         lambda: parse_export(OFFER_ROOM, body, 1, verified_before=known), serial_min),
        ("parse + verify, calling thread only",
         lambda: parse_export(OFFER_ROOM, body, 1), 10**12),
        (f"parse + verify, {threads} threads", lambda: parse_export(OFFER_ROOM, body, 1),
         serial_min),
        (f"parse + verify + decode, {threads} threads", decoding, serial_min),
    ]
    print(f"{args.offers} records, {len(body) / 2**20:.1f} MiB of JSONL; best of {args.runs}")
    for name, read, threshold in cases:
        verify.PARALLEL_VERIFY_MIN = threshold
        try:
            wall, cpu, export = _best(args.runs, read)
        finally:
            verify.PARALLEL_VERIFY_MIN = serial_min
        assert len(export.records) == args.offers
        print(f"    {name:44s} {wall:7.3f} s wall {cpu:7.3f} s CPU "
              f"({wall / args.offers * 1e6:5.1f} us a record)")
    floor = verify_floor(args.offers, threads, args.runs)
    print(f"    {'floor: libsodium alone, ' + str(threads) + ' threads':44s} {floor:7.3f} s wall")


if __name__ == "__main__":
    main()
