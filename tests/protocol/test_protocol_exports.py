"""The package exports every reference name in snake_case, so a conformance checker can bind."""

import tclk_tui.protocol as protocol

ISSUE_NAMES = """canonical_json encode_frame decode_frame try_decode_frame validate_frame offer_id
contract_id make_offer make_accept make_heartbeat normalize_rail_id normalize_rail_ids
matching_rails rail_sets_match offer_includes_rail capability_token parse_capability_token
generate_hash_lock hash_lock_from_preimage generate_point_lock point_lock_from_witness
verify_secret validate_deadlines get_public_key pre_sign verify_pre_signature adapt
verify_signature extract_witness split_secret combine_secret split_witness combine_witness
vote_commitment verify_vote_commitment generate_salt open_contract apply_frame funding_outlook
did_key_from_public_key public_key_from_did_key verify_transcript_record transcript_record
parse_transcript_export fold_transcript find_contract_handshake check_nonce_order deal_room
state_note encode_state_note parse_state_note paper_note did_fingerprint a2a_state acp_phase
a2a_job acp_job is_tclk_line is_valid_statement verify_hash_preimage verify_point_witness
lock_terms encode_paper_record decode_paper_record""".split()


def test_every_reference_name_is_exported_and_callable():
    missing = [name for name in ISSUE_NAMES if not callable(getattr(protocol, name, None))]
    assert missing == []
    assert set(ISSUE_NAMES) <= set(protocol.__all__)


def test_state_and_step_read_like_the_reference():
    offer = protocol.make_offer(
        from_="did:key:z6Mk" + "f" * 44, role="payer", amount="1", asset="FLOP", lock="hash",
        rails=["paper"], claim_by_ms=2_000, refund_after_ms=3_000, expires_ms=1_000)
    state = protocol.open_contract(offer)
    step = protocol.apply_frame(state, {"type": "nonsense"}, 0)
    assert step.ok is False and step["ok"] is False
    assert step.state is state
    for name in ("status", "offer", "payer_did", "payee_did", "payer_key", "payee_key",
                 "contract", "statement", "rail", "rail_ref", "presig", "secret"):
        assert hasattr(state, name)
    assert state["status"] == "proposed"
