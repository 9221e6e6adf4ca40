"""No secret reaches the journal file through any write path the wallet uses."""

import pytest

from tclk_tui.store import SECRET_PLACEHOLDER, Journal, SecretRefused, StoreError

PREIMAGE = bytes.fromhex("5a" * 32)
OFFER = "0x" + "d0" * 32


class Secretish:
    """Shaped like the vault's SecretValue (the store may not import the vault)."""

    def __init__(self, value: bytes) -> None:
        self._value = value

    def reveal(self) -> bytes:
        return self._value

    def __str__(self) -> str:  # a careless str() would leak; the guard must refuse first
        return self._value.hex()


def file_bytes(journal: Journal) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm"):
        part = journal.path.with_name(journal.path.name + suffix)
        if part.exists():
            data += part.read_bytes()
    return data


def test_secret_objects_are_refused_everywhere(journal):
    secret = Secretish(PREIMAGE)
    attempts = [
        lambda: journal.deals.add(offer_id=OFFER, role="payee", status="s", terms={"x": secret}),
        lambda: journal.deals.add(offer_id=OFFER, role="payee", status="s", terms={"l": [secret]}),
        lambda: journal.settings.set("k", secret),
        lambda: journal.outbox.enqueue(room="r", text=secret),
        lambda: journal.records.add(
            room="r", generation=1, seq=1, ts_ms=1, sender="did:key:a", line=secret
        ),
        lambda: journal.identities.add(secret),
    ]
    for attempt in attempts:
        with pytest.raises(SecretRefused):
            attempt()


@pytest.mark.parametrize(
    "key", ["secret", "preimage", "witness", "seed", "privateKey", "private_key", "passphrase"]
)
def test_terms_may_not_name_a_secret(journal, key):
    with pytest.raises(SecretRefused):
        journal.deals.add(
            offer_id=OFFER, role="payee", status="s", terms={"nested": {key: PREIMAGE.hex()}}
        )


def test_a_reveal_frame_carrying_its_secret_is_refused(journal):
    line = (
        'tclk1 {"contract":"0x01","from":"did:key:z6Mka","secret":"0x'
        + PREIMAGE.hex()
        + '","type":"reveal"}'
    )
    with pytest.raises(SecretRefused):
        journal.outbox.enqueue(room="r", text=line, secret_ref="deal/x/1/preimage")


def test_the_file_never_holds_a_secret_after_a_full_workflow(journal):
    secret_hex = PREIMAGE.hex()
    refused = 0
    journal.identities.add("did:key:z6Mkalice", "desk")
    deal = journal.deals.add(
        offer_id=OFFER,
        role="payee",
        status="accepted",
        terms={"statement": "0x" + "ab" * 32, "amount": "10"},
    )
    for bad in (
        lambda: journal.deals.update(deal.id, terms={"preimage": secret_hex}),
        lambda: journal.outbox.enqueue(
            room="r", text='tclk1 {"secret":"0x' + secret_hex + '","type":"reveal"}'
        ),
        lambda: journal.settings.set("last", Secretish(PREIMAGE)),
    ):
        with pytest.raises(StoreError):
            bad()
        refused += 1
    placeholder = 'tclk1 {"secret":"' + SECRET_PLACEHOLDER + '","type":"reveal"}'
    item = journal.outbox.enqueue(room="r", text=placeholder,
                                  secret_ref=f"deal/{OFFER}/00aa/preimage")
    journal.outbox.mark_posted(item.id, nonce="77")
    journal.nonces.save("did:key:z6Mkalice", "r", 77)
    journal.settings.set("theme", "dark")
    assert refused == 3
    data = file_bytes(journal)
    assert data  # the journal did write
    assert secret_hex.encode() not in data and PREIMAGE not in data
    journal.close()
    assert secret_hex.encode() not in journal.path.read_bytes()
