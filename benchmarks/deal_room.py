"""A new record in a long deal room: the fold's work for one record, beside the full re-fold it
replaced and one Ed25519 check (the floor of a record not checked before).

Run: python3 benchmarks/deal_room.py [--records 20000] [--new 200]

The room is `benchmarks/protocol.py`'s synthetic deal (offer and accept on the board, a lock,
then heartbeats from both parties, every signature real), built before any clock starts. The
figures, each the median over `--new` records added one at a time at the room's end:

- full re-fold: `fold_transcript` of the whole room again for one new record (what a deal did
  before), at 10 records, 1,000 and the room's size (one run each: it is the slow case);
- running fold, record checked: `RunningFold.append` of a record whose signature it checks;
- running fold, export's record: the same for a record the venue client has verified already
  (the deal room's own path: `RoomSync` hands a deal only verified records);
- the deal: `DealSession.ingest_room` of one new verified record, as the follower calls it
  (the fold, the record kept in venue order, the event saying the deal moved).

CPU work on one thread; the load average is printed beside it. Figures only; nothing here
asserts a speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nacl.bindings import crypto_sign_open
from protocol import synthetic_transcript  # benchmarks/protocol.py, beside this script

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.events import EventBus
from tclk_tui.protocol.transcript import (
    RunningFold,
    TranscriptRecord,
    fold_transcript,
    signed_message,
)

TARGET_MS = 1.0


@dataclass
class _Ctx:
    """Only what a deal reads while it folds (its DID, and the bus its events go to)."""

    did: str
    events: EventBus = field(default_factory=EventBus)
    now_ms: Callable[[], int] = lambda: 0


def _each_ms(work: Callable[[TranscriptRecord], object], records: list[Any]) -> float:
    samples = []
    for record in records:
        start = time.perf_counter()
        work(record)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _verify_ms(records: list[Any]) -> float:
    import base64

    from tclk_tui.protocol.didkey import public_key_from_did_key

    prepared = [(base64.urlsafe_b64decode(r.signature + "==")
                 + signed_message(r.room, r.nonce, r.line), public_key_from_did_key(r.sender))
                for r in records]
    return _each_ms(lambda item: crypto_sign_open(*item), prepared)  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--new", type=int, default=200)
    args = parser.parse_args()
    size, new = args.records, args.new
    records = synthetic_transcript(size + 3 * new)
    room, fresh = records[:size], records[size:]
    print(f"a deal room of {size:,} records (offer and accept on the board, a lock, "
          f"heartbeats); {new} new records added one at a time, medians")

    for count in sorted({10, 1000, size}):
        start = time.perf_counter()
        fold_transcript(records[:count + 1])
        print(f"full re-fold for one new record at {count:>6,} records: "
              f"{(time.perf_counter() - start) * 1000:9.3f} ms")

    running = RunningFold(room)
    checked = _each_ms(running.append, fresh[:new])
    vouched = _each_ms(lambda r: running.append(r, verified=True), fresh[new:2 * new])
    deal = DealSession(_Ctx(did=room[0].sender), room[0].line, "payer",  # type: ignore[arg-type]
                       room[0], board_records=[room[1]], room_records=list(room[2:]))
    ingest = _each_ms(lambda r: deal.ingest_room([r], verified=True), fresh[2 * new:])
    floor = _verify_ms(fresh[:new])
    for name, took in (("running fold, record checked", checked),
                       ("running fold, export's record", vouched),
                       ("the deal: ingest_room of a verified record", ingest)):
        print(f"{name:44s} {took:9.3f} ms  (target < {TARGET_MS} ms: "
              f"{'met' if took < TARGET_MS else 'MISSED'})")
    print(f"{'one Ed25519 check (libsodium alone), the floor':44s} {floor:9.3f} ms")
    assert deal.state.status == "locked" and len(deal.room_records) == size - 2 + new
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
