"""The offers board: strangers write it, so every line that is not a clean offer is counted by
reason and never shown; the rest can be filtered, sorted, expired and annotated."""

from __future__ import annotations

import pytest

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import BoardChanged
from tclk_tui.engine.views import BoardQuery
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM, did_note
from tclk_tui.rehearsal.rooms import format_ts
from tests.engine.helpers import Pair, draft, open_wallet, until


def _inject(pair: Pair, record: dict) -> None:
    venue = pair.venue.venue
    record = {"seq": venue.head(OFFER_ROOM) + 1, "ts": format_ts(pair.clock.seconds()), **record}
    venue.inject_record(OFFER_ROOM, record)


async def _hostile_board(pair: Pair) -> str:
    """Alice's one real offer, surrounded by every kind of line a board must refuse."""
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft())).deal_id
    posted = next(r for r in (await alice.client.export(OFFER_ROOM)).records
                  if r.sender == alice.did)
    # A signed record whose text was altered after signing (a lower amount, same signature).
    _inject(pair, {"from": alice.did, "text": posted.text.replace("250000", "1"),
                   "nonce": int(posted.nonce) + 1, "sig": posted.sig})
    # An unsigned record in the shape of an offer.
    _inject(pair, {"from": "mallory", "text": posted.text})
    # Chat that is not tclk/1, a frame that belongs in a deal room, an orphan accept.
    await bob.client.post(OFFER_ROOM, "hello board, anyone trading FLOP?")
    await bob.client.post(OFFER_ROOM, encode_frame({
        "type": "heartbeat", "from": bob.did, "contract": "0x" + "11" * 32, "nonce": "a1b2c3d4"}))
    await bob.client.post(OFFER_ROOM, encode_frame({
        "type": "cancel", "from": bob.did, "contract": offer_id}))
    # Alice's offer signed by Bob (a forged sender), and Alice posting it twice.
    await bob.client.post(OFFER_ROOM, posted.text)
    await alice.client.post(OFFER_ROOM, posted.text)
    # A line the venue client cannot even read as a record.
    pair.venue.venue.inject_line(OFFER_ROOM, "{not json")
    return offer_id


EXPECTED = {
    "record signature does not verify": 1,
    "record is unsigned": 1,
    "tclk: not a tclk/1 line": 1,
    "heartbeat must be posted in the derived deal room": 1,
    "cancel names no offer of its sender": 1,
    "offer.from does not match the record sender": 1,
    "offer already on the board": 1,
}


async def test_rejected_lines_are_counted_by_reason(pair: Pair):
    offer_id = await _hostile_board(pair)
    await pair.bob.sync()
    board = pair.bob.board
    rejected = board.rejected()
    unreadable = {k: v for k, v in rejected.items() if k not in EXPECTED}
    assert {k: rejected.get(k) for k in EXPECTED} == EXPECTED
    assert sum(unreadable.values()) == 1 and "not JSON" in next(iter(unreadable))
    assert len(board) == 1 and board.get(offer_id).amount == "250000"
    assert [row.offer_id for row in board.query(BoardQuery(status=None))] == [offer_id]
    # Reading the board again counts nothing twice.
    await pair.bob.sync()
    assert board.rejected() == rejected


async def test_a_following_wallet_counts_the_same_rejections(pair: Pair):
    carol: Wallet = await open_wallet(pair.venue.url, pair.data_dir, "carol", clock=pair.clock,
                                      follow=True)
    pair.extra.append(carol)
    offer_id = await _hostile_board(pair)

    def counted() -> bool:
        return all(carol.board.rejected().get(k) == v for k, v in EXPECTED.items())

    await until(counted)
    assert carol.board.get(offer_id) is not None and len(carol.board) == 1


