"""Signature checks over a batch of records, on a few threads when the batch is large.

A whole ring (up to ~20,000 records) arrives at start-up and Ed25519 verification dominates its
cost. libsodium is reached through cffi, which releases the GIL for the length of each call, so
chunks verified on separate threads overlap on separate cores; small live batches stay on the
caller's thread, where a pool would cost more than it saves. Results come back in input order,
one per record, exactly as `verify_transcript_record` gives them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from tclk_tui.protocol.transcript import TranscriptRecord, VerifyResult, verify_transcript_record

PARALLEL_VERIFY_MIN = 1024
VERIFY_THREADS = max(1, min(4, os.cpu_count() or 1))


def _verify_chunk(chunk: Sequence[TranscriptRecord]) -> list[VerifyResult]:
    return [verify_transcript_record(record) for record in chunk]


def verify_records(records: Sequence[TranscriptRecord]) -> list[VerifyResult]:
    """`verify_transcript_record` over a batch, in order, in parallel when it pays."""
    if len(records) < PARALLEL_VERIFY_MIN or VERIFY_THREADS == 1:
        return _verify_chunk(records)
    size = -(-len(records) // VERIFY_THREADS)
    chunks = [records[i:i + size] for i in range(0, len(records), size)]
    with ThreadPoolExecutor(max_workers=len(chunks), thread_name_prefix="verify") as pool:
        parts = list(pool.map(_verify_chunk, chunks))
    return [verdict for part in parts for verdict in part]
