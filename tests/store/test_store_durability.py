import multiprocessing
import os

import pytest

from tclk_tui.store import Journal, OutboxState

OFFER = "0x" + "d0" * 32


def _write_then_die(path: str, done) -> None:
    journal = Journal(path)
    deal = journal.deals.add(offer_id=OFFER, role="payer", status="locking", terms={"a": 1})
    journal.outbox.enqueue(room="d-x", text="tclk1 {}", deal_id=deal.id, nonce="42")
    journal.nonces.save("did:key:z6Mka", "d-x", 42)
    done.set()
    os._exit(0)  # no close(), no checkpoint, no interpreter cleanup: a crash


def _writer(path: str, tag: str, count: int, start) -> None:
    start.wait(30)
    with Journal(path) as journal:
        for i in range(count):
            journal.deals.add(offer_id=OFFER, role=tag, status="s", terms={"i": i})
            journal.nonces.save("did:key:z6Mkshared", "room", i + 1)


def test_acknowledged_writes_survive_a_crash(tmp_path):
    path = tmp_path / "j.sqlite"
    ctx = multiprocessing.get_context("spawn")
    done = ctx.Event()
    proc = ctx.Process(target=_write_then_die, args=(str(path), done))
    proc.start()
    proc.join(60)
    assert done.is_set() and proc.exitcode == 0
    with Journal(path) as journal:
        (deal,) = journal.deals.all()
        assert deal.status == "locking"
        (item,) = journal.outbox.unfinished()
        assert item.state is OutboxState.PENDING and item.deal_id == deal.id
        assert journal.nonces.load("did:key:z6Mka", "d-x") == 42


def test_two_processes_write_one_journal(tmp_path):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(str(path), tag, 30, start)) for tag in "ab"]
    for proc in procs:
        proc.start()
    start.set()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    with Journal(path) as journal:
        roles = [d.role for d in journal.deals.all()]
        assert roles.count("a") == 30 and roles.count("b") == 30
        assert journal.nonces.load("did:key:z6Mkshared", "room") == 30


def test_a_failed_transaction_leaves_nothing_half_written(journal):
    deal = journal.deals.add(offer_id=OFFER, role="payer", status="offered", terms={})
    with pytest.raises(RuntimeError), journal.db.transaction() as conn:
        conn.execute("UPDATE deals SET status = 'locked' WHERE id = ?", (deal.id,))
        conn.execute("INSERT INTO settings VALUES ('k', 'v', 0)")
        raise RuntimeError("crash between two writes of one transaction")
    assert journal.deals.get(deal.id).status == "offered"
    assert journal.settings.get("k") is None
    journal.settings.set("k", "after")  # no transaction was left open
    assert journal.settings.get("k") == "after"


def test_a_transaction_that_skips_the_fsync_puts_full_sync_back(journal):
    """`durable=False` (an agent's audit row of a read) commits at synchronous NORMAL; every
    write after it, and after one that raised, is back at FULL."""
    def synchronous() -> int:
        with journal.db.connection() as conn:
            return conn.execute("PRAGMA synchronous").fetchone()[0]

    with journal.db.transaction(durable=False) as conn:
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        conn.execute("INSERT INTO settings VALUES ('light', 'v', 0)")
    assert synchronous() == 2 and journal.settings.get("light") == "v"
    with pytest.raises(RuntimeError), journal.db.transaction(durable=False) as conn:
        conn.execute("INSERT INTO settings VALUES ('lost', 'v', 0)")
        raise RuntimeError("crash inside a light write")
    assert synchronous() == 2 and journal.settings.get("lost") is None
