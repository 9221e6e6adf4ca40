import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.store import MAX_VENUE_NONCE, Journal, StoreError

DID = "did:key:z6Mkalice"


def test_nonce_counter_shape(journal):
    store = journal.nonces
    assert store.load(DID, "room") is None
    store.save(DID, "room", 1760000000000)
    assert store.load(DID, "room") == 1760000000000
    assert store.load(DID, "other-room") is None
    assert store.load("did:key:z6Mkbob", "room") is None


def test_counters_never_move_backwards(journal):
    journal.nonces.save(DID, "room", 50)
    journal.nonces.save(DID, "room", 40)
    assert journal.nonces.load(DID, "room") == 50


def test_nineteen_digit_nonces_are_exact(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        journal.nonces.save(DID, "room", MAX_VENUE_NONCE - 1)  # past 2**63 and 2**53
    with Journal(path) as journal:
        assert journal.nonces.load(DID, "room") == 9999999999999999998
        journal.nonces.save(DID, "room", MAX_VENUE_NONCE)
        assert journal.nonces.load(DID, "room") == MAX_VENUE_NONCE


def test_out_of_range_nonces_are_refused(journal):
    for bad in (-1, MAX_VENUE_NONCE + 1, True, "12", 1.0):
        with pytest.raises(StoreError):
            journal.nonces.save(DID, "room", bad)
    assert journal.nonces.load(DID, "room") is None


ROOMS = itertools.count()


@pytest.fixture(scope="module")
def shared_journal(tmp_path_factory):
    with Journal(tmp_path_factory.mktemp("n") / "j.sqlite") as journal:
        yield journal


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, MAX_VENUE_NONCE), min_size=1, max_size=8))
def test_load_is_the_maximum_saved(shared_journal, values):
    room = f"room-{next(ROOMS)}"  # a fresh counter per example in the shared journal
    for value in values:
        shared_journal.nonces.save(DID, room, value)
    assert shared_journal.nonces.load(DID, room) == max(values)
