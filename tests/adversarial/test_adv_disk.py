"""A full disk at a step the existing cases do not fill: the error is typed and says what
happened (on the rail and on the venue), and nothing is lost once there is room again."""

from __future__ import annotations

import sqlite3

import pytest

from tclk_tui.engine.commands import CommandError, execute
from tclk_tui.engine.errors import JournalUnwritable
from tests.engine.helpers import Pair, arbitrated_deal, lock_as_payer, payer_offer_accepted


async def test_a_full_disk_after_the_claim_says_the_claim_went_through(pair: Pair,
                                                                       monkeypatch):
    """The rail took the claim; the journal refuses the reveal frame: the error says the
    claim went through (the money is the payee's now), and once there is room the reveal is
    posted without a second claim."""
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    request = deal_b.request_reveal()
    assert request.allowed, request.blockers
    journal = pair.bob.journal

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(journal.outbox, "enqueue", full)
    with pytest.raises(JournalUnwritable) as caught:
        await deal_b.confirm(request, typed_code=request.confirm_code)
    assert pair.memory.status(deal_b.state.contract) == "claimed"
    assert "claim" in str(caught.value), str(caught.value)
    monkeypatch.undo()
    again = deal_b.request_reveal()
    assert again.allowed, again.blockers
    await deal_b.confirm(again, typed_code=again.confirm_code)
    await pair.sync()
    assert deal_a.state.status == deal_b.state.status == "claimed"


async def test_a_full_disk_after_the_rail_lock_says_the_amount_is_locked(pair: Pair,
                                                                        monkeypatch):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    request = deal_a.request_lock("memory")

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(pair.alice.journal.outbox, "enqueue", full)
    with pytest.raises(JournalUnwritable, match="locked on memory"):
        await deal_a.confirm(request)
    monkeypatch.undo()
    await lock_as_payer(pair, deal_a, "memory")  # announced now, and locked once
    assert pair.memory.status(deal_a.state.contract) == "locked"


async def test_a_full_disk_while_the_mail_is_read_is_a_typed_refusal(pair: Pair, monkeypatch):
    """A reveal reads the sealed mail first; a journal that refuses the mail's own records
    (the mailbox cursor, a channel) is the journal's refusal, said as such, not a fault."""
    carol = await pair.open("carol")
    offer_id, _, _ = await arbitrated_deal(pair, [carol])
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(pair.bob.journal.settings, "set", full)
    monkeypatch.setattr(pair.bob.journal.settings, "set_object", full)
    code = pair.bob.deal(offer_id).state.contract[2:6]
    with pytest.raises(CommandError) as caught:
        await execute(pair.bob, "reveal", {"deal": offer_id[:10], "confirm": code})
    assert caught.value.kind != "internal", caught.value
    assert "disk is full" in caught.value.message, caught.value.message
    monkeypatch.undo()
    answer = await execute(pair.bob, "reveal", {"deal": offer_id[:10], "confirm": code})
    assert answer["status"] == "claimed"


async def test_a_full_disk_under_any_command_is_the_journals_refusal(pair: Pair, monkeypatch):
    """Whatever write a command meets the full disk at, the answer is a refusal naming the
    journal, never an unexpected fault (here: an arbiter's withhold, kept in a setting)."""
    carol = await pair.open("carol")
    offer_id, _, _ = await arbitrated_deal(pair, [carol])

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    await carol.referee.refresh()  # the case's contract known, so the code is the contract's
    code = carol.referee.request_withhold(offer_id).confirm_code
    monkeypatch.setattr(carol.journal.settings, "set", full)
    monkeypatch.setattr(carol.journal.settings, "set_object", full)
    with pytest.raises(CommandError) as caught:
        await execute(carol, "withhold", {"offer": offer_id[:10], "confirm": code})
    assert caught.value.kind == "refused", caught.value
    assert "disk is full" in caught.value.message
