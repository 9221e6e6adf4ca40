import pytest

from tclk_tui.technocore.errors import MalformedResponse
from tclk_tui.technocore.notes import (
    compose_did_note,
    parse_did_note,
    parse_mailbox,
    parse_note_body,
)

from .helpers import PAYEE, PAYER

BANNER = "!! UNTRUSTED CONTENT — the lines below were written by other agents or by anonymous."


def test_note_value_is_the_line_after_the_banner():
    assert parse_note_body(f"{BANNER}\n\nlocked escrow-42\n", "a", "b") == "locked escrow-42"


def test_note_value_ignores_a_budget_footer():
    body = f"{BANNER}\n\nvalue\n# budget: 20 of 120 reads left this minute\n"
    assert parse_note_body(body, "a", "b") == "value"


@pytest.mark.parametrize("body", ["", "just one line\n", f"{BANNER}\n\n\n", f"{BANNER}\n\n a\n",
                                  f"{BANNER}\n\n" + "x" * 8193 + "\n"])
def test_impossible_note_bodies_are_malformed(body):
    with pytest.raises(MalformedResponse):
        parse_note_body(body, "a", "b")


def test_did_note_round_trip_with_mailbox_and_rails():
    value = compose_did_note(PAYER.did, None, mailbox="mb-p-abc123", rails=["x402", "flop-htlc"])
    assert value == f"{PAYER.did} mailbox:mb-p-abc123 tclk1:flop-htlc,x402"
    note = parse_did_note(PAYER.did, "did-06", "58808e85cc8317", value, legacy=False)
    assert note.names_did and note.speaks_tclk
    assert note.mailbox == "mb-p-abc123"
    assert note.rails == ("flop-htlc", "x402")


def test_compose_keeps_tokens_it_does_not_manage_and_replaces_the_ones_it_does():
    current = (f"{PAYER.did} x25519:AAAA mailbox:mb-p-old tclk1:x402 "
               "e2e: AAAA mb-p-old 5 SIG")
    value = compose_did_note(PAYER.did, current, mailbox="mb-p-new", rails=["paper"])
    assert value == (f"{PAYER.did} mailbox:mb-p-new tclk1:paper x25519:AAAA "
                     "e2e: AAAA mb-p-old 5 SIG")


def test_compose_keeps_the_mailbox_when_not_given():
    current = f"{PAYER.did} mailbox: mb-p-spaced"
    assert compose_did_note(PAYER.did, current, rails=["x402"]) == (
        f"{PAYER.did} tclk1:x402 mailbox: mb-p-spaced"
    )


def test_compose_discards_a_note_that_names_someone_else():
    current = f"{PAYEE.did} mailbox:mb-p-evil"
    assert compose_did_note(PAYER.did, current, rails=["x402"]) == f"{PAYER.did} tclk1:x402"


def test_compose_refuses_bad_inputs():
    with pytest.raises(ValueError):
        compose_did_note("did:key:nope", None)
    with pytest.raises(ValueError):
        compose_did_note(PAYER.did, None, mailbox="Bad Room")
    with pytest.raises(ValueError):
        compose_did_note(PAYER.did, None, extra=["line\nbreak"])


@pytest.mark.parametrize(
    ("value", "mailbox"),
    [
        ("did mailbox:mb-p-a", "mb-p-a"),
        ("did mailbox: mb-p-b", "mb-p-b"),
        ("did mailbox:Not_Valid", None),
        ("did", None),
        ("did mailbox:", None),
    ],
)
def test_mailbox_token_forms(value, mailbox):
    assert parse_mailbox(value.split()) == mailbox


def test_note_not_naming_its_did_is_flagged():
    note = parse_did_note(PAYER.did, "did-06", "x", f"{PAYEE.did} tclk1:x402", legacy=True)
    assert not note.names_did and not note.speaks_tclk and note.legacy


def test_bad_capability_token_gives_no_rails():
    note = parse_did_note(PAYER.did, "ns", "k", f"{PAYER.did} tclk1:x402,,paper", legacy=False)
    assert note.rails is None and not note.speaks_tclk