async def test_queries_filter_and_sort(pair: Pair):
    alice, bob = pair.alice, pair.bob
    made = {
        "a": await alice.post_offer(draft(amount="900", asset="FLOP", rails="paper")),
        "b": await alice.post_offer(draft(amount="10000", asset="USDC", rails="memory",
                                          lock="point", expires_in_s="300")),
        "c": await alice.post_offer(draft(amount="75", asset="FLOP", rails="memory,paper",
                                          job="a2a:task-42", expires_in_s="900")),
        "d": await bob.post_offer(draft(role="payee", amount="5000", asset="FLOP",
                                        rails="paper", expires_in_s="120")),
    }
    ids = {k: v.deal_id for k, v in made.items()}
    await alice.sync()
    board = alice.board

    def q(**kw) -> list[str]:
        names = {v: k for k, v in ids.items()}
        return [names[row.offer_id] for row in board.query(BoardQuery(**kw))]

    assert q() == ["d", "b", "a", "c"]  # open offers, soonest expiry first
    assert q(asset="FLOP", sort="amount", descending=True) == ["d", "a", "c"]
    assert q(sort="amount") == ["c", "a", "d", "b"]  # numerically, not as text
    assert q(rail="memory") == ["b", "c"]
    assert q(lock="point") == ["b"]
    assert q(role="payee") == ["d"]
    assert q(text="TASK-42") == ["c"]
    assert q(text=bob.did[-12:]) == ["d"]
    assert [r.mine for r in board.query(BoardQuery(role="payer"))] == [True, True, True]
    assert board.get(ids["d"]).mine is False
    assert board.get(ids["c"]).job == "a2a:task-42"
    assert q(sort="no_such_field") == q()  # an unknown sort key falls back to expiry


async def test_offers_expire_on_the_clock(pair: Pair):
    alice, bob = pair.alice, pair.bob
    short = (await alice.post_offer(draft(expires_in_s="60"))).deal_id
    long = (await alice.post_offer(draft(expires_in_s="600"))).deal_id
    await bob.sync()
    assert bob.board.refresh_status(pair.clock.ms).updated == ()
    events = bob.events.subscribe()
    pair.clock.advance(60_000)
    bob.tick()
    changed = events.get_nowait()
    assert isinstance(changed, BoardChanged) and changed.updated == (short,)
    assert bob.board.get(short).status == "expired"
    assert [r.offer_id for r in bob.board.query(BoardQuery())] == [long]
    assert [r.offer_id for r in bob.board.query(BoardQuery(status="expired"))] == [short]
    with pytest.raises(EngineError, match="expired"):
        await bob.accept_offer(short)
    assert bob.board.refresh_status(pair.clock.ms).updated == ()  # reported once
    pair.clock.advance(540_000)
    assert bob.board.refresh_status(pair.clock.ms).updated == (long,)


async def test_capability_hints_come_from_did_notes(pair: Pair):
    alice, bob = pair.alice, pair.bob
    carol = await pair.open("carol")
    theirs = (await alice.post_offer(draft())).deal_id
    silent = (await carol.post_offer(draft())).deal_id
    await alice.advertise()
    # Every open wallet advertises; Carol's note is overwritten with one that names no rails.
    ns, key = did_note(carol.did)
    current = await carol.client.get_note(ns, key)
    await carol.client.set_note(ns, key, carol.did, if_value=current)
    await bob.sync()
    assert bob.board.get(theirs).capability is None
    events = bob.events.subscribe()
    await bob.refresh_capabilities()
    assert bob.board.get(theirs).capability == ("memory", "paper")
    assert bob.board.get(silent).capability is None
    changed = events.get_nowait()
    assert isinstance(changed, BoardChanged) and changed.updated == (theirs,)
    # A later offer by an advertised sender carries the hint from the moment it lands.
    later = (await alice.post_offer(draft(amount="7"))).deal_id
    await bob.sync()
    assert bob.board.get(later).capability == ("memory", "paper")


