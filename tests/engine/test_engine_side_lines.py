"""The board, the vote round and the tally read the side lines through the protocol's grammar:
a near-miss spelling of a commitment (a trailing space, capitals) is an unreadable line, not a
commitment, so a juror cannot close the commit phase with a line that opens nothing; a near-miss
statement line is rejected with the grammar's reason."""

from __future__ import annotations

from tclk_tui.engine.arbitration.desk import commit_vote
from tclk_tui.engine.arbitration.vote_round import count_votes, read_round
from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.protocol.ids import offer_id
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.side_lines import (
    BAD_STATEMENT,
    STATEMENT_SHAPE,
    encode_statement,
    encode_vote_commit,
    encode_vote_reveal,
)
from tests.protocol.test_protocol_transcript import HASH, NOW, OFFER, PAYEE, PAYER, rec

CONTRACT = "0x2abe803280992f400ed1ca4bfd8a77071ee72e48493fb4ca39e12bf87fd79166"
ROOM = deal_room(CONTRACT)
JURORS = (PAYER, PAYEE)  # two keys the transcript tests can sign with
DEADLINE = 2_000_000_000_000


def _round(lines: list[tuple[str, str]]):
    records = [rec(ROOM, 1_000 + i, did, line, seq=i + 1) for i, (did, line) in enumerate(lines)]
    # The tally reads the round the same way, under the deadline of the contract's offer.
    return (read_round(CONTRACT, records, JURORS, DEADLINE),
            count_votes(CONTRACT, records, {**OFFER, "claimByMs": DEADLINE}, JURORS))


def test_well_formed_votes_count_in_the_round_and_the_tally() -> None:
    a, b = commit_vote(CONTRACT, "release"), commit_vote(CONTRACT, "release")
    view, counted = _round([(PAYER, encode_vote_commit(a.commitment)),
                            (PAYEE, encode_vote_commit(b.commitment)),
                            (PAYER, encode_vote_reveal(a.salt, a.verdict)),
                            (PAYEE, encode_vote_reveal(b.salt, b.verdict))])
    assert view.all_committed and view.counts == {"release": 2} and view.problems == ()
    assert counted.counts == {"release": 2} and counted.problems == ()


def test_a_near_miss_commitment_is_unreadable_and_commits_nobody() -> None:
    a, b = commit_vote(CONTRACT, "release"), commit_vote(CONTRACT, "refund")
    view, counted = _round([
        (PAYER, encode_vote_commit(a.commitment)),
        (PAYEE, encode_vote_commit(b.commitment) + " "),
        (PAYEE, "tclk1-vote commit " + b.commitment.upper().replace("0X", "0x")),
        (PAYEE, "tclk1-vote reveal " + b.salt + "  refund"),
    ])
    assert view.committed == (PAYER,) and not view.all_committed
    assert sum("unreadable vote line" in p for p in view.problems) == 3
    assert counted.commits == {PAYER: a.commitment}
    assert sum("unreadable vote line" in p for p in counted.problems) == 3


def test_the_board_takes_a_statement_only_in_the_grammars_one_spelling() -> None:
    offer = {**OFFER, "role": "payee"}
    offer["id"] = offer_id({k: v for k, v in offer.items() if k != "id"})
    statement = HASH
    good = encode_statement(offer["id"], statement)
    board = OffersBoard()
    board.ingest([rec(OFFER_ROOM, NOW, PAYER, offer, seq=1)], now_ms=NOW)
    near_misses = [good + " ", good.replace(" 0x", "  0x", 1),
                   f"tclk1-statement {offer['id']} {statement.upper().replace('0X', '0x')}"]
    changed = board.ingest([rec(OFFER_ROOM, NOW, PAYER, line, seq=2 + i)
                            for i, line in enumerate(near_misses)], now_ms=NOW)
    assert changed.rejected == 3 and board.published_statement(offer["id"]) is None
    assert set(board.rejected()) == {STATEMENT_SHAPE, BAD_STATEMENT}
    board.ingest([rec(OFFER_ROOM, NOW, PAYER, good, seq=9)], now_ms=NOW)
    assert board.published_statement(offer["id"]) == statement
