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
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType

from tclk_tui.protocol.transcript import TranscriptRecord, VerifyResult, verify_transcript_record

PARALLEL_VERIFY_MIN = 1024
VERIFY_THREADS = max(1, min(4, os.cpu_count() or 1))
STREAM_CHUNK = 256


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


class StreamingVerifier:
    """Verification that starts while the caller is still preparing the batch.

    Records handed to `add` are verified in chunks on worker threads as soon as a chunk is
    full, so the caller's own work on the next records (parsing, shape checks: Python, holding
    the GIL) overlaps the signature checks (C, without it). `results` gives one verdict per
    record added, in the order they were added. A batch known to be small verifies on the
    caller's thread at `results`, as `verify_records` does. Use it as a context manager, so
    the threads end even when the caller fails half way.
    """

    def __init__(self, expected: int) -> None:
        threaded = expected >= PARALLEL_VERIFY_MIN and VERIFY_THREADS > 1
        self._pool = (ThreadPoolExecutor(max_workers=VERIFY_THREADS,
                                         thread_name_prefix="verify") if threaded else None)
        self._chunk: list[TranscriptRecord] = []
        self._parts: list[Future[list[VerifyResult]] | list[TranscriptRecord]] = []

    def add(self, record: TranscriptRecord) -> None:
        self._chunk.append(record)
        if self._pool is not None and len(self._chunk) >= STREAM_CHUNK:
            self._parts.append(self._pool.submit(_verify_chunk, self._chunk))
            self._chunk = []

    def results(self) -> list[VerifyResult]:
        if self._chunk:
            self._parts.append(self._chunk)
            self._chunk = []
        verdicts: list[VerifyResult] = []
        for part in self._parts:
            verdicts.extend(part.result() if isinstance(part, Future) else _verify_chunk(part))
        self._parts = []
        return verdicts

    def __enter__(self) -> StreamingVerifier:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
