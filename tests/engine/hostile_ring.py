"""An offers ring large enough to be checked on the verify threads, with strangers' lines in
both its older part and its newest one: what a first open must show exactly, and nothing else."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tclk_tui.protocol.builders import make_accept, make_offer
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.rehearsal.rooms import format_ts
from tclk_tui.rehearsal.venue import Venue
from tclk_tui.technocore.identity import Identity

OFFERS = 1300  # with the lines below, 11 chunks of 128: the last 5 are checked first


@dataclass
class Ring:
    venue: Venue
    now_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    makers: list[Identity] = field(default_factory=lambda: [Identity.generate()
                                                            for _ in range(8)])
    seq: int = 0
    nonce: int = 0
    offers: list[str] = field(default_factory=list)  # ids of offers signed as they are
    # Facts the test reads back.
    accepted: str = ""  # a newest offer, accepted by a newest record
    cancelled: str = ""  # an older offer, cancelled by a newest record
    copied: list[str] = field(default_factory=list)  # newest offers first posted long before
    forged: list[str] = field(default_factory=list)  # offers whose records do not verify

    def post(self, identity: Identity, line: str, *, sign: bool = True,
             forge: bool = False, seq: int | None = None) -> None:
        self.seq += 1
        self.nonce += 1
        nonce = str(self.now_ms * 1000 + self.nonce)
        record: dict[str, object] = {"seq": self.seq if seq is None else seq,
                                     "ts": format_ts(time.time()), "from": identity.did,
                                     "text": line}
        if sign:
            signed = line.replace("FLOP", "FLAP") if forge else line  # over other text
            record |= {"nonce": int(nonce), "sig": identity.sign(OFFER_ROOM, nonce, signed)}
        self.venue.inject_record(OFFER_ROOM, record)

    def offer(self, index: int) -> tuple[dict, str]:
        maker = self.makers[index % len(self.makers)]
        frame = make_offer(from_=maker.did, role="payer", amount=str(5000 + index),
                           asset="FLOP", lock="hash", rails=["paper"],
                           claim_by_ms=self.now_ms + 7_200_000,
                           refund_after_ms=self.now_ms + 9_000_000,
                           expires_ms=self.now_ms + 3_600_000 + index, nonce=f"{index:016x}")
        return frame, encode_frame(frame)


def build(venue: Venue, offers: int = OFFERS, *, seq_jump: bool = False) -> Ring:
    """`offers` signed offers, and around them (in the older lines, then in the newest):
    an offer the newest lines post again, and one they post again after an escaped copy of
    it; a forged offer, an unsigned one, chat, a line that is not JSON; an accept and a
    cancel. `seq_jump` gives one older record a seq above every newer one's."""
    ring = Ring(venue)
    stranger = Identity.generate()
    frames = [ring.offer(index) for index in range(offers)]
    tail = offers - 40  # the newest lines start here
    copy_plain, copy_escaped = frames[tail + 5], frames[tail + 6]
    for index, (frame, line) in enumerate(frames):
        if index == 20:
            ring.post(ring.makers[(tail + 5) % 8], copy_plain[1])
            offer_id = copy_escaped[0]["id"]  # one digit of its id spelled as an escape
            escaped = copy_escaped[1].replace(
                offer_id, f"{offer_id[:10]}\\u{ord(offer_id[10]):04x}{offer_id[11:]}")
            ring.post(ring.makers[(tail + 6) % 8], escaped)
            forged = ring.offer(offers + 1)
            ring.post(ring.makers[(offers + 1) % 8], forged[1], forge=True)
            ring.forged.append(forged[0]["id"])
            ring.post(stranger, ring.offer(offers + 2)[1], sign=False)
            ring.post(stranger, "hello board")
            venue.inject_line(OFFER_ROOM, "{not json")
            if seq_jump:
                ring.post(stranger, "a record from the future", seq=10**9)
        if index == tail + 10:
            accept = make_accept(frames[tail + 2][0], from_=stranger.did,
                                 statement="0x" + "ab" * 32, nonce="0123456789abcdef")
            ring.post(stranger, encode_frame(accept))
            ring.accepted = frames[tail + 2][0]["id"]
            cancelled = frames[30][0]
            maker = ring.makers[30 % 8]
            ring.post(maker, encode_frame({"type": "cancel", "from": maker.did,
                                           "contract": cancelled["id"]}))
            ring.cancelled = cancelled["id"]
            forged = ring.offer(offers + 3)
            ring.post(ring.makers[(offers + 3) % 8], forged[1], forge=True)
            ring.forged.append(forged[0]["id"])
        ring.post(ring.makers[index % 8], line)
        ring.offers.append(frame["id"])
    ring.copied = [copy_plain[0]["id"], copy_escaped[0]["id"]]
    return ring
