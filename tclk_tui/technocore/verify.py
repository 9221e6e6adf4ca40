"""Signature checks over a batch of records, on a few threads when the batch is large.

A whole ring (up to ~20,000 records) arrives at start-up and Ed25519 verification dominates its
cost. libsodium is reached through cffi, which releases the GIL for the length of each call, so
chunks verified on separate threads overlap on separate cores; small live batches stay on the
caller's thread, where a pool would cost more than it saves. Results come back in input order,
one per record, exactly as `verify_transcript_record` gives them.

Each thread does all the work of its records, Python and libsodium in turn, record by record.
Every check releases the GIL, so the threads take turns on it at every record and one's Python
runs while the other's check does. Python work left in a stretch of its own (a loop on the
caller's thread while workers check) would instead hold every worker at the GIL for the
interpreter's whole switch interval (5 ms) each time one finishes a check: the checks would
wait for the Python rather than overlap it.
"""

from __future__ import annotations

import binascii
import contextlib
import os
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

from nacl._sodium import ffi as _sodium_ffi
from nacl._sodium import lib as _sodium_lib

from tclk_tui.protocol.transcript import (
    MAX_SAFE_INTEGER,
    TranscriptRecord,
    VerifyResult,
    room_ok,
    sender_key,
    verify_transcript_record,
)

T = TypeVar("T")
R = TypeVar("R")

PARALLEL_VERIFY_MIN = 1024
VERIFY_THREADS = max(1, min(4, os.cpu_count() or 1))
# Records per chunk handed to a thread: far more work than handing it over costs, and few
# enough that the last chunks keep every thread busy to the end.
CHUNK = 128

_VERIFIED: Final = VerifyResult(True, None)
_FORGED: Final = VerifyResult(False, "record signature does not verify")
# base64url to the standard alphabet, and the standard-only `+/=` to a letter the strict
# decoder refuses: with the length and last-letter checks, the decoder then admits exactly the
# canonical base64url of 64 bytes (`SIGNATURE_RE`).
_URLSAFE: Final = bytes.maketrans(b"-_+/=", b"+/!!!")
# One output buffer fits every record but those whose text is mostly 4-byte characters (those
# get one of their own).
_OPEN_BYTES: Final = 16_384

# One prepared record: the signed bytes (signature then `<room>|<nonce>|<line>`), their length
# and the sender's key; or the verdict, when it was reached without libsodium.
Prepared = tuple[bytes, int, bytes] | VerifyResult


def prepare(record: TranscriptRecord) -> Prepared:
    """What libsodium needs to check `record`'s signature, or the verdict without it.

    The common record (every field of its exact type, a canonical nonce and signature, a did:key
    sender) is prepared here; any other gets `verify_transcript_record`'s own verdict, so the
    verdicts are that function's for every input (a property test pins the two together).
    """
    with contextlib.suppress(Exception):  # any surprise: the full rule below decides
        if type(record) is TranscriptRecord:
            room, seq, stamp = record.room, record.seq, record.timestamp_ms
            line, sender = record.line, record.sender
            nonce, signature = record.nonce, record.signature
            if (
                type(room) is str and room_ok(room)
                and type(seq) is int and 0 <= seq <= MAX_SAFE_INTEGER
                and type(stamp) is int and 0 <= stamp <= MAX_SAFE_INTEGER
                and type(line) is str and type(sender) is str
                and type(nonce) is str and nonce.isascii() and nonce.isdigit()
                and (nonce[0] != "0" or len(nonce) == 1)
                and type(signature) is str and len(signature) == 86
                and signature[85] in "AQgw"
            ):
                key = sender_key(sender)
                if key is not None:
                    raw = binascii.a2b_base64(
                        signature.encode("ascii").translate(_URLSAFE) + b"==", strict_mode=True)
                    signed = raw + f"{room}|{nonce}|{line}".encode()
                    return signed, len(signed), key
    # Refused, or (a lone surrogate in the line) re-encoded, by the full rule.
    return verify_transcript_record(record)


class Opener:
    """Signature checks one after another on one thread, into one output buffer (libsodium's
    `crypto_sign_open` writes the opened message, which is never read)."""

    __slots__ = ("_length", "_output")

    def __init__(self) -> None:
        self._output = _sodium_ffi.new("unsigned char[]", _OPEN_BYTES)
        self._length = _sodium_ffi.new("unsigned long long *")

    def verify(self, record: TranscriptRecord) -> VerifyResult:
        """`verify_transcript_record(record)`."""
        item = prepare(record)
        if isinstance(item, VerifyResult):
            return item
        signed, size, key = item
        output = self._output if size <= _OPEN_BYTES else _sodium_ffi.new("unsigned char[]", size)
        if _sodium_lib.crypto_sign_open(output, self._length, signed, size, key) == 0:
            return _VERIFIED
        return _FORGED


def threaded(expected: int) -> bool:
    """Whether a batch of about `expected` records is worth a few threads."""
    return expected >= PARALLEL_VERIFY_MIN and VERIFY_THREADS > 1


def in_threads(work: Callable[[T], R], chunks: Iterable[T],
               expected: int) -> Generator[R, None, None]:
    """`map(work, chunks)`, on `VERIFY_THREADS` threads when about `expected` records make a
    batch worth them. Results come in the order of `chunks`, each as soon as it and those
    before it are done; an error (in `work` or in the consumer) cancels the chunks not begun.

    `work` should interleave its Python with signature checks record by record: each check
    releases the GIL, so the threads take turns on it at every record, where a stretch of
    Python alone would hold the other threads at the GIL for the interpreter's whole switch
    interval at every turn."""
    if not threaded(expected):
        yield from map(work, chunks)
        return
    pool = ThreadPoolExecutor(max_workers=VERIFY_THREADS, thread_name_prefix="verify")
    try:
        yield from pool.map(work, chunks)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def verify_records(records: Sequence[TranscriptRecord],
                   while_verifying: Callable[[TranscriptRecord], object] | None = None,
                   ) -> list[VerifyResult]:
    """`verify_transcript_record` over a batch, in order, in parallel when it pays.

    `while_verifying` is called with every record beside its check, on the verifying threads
    (in no set order, so it must be safe to call from several threads at once): Python work
    the caller needs anyway, such as decoding each line, then overlaps the signature checks
    instead of holding the GIL against them. What it returns is ignored."""
    def chunk(part: Sequence[TranscriptRecord]) -> list[VerifyResult]:
        opener = Opener()
        verdicts = []
        for record in part:
            if while_verifying is not None:
                while_verifying(record)
            verdicts.append(opener.verify(record))
        return verdicts

    parts = [records[i:i + CHUNK] for i in range(0, len(records), CHUNK)]
    verdicts: list[VerifyResult] = []
    with contextlib.closing(in_threads(chunk, parts, len(records))) as done:
        for part in done:
            verdicts.extend(part)
    return verdicts
