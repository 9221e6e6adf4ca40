import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.store import Journal, RecordInsert, RecordRow

ALICE = "did:key:z6Mkalice"
BOB = "did:key:z6Mkbob"


def add(journal, seq, sender=ALICE, nonce="100", line="hello", generation=1, ts_ms=1000):
    return journal.records.add(
        room="d-room",
        generation=generation,
        seq=seq,
        ts_ms=ts_ms,
        sender=sender,
        nonce=nonce,
        line=line,
    )


def test_records_are_stored_exactly(journal, clock):
    line = 'tclk1 {"type":"heartbeat"}  \u200b trailing'
    assert add(journal, 1, line=line, nonce="000123") == RecordInsert.INSERTED
    assert journal.records.of_room("d-room") == [
        RecordRow("d-room", 1, 1, 1000, ALICE, "000123", None, line, clock.now)
    ]


def test_same_record_again_is_a_duplicate(journal):
    assert add(journal, 1) == RecordInsert.INSERTED
    assert add(journal, 1) == RecordInsert.DUPLICATE
    assert len(journal.records.of_room("d-room")) == 1


def test_seq_collision_with_other_content_is_a_conflict_and_keeps_the_first(journal):
    add(journal, 1, line="first")
    assert add(journal, 1, line="rewritten", nonce="101") == RecordInsert.CONFLICT
    assert [r.line for r in journal.records.of_room("d-room")] == ["first"]


def test_nonce_reuse_by_the_same_sender_is_a_conflict(journal):
    add(journal, 1, nonce="100")
    assert add(journal, 2, nonce="100", line="replay?") == RecordInsert.CONFLICT
    assert add(journal, 2, sender=BOB, nonce="100") == RecordInsert.INSERTED  # other key: fine
    assert [r.seq for r in journal.records.of_room("d-room")] == [1, 2]


def test_the_same_nonce_in_another_room_is_fine(journal):
    add(journal, 1, nonce="100")
    result = journal.records.add(
        room="other", generation=1, seq=1, ts_ms=1, sender=ALICE, nonce="100", line="x"
    )
    assert result == RecordInsert.INSERTED


def test_unsigned_records_never_collide_on_nonce(journal):
    assert add(journal, 1, nonce=None, sender="nick") == RecordInsert.INSERTED
    assert add(journal, 2, nonce=None, sender="nick") == RecordInsert.INSERTED


def test_generations_restart_seq(journal):
    add(journal, 5, generation=1)
    assert add(journal, 5, generation=2, nonce="101", line="new epoch") == RecordInsert.INSERTED
    assert [(r.generation, r.seq) for r in journal.records.of_room("d-room")] == [(1, 5), (2, 5)]
    assert [r.line for r in journal.records.of_room("d-room", generation=2)] == ["new epoch"]


def test_reading_after_a_seq_with_a_limit(journal):
    for seq in range(1, 11):
        add(journal, seq, nonce=str(100 + seq))
    rows = journal.records.of_room("d-room", generation=1, after_seq=4, limit=3)
    assert [r.seq for r in rows] == [5, 6, 7]


ROOMS = itertools.count()


@pytest.fixture(scope="module")
def shared_journal(tmp_path_factory):
    with Journal(tmp_path_factory.mktemp("r") / "j.sqlite") as journal:
        yield journal


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from(["a", "b"])), max_size=10))
def test_records_never_break_their_uniqueness_rules(shared_journal, batch):
    room = f"room-{next(ROOMS)}"  # a fresh room per example in the shared journal
    for seq, body in batch:
        shared_journal.records.add(
            room=room, generation=1, seq=seq, ts_ms=1, sender=ALICE, nonce=str(seq), line=body
        )
    rows = shared_journal.records.of_room(room)
    assert len({r.seq for r in rows}) == len(rows)
    first_seen: dict[int, str] = {}
    for seq, body in batch:
        first_seen.setdefault(seq, body)
    assert {r.seq: r.line for r in rows} == first_seen


def test_add_records_is_one_batch_with_the_same_duplicate_and_conflict_rules(journal):
    from tclk_tui.store.rows import RecordInsert, RecordRow

    def row(seq, line, nonce):
        return RecordRow(room="tclk-offers", generation=0, seq=seq, ts_ms=1, sender="did:x",
                         nonce=nonce, sig=None, line=line, received_ms=0)

    outcomes = journal.records.add_many([row(1, "a", "1"), row(2, "b", "2"), row(1, "a", "1"),
                                         row(3, "c", "2")])
    assert outcomes == [RecordInsert.INSERTED, RecordInsert.INSERTED, RecordInsert.DUPLICATE,
                        RecordInsert.CONFLICT]
    assert [r.line for r in journal.records.of_room("tclk-offers")] == ["a", "b"]


def test_a_record_keeps_whether_its_line_was_a_frame(journal):
    from tclk_tui.store.rows import RecordRow

    def row(seq, frame_ok):
        return RecordRow(room="tclk-offers", generation=0, seq=seq, ts_ms=1, sender="did:x",
                         nonce=str(seq), sig=None, line=f"line {seq}", received_ms=0,
                         frame_ok=frame_ok)

    journal.records.add_many([row(1, True), row(2, False), row(3, None)])
    assert [r.frame_ok for r in journal.records.of_room("tclk-offers")] == [True, False, None]
