import pytest

from tclk_tui.store import (
    OUTBOX_TRANSITIONS,
    SECRET_PLACEHOLDER,
    NotFound,
    OutboxState,
    OutboxStateError,
    StoreError,
)

FRAME = 'tclk1 {"contract":"0x01","from":"did:key:z6Mka","nonce":"00aa","type":"heartbeat"}'


def test_enqueue_post_confirm(journal, clock):
    item = journal.outbox.enqueue(room="d-x", text=FRAME, nonce="1760000000001")
    assert item.state is OutboxState.PENDING and item.attempts == 0
    assert item.created_ms == clock.now and item.nonce == "1760000000001"
    clock.now += 7
    attempt = journal.outbox.record_attempt(item.id)
    assert attempt.attempts == 1 and attempt.state is OutboxState.PENDING
    posted = journal.outbox.mark_posted(item.id)
    assert posted.state is OutboxState.POSTED and posted.nonce == "1760000000001"
    confirmed = journal.outbox.mark_confirmed(item.id)
    assert confirmed.state is OutboxState.CONFIRMED and confirmed.updated_ms == clock.now
    assert journal.outbox.unfinished() == []


def test_unfinished_items_are_replayed_in_order(journal):
    a = journal.outbox.enqueue(room="r", text="one")
    b = journal.outbox.enqueue(room="r", text="two")
    c = journal.outbox.enqueue(room="r", text="three")
    journal.outbox.mark_posted(b.id, nonce="5")
    journal.outbox.mark_confirmed(c.id)
    assert [i.id for i in journal.outbox.unfinished()] == [a.id, b.id]
    assert [i.id for i in journal.outbox.items([OutboxState.CONFIRMED])] == [c.id]
    assert [i.id for i in journal.outbox.items(["posted"])] == [b.id]
    assert len(journal.outbox.items()) == 3


def test_failure_keeps_a_clean_bounded_error(journal):
    item = journal.outbox.enqueue(room="r", text="x")
    journal.outbox.record_attempt(item.id, "429 slow down\x1b[31m")
    failed = journal.outbox.mark_failed(item.id, "400 nonce 5 is not greater than 9" + "!" * 1000)
    assert failed.state is OutboxState.FAILED and failed.attempts == 1
    assert failed.last_error.startswith("400 nonce 5")
    assert len(failed.last_error) == 500
    retried = journal.outbox.requeue(item.id)
    assert retried.state is OutboxState.PENDING and retried.last_error == failed.last_error
    assert "\x1b" not in journal.outbox.record_attempt(item.id, "esc\x1b").last_error


def test_pending_can_be_confirmed_directly(journal):
    item = journal.outbox.enqueue(room="r", text="x")
    assert journal.outbox.mark_confirmed(item.id).state is OutboxState.CONFIRMED


@pytest.mark.parametrize(
    "source,target",
    [
        (s, t)
        for s in OutboxState
        for t in OutboxState
        if t not in OUTBOX_TRANSITIONS[s] and t is not OutboxState.PENDING
    ],
)
def test_forbidden_transitions_are_refused(journal, source, target):
    item = journal.outbox.enqueue(room="r", text="x")
    route = {
        OutboxState.PENDING: [],
        OutboxState.POSTED: [journal.outbox.mark_posted],
        OutboxState.CONFIRMED: [journal.outbox.mark_confirmed],
        OutboxState.FAILED: [lambda i: journal.outbox.mark_failed(i, "e")],
    }[source]
    for step in route:
        step(item.id)
    move = {
        OutboxState.POSTED: journal.outbox.mark_posted,
        OutboxState.CONFIRMED: journal.outbox.mark_confirmed,
        OutboxState.FAILED: lambda i: journal.outbox.mark_failed(i, "e"),
    }[target]
    with pytest.raises(OutboxStateError):
        move(item.id)
    assert journal.outbox.item(item.id).state is source


def test_only_failed_items_are_requeued_and_attempts_need_a_live_item(journal):
    item = journal.outbox.enqueue(room="r", text="x")
    with pytest.raises(OutboxStateError):
        journal.outbox.requeue(item.id)
    journal.outbox.mark_confirmed(item.id)
    with pytest.raises(OutboxStateError):
        journal.outbox.record_attempt(item.id)
    with pytest.raises(OutboxStateError, match="no outbox item"):
        journal.outbox.mark_posted(424242)


def test_outbox_links_to_deals(journal):
    deal = journal.deals.add(offer_id="0x" + "a" * 64, role="payee", status="s", terms={})
    item = journal.outbox.enqueue(room="r", text="x", deal_id=deal.id)
    assert item.deal_id == deal.id
    with pytest.raises(NotFound):
        journal.outbox.enqueue(room="r", text="x", deal_id=deal.id + 100)


def test_reveal_frames_go_in_with_a_placeholder_and_a_vault_reference(journal):
    text = (
        'tclk1 {"contract":"0x01","from":"did:key:z6Mka","secret":"'
        + SECRET_PLACEHOLDER
        + '","type":"reveal"}'
    )
    item = journal.outbox.enqueue(room="r", text=text, secret_ref="deal/0xab/0011/preimage")
    assert item.secret_ref == "deal/0xab/0011/preimage"
    with pytest.raises(StoreError, match="secret_ref"):
        journal.outbox.enqueue(room="r", text=text)
