"""How many signed venue records per second one core can verify and fold.

Goal: at least 10,000 records/s for `fold_transcript` (Ed25519 verification, about 18,000/s with
libsodium, dominates). Run: `python3 benchmarks/bench_protocol_fold.py [records]`.
"""

from __future__ import annotations

import base64
import sys
import time

from nacl.signing import SigningKey

from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.didkey import did_key_from_public_key
from tclk_tui.protocol.ids import contract_id, offer_id
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.transcript import (
    TranscriptRecord,
    check_nonce_order,
    fold_transcript,
    signed_message,
    verify_transcript_record,
)

NOW = 1_735_000_000_000
PAYER_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"  # RFC 8032 test 1
PAYEE_SEED = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"  # RFC 8032 test 2
PAYER_KEY = SigningKey(bytes.fromhex(PAYER_SEED))
PAYEE_KEY = SigningKey(bytes.fromhex(PAYEE_SEED))


def signed(
    key: SigningKey, room: str, seq: int, nonce: int, frame: dict[str, object]
) -> TranscriptRecord:
    line = encode_frame(frame)
    raw = key.sign(signed_message(room, str(nonce), line)).signature
    sig = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    did = did_key_from_public_key(bytes(key.verify_key))
    return TranscriptRecord(room, seq, NOW + seq, did, str(nonce), sig, line)


def build(count: int) -> list[TranscriptRecord]:
    payer = did_key_from_public_key(bytes(PAYER_KEY.verify_key))
    payee = did_key_from_public_key(bytes(PAYEE_KEY.verify_key))
    offer: dict[str, object] = {
        "type": "offer",
        "from": payer,
        "role": "payer",
        "amount": "1000",
        "asset": "USDC",
        "lock": "hash",
        "rails": ["flop-htlc"],
        "claimByMs": NOW + 3_600_000,
        "refundAfterMs": NOW + 7_200_000,
        "expiresMs": NOW + 60_000,
        "nonce": "0011223344556677",
    }
    offer["id"] = offer_id(offer)
    core = {
        "from": payee,
        "ref": offer["id"],
        "statement": "0x02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc",
        "nonce": "8899aabbccddeeff",
    }
    contract = contract_id(offer, core)
    room = deal_room(contract)
    records = [
        signed(PAYER_KEY, OFFER_ROOM, 1, 1, offer),
        signed(PAYEE_KEY, OFFER_ROOM, 2, 1, {"type": "accept", **core, "contract": contract}),
        signed(PAYER_KEY, room, 1, 1, {"type": "lock", "from": payer, "contract": contract,
                                       "rail": "flop-htlc", "ref": "escrow-42"}),
    ]
    for i in range(count - len(records)):
        beat = {"type": "heartbeat", "from": payer, "contract": contract, "nonce": f"{i:016x}"}
        records.append(signed(PAYER_KEY, room, i + 2, i + 2, beat))
    return records


def rate(label: str, count: int, seconds: float) -> None:
    print(f"{label:<32} {count / seconds:>10,.0f} records/s  ({seconds * 1e6 / count:.1f} us each)")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    records = build(count)
    start = time.perf_counter()
    for record in records:
        verify_transcript_record(record)
    rate("verify_transcript_record", count, time.perf_counter() - start)
    start = time.perf_counter()
    fold = fold_transcript(records)
    rate("fold_transcript (strict)", count, time.perf_counter() - start)
    assert fold.state is not None and fold.state.status == "locked"
    assert all(step.ok for step in fold.steps)
    start = time.perf_counter()
    assert check_nonce_order(records) == []
    rate("check_nonce_order", count, time.perf_counter() - start)


if __name__ == "__main__":
    main()
