import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.technocore.nonces import MemoryNonceStore, NonceAllocator, NonceStore

DID = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
OTHER = "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT"


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def test_memory_store_satisfies_the_protocol():
    assert isinstance(MemoryNonceStore(), NonceStore)


def test_clock_is_used_when_ahead():
    clock = Clock(1_700_000_000_000)
    allocator = NonceAllocator(DID, MemoryNonceStore(), clock)
    assert allocator.next("room") == 1_700_000_000_000
    clock.now += 5
    assert allocator.next("room") == 1_700_000_000_005


def test_same_millisecond_and_clock_going_backwards_still_increase():
    clock = Clock(1000)
    allocator = NonceAllocator(DID, MemoryNonceStore(), clock)
    assert [allocator.next("room") for _ in range(3)] == [1000, 1001, 1002]
    clock.now = 10
    assert allocator.next("room") == 1003


def test_rooms_and_identities_are_independent():
    store = MemoryNonceStore()
    clock = Clock(50)
    mine, theirs = NonceAllocator(DID, store, clock), NonceAllocator(OTHER, store, clock)
    assert mine.next("a") == 50
    assert mine.next("a") == 51
    assert mine.next("b") == 50
    assert theirs.next("a") == 50


def test_restart_continues_above_the_persisted_value():
    store = MemoryNonceStore()
    clock = Clock(500)
    first = NonceAllocator(DID, store, clock)
    issued = [first.next("room") for _ in range(4)]
    restarted = NonceAllocator(DID, store, Clock(1))  # a clock far behind after the restart
    assert restarted.next("room") == issued[-1] + 1


def test_nonce_is_persisted_before_it_is_returned():
    class FailingStore(MemoryNonceStore):
        def save(self, did, room, nonce):
            raise OSError("disk full")

    allocator = NonceAllocator(DID, FailingStore(), Clock(7))
    with pytest.raises(OSError):
        allocator.next("room")

    saved = []

    class RecordingStore(MemoryNonceStore):
        def save(self, did, room, nonce):
            saved.append(nonce)
            super().save(did, room, nonce)

    allocator = NonceAllocator(DID, RecordingStore(), Clock(7))
    value = allocator.next("room")
    assert saved == [value]


def test_observe_moves_the_floor_up_but_never_down():
    store = MemoryNonceStore()
    allocator = NonceAllocator(DID, store, Clock(10))
    allocator.observe("room", 9_000)
    assert allocator.next("room") == 9_001
    allocator.observe("room", 5)
    assert allocator.next("room") == 9_002


def test_exhausted_nonces_raise():
    allocator = NonceAllocator(DID, MemoryNonceStore(), Clock(10**19 - 1))
    assert allocator.next("room") == 10**19 - 1
    with pytest.raises(ValueError, match="exhausted"):
        allocator.next("room")


@pytest.mark.parametrize("bad", [-1, 1.5, True, "12"])
def test_bad_clock_values_are_refused(bad):
    with pytest.raises(ValueError):
        NonceAllocator(DID, MemoryNonceStore(), lambda: bad).next("room")


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.tuples(st.integers(0, 10**13), st.sampled_from(["a", "b", "c"]),
                                st.booleans()), min_size=1, max_size=40))
def test_strictly_increasing_per_room_across_restarts(steps):
    store = MemoryNonceStore()
    clock = Clock(0)
    allocator = NonceAllocator(DID, store, clock)
    last: dict[str, int] = {}
    for now, room, restart in steps:
        clock.now = now
        if restart:
            allocator = NonceAllocator(DID, store, clock)
        value = allocator.next(room)
        assert value > last.get(room, -1)
        assert value >= now
        last[room] = value
