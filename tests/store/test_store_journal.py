import threading

import pytest

from tclk_tui.store import (
    DealRow,
    IdentityRow,
    Journal,
    JournalClosed,
    NotFound,
    RoomCursor,
    StoreError,
)

OFFER = "0x" + "d0" * 32
CONTRACT = "0x" + "27" * 32
TERMS = {"amount": "1000000", "asset": "FLOP", "lock": "hash", "claimByMs": 1756703600000}


def test_identities_are_public_and_idempotent(journal, clock):
    row = journal.identities.add("did:key:z6Mkabc", "trading desk")
    assert row == IdentityRow("did:key:z6Mkabc", "trading desk", clock.now)
    clock.now += 5
    again = journal.identities.add("did:key:z6Mkabc")
    assert again == row  # label kept, created time kept
    journal.identities.add("did:key:z6Mkabc", "renamed")
    assert journal.identities.all() == [IdentityRow("did:key:z6Mkabc", "renamed", row.created_ms)]
    with pytest.raises(StoreError):
        journal.identities.add("not-a-did")


def test_deal_lifecycle(journal, clock):
    deal = journal.deals.add(offer_id=OFFER, role="payer", status="offered", terms=TERMS)
    assert deal == DealRow(
        deal.id, OFFER, None, "payer", "offered", None, TERMS, clock.now, clock.now
    )
    clock.now += 10
    updated = journal.deals.update(deal.id, status="accepted", contract_id=CONTRACT, room="d-x")
    assert (updated.status, updated.contract_id, updated.room) == ("accepted", CONTRACT, "d-x")
    assert updated.updated_ms == clock.now and updated.created_ms == deal.created_ms
    assert updated.terms == TERMS
    assert journal.deals.by_contract(CONTRACT) == updated
    assert journal.deals.for_offer(OFFER) == [updated]
    assert journal.deals.get(999) is None
    journal.deals.update(deal.id, terms={**TERMS, "amount": "5"})
    assert journal.deals.get(deal.id).terms["amount"] == "5"


def test_deal_queries_by_status(journal):
    a = journal.deals.add(offer_id=OFFER, role="payer", status="offered", terms={})
    b = journal.deals.add(offer_id=OFFER, role="payee", status="locked", terms={})
    c = journal.deals.add(offer_id=OFFER, role="payee", status="claimed", terms={})
    assert [d.id for d in journal.deals.all()] == [a.id, b.id, c.id]
    assert [d.id for d in journal.deals.all(["locked", "offered"])] == [a.id, b.id]
    assert journal.deals.all([]) == []


def test_contract_ids_are_unique(journal):
    journal.deals.add(offer_id=OFFER, role="payer", status="s", terms={}, contract_id=CONTRACT)
    with pytest.raises(StoreError, match="already"):
        journal.deals.add(offer_id=OFFER, role="payer", status="s", terms={}, contract_id=CONTRACT)
    other = journal.deals.add(offer_id=OFFER, role="payer", status="s", terms={})
    with pytest.raises(StoreError, match="another deal"):
        journal.deals.update(other.id, contract_id=CONTRACT)
    with pytest.raises(NotFound):
        journal.deals.update(12345, status="x")


def test_terms_must_be_plain_json(journal):
    for bad in ({"when": object()}, {"x": float("nan")}, {1: "int key"}):
        with pytest.raises(StoreError):
            journal.deals.add(offer_id=OFFER, role="payer", status="s", terms=bad)
    with pytest.raises(StoreError):
        journal.deals.add(offer_id=OFFER, role="payer", status="s", terms=["not", "a", "map"])
    assert journal.deals.all() == []


def test_settings(journal):
    assert journal.settings.get("theme") is None
    assert journal.settings.get("theme", "dark") == "dark"
    journal.settings.set("theme", "light")
    journal.settings.set("theme", "high-contrast")
    journal.settings.set("empty", "")
    assert journal.settings.all() == {"empty": "", "theme": "high-contrast"}
    journal.settings.delete("theme")
    assert journal.settings.get("theme") is None


def test_object_settings_forget_what_is_not_an_object(journal):
    assert journal.settings.get_object("case:x") == {}
    journal.settings.set_object("case:x", {"b": 1, "a": [True, None]})
    assert journal.settings.get("case:x") == '{"a": [true, null], "b": 1}'
    assert journal.settings.get_object("case:x") == {"a": [True, None], "b": 1}
    for damaged in ("{not json", "[1, 2]", '"text"', ""):
        journal.settings.set("case:x", damaged)
        assert journal.settings.get_object("case:x") == {}


def test_room_cursors(journal, clock):
    assert journal.cursors.get("d-x") is None
    assert journal.cursors.set("d-x", 2, 17) == RoomCursor("d-x", 2, 17, clock.now)
    journal.cursors.set("d-x", 3, 1)
    assert journal.cursors.get("d-x") == RoomCursor("d-x", 3, 1, clock.now)


def test_closed_journal_refuses_calls(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    journal.close()
    journal.close()  # idempotent
    assert journal.closed and "closed" in repr(journal)
    with pytest.raises(JournalClosed):
        journal.settings.all()
    with pytest.raises(JournalClosed):
        journal.settings.set("a", "b")


def test_data_survives_reopen(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        deal = journal.deals.add(offer_id=OFFER, role="payer", status="offered", terms=TERMS)
        journal.settings.set("k", "v")
    with Journal(path) as journal:
        assert journal.deals.get(deal.id) == deal
        assert journal.settings.get("k") == "v"


def test_threads_share_one_journal(journal):
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(25):
                journal.deals.add(offer_id=OFFER, role="payer", status=f"w{worker}", terms={"i": i})
                journal.nonces.save(f"did:key:w{worker}", "room", i + 1)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert len(journal.deals.all()) == 100
    assert all(journal.nonces.load(f"did:key:w{n}", "room") == 25 for n in range(4))
