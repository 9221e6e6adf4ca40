"""Offer and contract ids: the worked examples of the reference, byte for byte."""

from __future__ import annotations

import hashlib

from tclk_tui.protocol.builders import make_accept, make_offer
from tclk_tui.protocol.canonical import canonical_json, to_ascii
from tclk_tui.protocol.ids import accept_core, contract_id, domain_hash, offer_id

from .test_protocol_frames import GOLDEN, PAYEE, PAYER, golden

GOLDEN_OFFER_ID = "0xd001fbbf4fa36d9ab8ea88df02a8b3303539e9d59f7ff9d9bfeb679318e9ce75"
GOLDEN_CONTRACT_ID = "0x2768bf32b455317879796093ff2e5882371cbec238611ca71f555a7fcbe58e1c"

GOLDEN_OFFER_PREIMAGE = (
    'FLOP::tclk::v1|offer|{"amount":"1000000","asset":"FLOP","claimByMs":1756703600000,'
    '"expiresMs":1756700600000,"from":"did:key:z6Mkffffffffffffffffffffffffffffffffffffffffffff",'
    '"job":{"context":"ctx-1","id":"task-3f","proto":"a2a"},"lock":"hash","nonce":'
    '"9f2c81d04c9e1f7a","rails":["flop-htlc","x402"],"refundAfterMs":1756707200000,"role":'
    '"payer","type":"offer"}'
)
GOLDEN_CONTRACT_PREIMAGE = (
    'FLOP::tclk::v1|contract|{"accept":{"from":"did:key:z6Mkgggggggggggggggggggggggggggggggggggggg'
    'gggggg","nonce":"0011223344556677","ref":"0xd001fbbf4fa36d9ab8ea88df02a8b3303539e9d59f7ff9d9b'
    'feb679318e9ce75","statement":"0xabababababababababababababababababababababababababababababab'
    'abab"},"offer":{"amount":"1000000","asset":"FLOP","claimByMs":1756703600000,"expiresMs":175'
    '6700600000,"from":"did:key:z6Mkffffffffffffffffffffffffffffffffffffffffffff","id":"0xd001fb'
    'bf4fa36d9ab8ea88df02a8b3303539e9d59f7ff9d9bfeb679318e9ce75","job":{"context":"ctx-1","id":"t'
    'ask-3f","proto":"a2a"},"lock":"hash","nonce":"9f2c81d04c9e1f7a","rails":["flop-htlc","x402"]'
    ',"refundAfterMs":1756707200000,"role":"payer","type":"offer"}}'
)


def sha(text: str) -> str:
    return "0x" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_golden_offer_preimage_and_id() -> None:
    offer = golden("offer")
    assert len(GOLDEN_OFFER_PREIMAGE.encode()) == 359
    body = {k: v for k, v in offer.items() if k != "id"}
    assert "FLOP::tclk::v1|offer|" + canonical_json(body) == GOLDEN_OFFER_PREIMAGE
    assert sha(GOLDEN_OFFER_PREIMAGE) == GOLDEN_OFFER_ID
    assert offer_id(offer) == GOLDEN_OFFER_ID
    assert offer["id"] == GOLDEN_OFFER_ID


def test_golden_contract_preimage_and_id() -> None:
    assert len(GOLDEN_CONTRACT_PREIMAGE.encode()) == 706
    core = accept_core(golden("accept"))
    assert core == {
        "from": PAYEE,
        "ref": GOLDEN_OFFER_ID,
        "statement": "0x" + "ab" * 32,
        "nonce": "0011223344556677",
    }
    payload = canonical_json({"offer": golden("offer"), "accept": core})
    assert "FLOP::tclk::v1|contract|" + payload == GOLDEN_CONTRACT_PREIMAGE
    assert sha(GOLDEN_CONTRACT_PREIMAGE) == GOLDEN_CONTRACT_ID
    assert contract_id(golden("offer"), core) == GOLDEN_CONTRACT_ID


def test_contract_id_takes_the_whole_accept_frame_but_hashes_only_the_core() -> None:
    accept = golden("accept")
    assert contract_id(golden("offer"), accept) == GOLDEN_CONTRACT_ID
    assert contract_id(golden("offer"), {**accept, "contract": "0x00", "type": "x"}) == (
        GOLDEN_CONTRACT_ID
    )


def test_contract_id_commits_to_the_payment_key_when_present() -> None:
    core = {**accept_core(golden("accept")), "paymentKey": "0x02" + "00" * 32}
    assert contract_id(golden("offer"), core) != GOLDEN_CONTRACT_ID
    assert accept_core({**golden("accept"), "paymentKey": "k"})["paymentKey"] == "k"


