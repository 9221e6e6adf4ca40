"""Shared terms, locks and a hand-driven clock for the rail tests."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from tclk_tui.protocol.machine import LockTerms

CONTRACT = "0x2768bf32b455317879796093ff2e5882371cbec238611ca71f555a7fcbe58e1c"
OTHER_CONTRACT = "0x" + "ab" * 32
PAPER_NS = "tclk-paper-27"
PAPER_KEY = "68bf32b4553178"

PREIMAGE = "0x" + "11" * 32
HASH = "0x02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc"
assert "0x" + hashlib.sha256(bytes.fromhex(PREIMAGE[2:])).hexdigest() == HASH
WRONG_PREIMAGE = "0x" + "22" * 32
LETTERED_PREIMAGE = "0x" + "ab" * 32  # has letters, so its case is observable
LETTERED_HASH = "0x" + hashlib.sha256(bytes.fromhex(LETTERED_PREIMAGE[2:])).hexdigest()

WITNESS = "0x" + "22" * 32
POINT = "0x02466d7fcae563e5cb09a0d1870bb580344804617879a14949cf22285f1bae3f27"
WITNESS_ONE = "0x" + "00" * 31 + "01"
POINT_ONE = "0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"

T = 1_760_007_200_000  # refundAfterMs
CLAIM_BY = T - 3_600_000
PAYER = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
PAYEE = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"

BAD_CLOCK_READINGS = [
    float("nan"),
    float("inf"),
    float("-inf"),
    -1,
    -0.5,
    None,
    "5",
    True,
]
CLOCK_MESSAGE = "tclk: rail clock must read a finite non-negative number"


def hash_terms(**changes: object) -> LockTerms:
    terms = LockTerms(
        contract=CONTRACT,
        lock="hash",
        statement=HASH,
        amount="1000",
        asset="USDC",
        payer=PAYER,
        payee=PAYEE,
        claim_by_ms=CLAIM_BY,
        refund_after_ms=T,
    )
    return replace(terms, **changes) if changes else terms


def point_terms(**changes: object) -> LockTerms:
    return hash_terms(lock="point", statement=POINT, **changes)


class ManualClock:
    """A clock the test moves by hand; reads whatever ``now`` holds, even nonsense."""

    def __init__(self, now: object = T - 10_000) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now  # type: ignore[return-value]
