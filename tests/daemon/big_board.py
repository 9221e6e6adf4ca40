"""A board of many real signed offers, injected into a rehearsal venue before anyone reads it."""

from __future__ import annotations

import time

from tclk_tui.protocol.builders import make_offer
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.rehearsal.rooms import format_ts
from tclk_tui.rehearsal.venue import Venue
from tclk_tui.technocore.identity import Identity


def inject_signed(venue: Venue, identity: Identity, line: str, nonce: int) -> None:
    """`line` signed by `identity` and stored as the board's next record."""
    venue.inject_record(OFFER_ROOM, {
        "seq": venue.head(OFFER_ROOM) + 1, "ts": format_ts(time.time()),
        "from": identity.did, "text": line, "nonce": nonce,
        "sig": identity.sign(OFFER_ROOM, str(nonce), line)})


def inject_offers(venue: Venue, count: int, signers: int = 20
                  ) -> list[tuple[str, Identity]]:
    """`count` open offers (an hour left each) from `signers` identities, signed and stored in
    `tclk-offers` in one go; returns each offer's id and signer, in board order."""
    identities = [Identity.generate() for _ in range(signers)]
    now_ms = int(time.time() * 1000)
    offers = []
    for index in range(count):
        identity = identities[index % signers]
        offer = make_offer(from_=identity.did, role="payer", amount=str(1000 + index),
                           asset="FLOP", lock="hash", rails=["paper"],
                           claim_by_ms=now_ms + 7_200_000, refund_after_ms=now_ms + 9_000_000,
                           expires_ms=now_ms + 3_600_000 + index, nonce=f"{index:016x}")
        inject_signed(venue, identity, encode_frame(offer), now_ms + index)
        offers.append((offer["id"], identity))
    return offers