def test_golden_accept_builds_to_the_golden_line() -> None:
    accept = make_accept(
        golden("offer"), from_=PAYEE, statement="0x" + "ab" * 32, nonce="0011223344556677"
    )
    assert accept == GOLDEN["accept"]["frame"]


def test_offer_id_ignores_the_id_field_and_commits_to_everything_else() -> None:
    offer = golden("offer")
    assert offer_id({**offer, "id": "whatever"}) == GOLDEN_OFFER_ID
    assert offer_id({**offer, "rails": ["x402", "flop-htlc"]}) != GOLDEN_OFFER_ID
    assert offer_id({**offer, "nonce": "9f2c81d04c9e1f7b"}) != GOLDEN_OFFER_ID
    del offer["job"]
    assert offer_id(offer) != GOLDEN_OFFER_ID


def test_domain_hash_format() -> None:
    assert domain_hash("t", "p") == sha("FLOP::tclk::v1|t|p")
    assert domain_hash("t", "é") == sha("FLOP::tclk::v1|t|\\u00e9")
    assert domain_hash("t", "\x7f") == "0x" + hashlib.sha256(b"FLOP::tclk::v1|t|\x7f").hexdigest()


def non_ascii_offer(**overrides: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "from_": PAYER,
        "role": "payer",
        "amount": "100",
        "asset": "FLOP",
        "lock": "hash",
        "rails": ["flop-htlc"],
        "claim_by_ms": 1756703600000,
        "refund_after_ms": 1756707200000,
        "expires_ms": 1756700600000,
        "job": {"proto": "a2a", "id": "t\u00e2che-1"},
        "nonce": "9f2c81d04c9e1f7a",
    }
    fields.update(overrides)
    return make_offer(**fields)  # type: ignore[arg-type]


def test_non_ascii_offer_id_is_over_the_escaped_form() -> None:
    offer = non_ascii_offer()
    assert offer["id"] == "0xfdad69c602bef151596e3e914cc3ca05b1ccd009211b57c4fdbf0ba0e0d4635b"
    body = canonical_json({k: v for k, v in offer.items() if k != "id"})
    assert '"job":{"id":"t\\u00e2che-1","proto":"a2a"}' in to_ascii(body)
    unescaped = "0x" + hashlib.sha256(("FLOP::tclk::v1|offer|" + body).encode()).hexdigest()
    assert unescaped.startswith("0x8c0b8632") and unescaped.endswith("4a84")


def test_complex_escape_offer_id() -> None:
    offer = non_ascii_offer(
        from_="did:key:z6Mk" + "a" * 44,
        amount="1",
        claim_by_ms=1760003600000,
        refund_after_ms=1760007200000,
        expires_ms=1760000600000,
        job={"proto": "a2a", "id": 'a\nb\tc"d\\e/f\x07g\u00e9h\U0001f600'},
    )
    assert offer["id"] == "0x6d256c211f927c2c23a874d35f4b5372de66b4642274ed8a8b62b73ca5bf6a58"
    wire = to_ascii(canonical_json(offer))
    assert '"job":{"id":"a\\nb\\tc\\"d\\\\e/f\\u0007g\\u00e9h\\ud83d\\ude00","proto":"a2a"}' in wire


def test_walkthrough_offer_and_contract_ids() -> None:
    offer = make_offer(
        from_="did:key:z6MkPayer" + "1" * 39,
        role="payer",
        amount="250000",
        asset="FLOP",
        lock="hash",
        rails=["flop-htlc"],
        claim_by_ms=1757300000000,
        refund_after_ms=1757386400000,
        expires_ms=1757213600000,
        job={"id": "task-42", "proto": "a2a"},
        nonce="9f2c81d04c9e1f7a",
    )
    assert offer["id"] == "0xdbc0e3f9910f05d1ec58f19b651c450c5a6cc811cb5065681cbfa99e82586ad2"
    preimage = bytes.fromhex("636f727265637420686f727365206261747465727920737461706c6500000000")
    assert preimage.rstrip(b"\0") == b"correct horse battery staple"
    statement = "0x" + hashlib.sha256(preimage).hexdigest()
    assert statement == "0x727bb39151c1814d9a0f0efd09957050613373667244b323eb485805137a8afe"
    accept = make_accept(
        offer, from_="did:key:z6MkPayee" + "2" * 39, statement=statement, nonce="b3e7f1a9c2d5e8f0"
    )
    assert accept["contract"] == (
        "0x2170eee6d5791f35c3277928155d1b87c2c1ffec7a1edb239d4a78e4f50427ea"
    )