def test_parallel_batch_verification_gives_the_serial_verdicts_in_order():
    from nacl.signing import SigningKey

    from tclk_tui.protocol.didkey import did_key_from_public_key
    from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record
    from tclk_tui.technocore.identity import Identity
    from tclk_tui.technocore.verify import PARALLEL_VERIFY_MIN, verify_records

    identity = Identity(SigningKey(b"\x07" * 32))
    assert identity.did == did_key_from_public_key(identity.public_key)
    records = []
    for i in range(PARALLEL_VERIFY_MIN + 37):
        line = f"hello {i}"
        sig = identity.sign("tclk-offers", i + 1, line)
        if i % 97 == 0:
            line += "!"  # the signature no longer covers the line
        records.append(TranscriptRecord(room="tclk-offers", seq=i + 1, timestamp_ms=1,
                                        sender=identity.did, nonce=str(i + 1), signature=sig,
                                        line=line))
    parallel = verify_records(records)
    assert [v.ok for v in parallel] == [verify_transcript_record(r).ok for r in records]
    assert sum(not v.ok for v in parallel) == len(range(0, len(records), 97))


def test_verdicts_from_the_venue_client_are_used_not_recomputed():
    from tclk_tui.engine.board.offers_board import OffersBoard
    from tclk_tui.protocol.transcript import TranscriptRecord, VerifyResult

    record = TranscriptRecord(room="tclk-offers", seq=1, timestamp_ms=1, sender="nick",
                              nonce=None, signature=None, line="hello there")
    board = OffersBoard()
    changed = board.ingest([record], 0, verdicts=[VerifyResult(False, "record is unsigned")])
    assert changed.rejected == 1 and board.rejected() == {"record is unsigned": 1}
    with pytest.raises(ValueError, match="one verdict per record"):
        board.ingest([record], 0, verdicts=[])


def test_rejected_line_counts_stay_bounded_whatever_the_junk():
    """Every distinct junk value makes a distinct reason; the tally must not grow with them."""
    from tclk_tui.engine.board.offers_board import (
        MAX_REJECT_REASON_CHARS,
        MAX_REJECT_REASONS,
        OffersBoard,
    )
    from tclk_tui.protocol.transcript import TranscriptRecord, VerifyResult

    board = OffersBoard()
    lines = 20_000
    records = [TranscriptRecord(OFFER_ROOM, seq, 1_000 + seq, "did:key:z6Mkjunk", None, None,
                                f'tclk1 {{"type":"offer","zz{seq:06d}{"x" * 3000}":1}}')
               for seq in range(1, lines + 1)]
    changed = board.ingest(records, verdicts=[VerifyResult(True, None)] * lines)
    tally = board.rejected()
    assert changed.rejected == lines and sum(tally.values()) == lines
    assert len(tally) <= MAX_REJECT_REASONS + 1
    assert max(len(reason) for reason in tally) <= MAX_REJECT_REASON_CHARS


async def test_the_board_shows_accepted_only_what_the_machine_takes(pair: Pair):
    """A point-lock accept without the acceptor's paymentKey (its contract id computed over
    what it holds) is one the deal's fold refuses: the board must not show the offer taken by
    it, or every other acceptor's wallet would stand aside for a deal that cannot exist."""
    import hashlib
    import secrets

    from tclk_tui.protocol.ids import contract_id
    from tclk_tui.protocol.machine import accept_core

    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(lock="point"))).deal_id
    await bob.sync()
    offer = bob.board.offer_frame(offer_id)
    assert offer is not None
    statement = "0x02" + hashlib.sha256(b"any point").hexdigest()
    core = {"from": bob.did, "ref": offer_id, "statement": statement,
            "nonce": secrets.token_hex(8)}
    frame = {"type": "accept", **core, "contract": contract_id(offer, accept_core(core))}
    await bob.client.post(OFFER_ROOM, encode_frame(frame))
    await alice.sync()
    assert alice.board.rejected().get("point locks require the acceptor's paymentKey") == 1
    [(_, row)] = alice.board.rows([offer_id])
    assert row.status != "accepted"
