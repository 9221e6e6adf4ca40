"""The command registry: declarations, param checks against their JSON Schema, gates that only
state facts until confirmed, and answers that never carry a secret."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.engine.commands import (
    ERROR_KINDS,
    REGISTRY,
    CommandError,
    Param,
    execute,
)
from tclk_tui.engine.legal import DEAL_ACTIONS
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import draft, payer_offer_accepted

GATED = {"lock", "reveal", "refund", "cancel", "release", "seed-backup", "seed-restore",
         "secret-reveal", "split", "combine", "commit-vote", "withhold", "mint", "vote"}


def test_every_command_is_declared_whole():
    for name, command in REGISTRY.items():
        assert command.name == name and name == name.lower() and " " not in name
        assert command.summary and command.result and "\n" not in command.summary
        names = [p.name for p in command.params]
        assert len(names) == len(set(names)), name
        for param in command.params:
            assert param.help, (name, param.name)
            assert param.base in (str, int, bool, list), (name, param.name)
            assert not (param.required and param.default is not None), (name, param.name)
            if param.default is not None:
                param.check(param.default)  # a default is a valid value
    assert {n for n, c in REGISTRY.items() if c.gated} == GATED
    for name in GATED:
        assert REGISTRY[name].confirm in REGISTRY[name].param_names


def test_every_action_the_engine_offers_on_a_deal_is_a_command():
    assert set(DEAL_ACTIONS) <= set(REGISTRY)


def test_each_json_schema_is_valid_and_mirrors_the_params():
    kinds = {str: "string", int: "integer", bool: "boolean", list: "array"}
    for command in REGISTRY.values():
        schema = command.json_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        assert set(schema["properties"]) == command.param_names
        assert schema["required"] == [p.name for p in command.params if p.required]
        for param in command.params:
            prop = schema["properties"][param.name]
            assert prop["type"] == kinds[param.base]
            assert prop["description"] == param.help
            assert prop.get("enum") == (list(param.choices) if param.choices else None)
            assert prop.get("default") == param.default


def _values(param: Param) -> st.SearchStrategy:
    anything = st.one_of(st.text(max_size=8), st.integers(-3, 10**6), st.booleans(),
                         st.lists(st.text(max_size=4), max_size=3))
    if param.choices:
        return st.one_of(st.sampled_from(param.choices), anything)
    return anything


@st.composite
def _calls(draw):
    command = draw(st.sampled_from(sorted(REGISTRY.values(), key=lambda c: c.name)))
    params = {}
    for param in command.params:
        if draw(st.booleans()):
            params[param.name] = draw(_values(param))
    if draw(st.integers(0, 9)) == 0:
        params["bogus"] = 1
    return command, params


@settings(max_examples=400, deadline=None)
@given(_calls())
def test_params_are_accepted_exactly_when_the_json_schema_accepts_them(call):
    command, params = call
    valid = jsonschema.Draft202012Validator(command.json_schema()).is_valid(params)
    try:
        bound = command.bind(params)
    except CommandError as exc:
        assert exc.kind == "usage"
        assert not valid, (command.name, params, exc.message)
    else:
        assert valid, (command.name, params)
        assert set(bound) == command.param_names


async def test_execute_refuses_a_bad_call_as_usage_before_touching_the_wallet():
    for name, params in [("nosuch", {}), ("status", {}), ("status", {"deal": 5}),
                         ("status", {"deal": "x", "extra": 1}), ("board", {"all": "yes"}),
                         ("offer", {"amount": "1", "asset": "A", "rails": "memory",
                                    "role": "thief"}),
                         ("audit", {"files": []})]:
        with pytest.raises(CommandError) as caught:
            await execute(None, name, params)
        assert caught.value.kind == "usage", (name, params)
        assert caught.value.exit_code == 2


def test_error_kinds_round_trip_through_their_json_form():
    for kind in ERROR_KINDS:
        error = CommandError(kind, "why", {"gate": {"allowed": False}})
        again = CommandError.from_dict(json.loads(json.dumps(error.to_dict())))
        assert (again.kind, again.message, again.data) == (kind, "why", error.data)
        assert again.exit_code == (2 if kind in ("usage", "confirmation-required") else 1)
    assert CommandError.from_dict({"kind": "made-up", "message": "m"}).kind == "internal"


def _outbox_and_rooms(wallet):
    return (len(wallet.journal.outbox.items()), len(wallet.journal.records.of_room(OFFER_ROOM)))


async def test_gated_commands_state_facts_and_perform_nothing_until_confirmed(pair):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    contract = deal_a.state.contract
    before = _outbox_and_rooms(pair.alice)

    for name, params in [("lock", {"deal": offer_id[:12]}),
                         ("cancel", {"deal": offer_id[:12]}),
                         ("refund", {"deal": offer_id})]:
        answer = await execute(pair.alice, name, params)
        assert answer["performed"] is False, name
        gate = answer["gate"]
        assert gate["deal"] == offer_id and gate["contract"] == contract
        assert gate["facts"] and all(set(f) == {"label", "ok", "detail"} for f in gate["facts"])
        assert gate["confirm"] == {"param": "yes", "code_required": False,
                                   "prompt": REGISTRY[name].param("yes").help}
        json.dumps(answer)  # JSON all the way down
    refund = await execute(pair.alice, "refund", {"deal": offer_id})
    assert refund["gate"]["allowed"] is False and refund["gate"]["blockers"]
    assert (await execute(pair.alice, "lock", {"deal": offer_id}))["gate"]["allowed"] is True

    await pair.sync()
    assert _outbox_and_rooms(pair.alice) == before
    assert await pair.memory.lock_status(contract) is None
    assert deal_a.state.status == deal_b.state.status == "accepted"

    locked = await execute(pair.alice, "lock", {"deal": offer_id, "yes": True})
    assert locked["performed"] is True and locked["status"] == "locked"
    assert await pair.memory.lock_status(contract) == "locked"


async def test_reveal_asks_for_the_code_without_saying_it_and_never_answers_a_secret(pair):
    offer_id, _deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await execute(pair.alice, "lock", {"deal": offer_id, "yes": True})
    await pair.sync()
    contract = deal_b.state.contract
    secret = pair.bob.keeper.deal_secret(offer_id)
    assert secret is not None
    outbox = len(pair.bob.journal.outbox.items())

    answer = await execute(pair.bob, "reveal", {"deal": offer_id})
    assert answer["performed"] is False
    gate = answer["gate"]
    assert gate["allowed"] is True, gate["blockers"]
    assert gate["confirm"]["param"] == "confirm" and gate["confirm"]["code_required"] is True
    assert contract[2:6] not in json.dumps(gate["confirm"])
    with pytest.raises(CommandError) as caught:
        await execute(pair.bob, "reveal", {"deal": offer_id, "confirm": contract[2:10]})
    assert caught.value.kind == "usage" and "gate" in caught.value.data
    assert len(pair.bob.journal.outbox.items()) == outbox
    assert deal_b.state.status == "locked"

    claimed = await execute(pair.bob, "reveal", {"deal": offer_id,
                                                 "confirm": contract[2:6].upper()})
    assert claimed["performed"] is True and claimed["status"] == "claimed"
    await pair.sync()
    answers = [answer, claimed]
    for wallet in (pair.alice, pair.bob):
        for name, params in [("status", {"deal": offer_id}), ("deals", {}),
                             ("board", {"all": True}), ("identity", {}), ("rails", {}),
                             ("receipt", {"deal": offer_id})]:
            answers.append(await execute(wallet, name, params))
    text = json.dumps(answers)
    seed = pair.bob.vault.export_seed()
    assert secret not in text and secret.lower() not in text.lower()
    assert seed not in text


async def test_refusals_have_kinds(pair):
    view = await pair.alice.post_offer(draft(rails="memory"))
    await pair.bob.sync()
    cases = [
        (pair.alice, "status", {"deal": "0xdeadbeef"}, "not-found"),
        (pair.bob, "accept", {"offer": "zz"}, "not-found"),
        (pair.alice, "accept", {"offer": view.deal_id}, "refused"),
        (pair.alice, "heartbeat", {"deal": view.deal_id}, "refused"),
        (pair.alice, "offer", {"amount": "01", "asset": "FLOP", "rails": "memory"}, "usage"),
    ]
    for wallet, name, params, kind in cases:
        with pytest.raises(CommandError) as caught:
            await execute(wallet, name, params)
        assert caught.value.kind == kind, (name, caught.value.message)
        assert caught.value.message
    with pytest.raises(CommandError) as caught:
        await execute(pair.alice, "offer", {"amount": "01", "asset": "FLOP", "rails": "memory"})
    assert [f["field"] for f in caught.value.data["fields"]] == ["amount"]


async def test_a_cancel_confirmed_goes_through_and_a_late_blocker_is_a_refusal(pair):
    view = await pair.alice.post_offer(draft(rails="memory"))
    cancelled = await execute(pair.alice, "cancel", {"deal": view.deal_id, "yes": True})
    assert cancelled["performed"] is True and cancelled["status"] == "cancelled"
    with pytest.raises(CommandError) as caught:
        await execute(pair.alice, "cancel", {"deal": view.deal_id, "yes": True})
    assert caught.value.kind == "refused" and caught.value.data["gate"]["allowed"] is False


async def test_board_limit_and_a_vote_tally(pair):
    first = await pair.alice.post_offer(draft(rails="memory"))
    await pair.alice.post_offer(draft(rails="memory", amount="9"))
    await pair.bob.sync()
    board = await execute(pair.bob, "board", {"limit": 1})
    assert board["total"] == 2 and len(board["offers"]) == 1
    assert len((await execute(pair.bob, "board", {}))["offers"]) == 2

    await pair.bob.accept_offer(first.deal_id)
    await pair.alice.sync()
    contract = pair.alice.deal(first.deal_id).state.contract
    panel = {"contract": contract, "jurors": [pair.alice.did]}
    assert (await execute(pair.bob, "tally", panel))["counts"] == {}
    vote = pair.alice.arbitration.commit_vote(contract, "payee")
    await pair.alice.arbitration.post_commit(vote)
    await pair.alice.arbitration.post_reveal(vote)
    tally = await execute(pair.bob, "tally", panel)
    assert tally["counts"] == {"payee": 1} and tally["reveals"] == {pair.alice.did: "payee"}
    assert vote.salt not in json.dumps(tally)
    with pytest.raises(CommandError) as caught:
        await execute(pair.bob, "tally", {"contract": "0xnot-a-contract",
                                          "jurors": [pair.alice.did]})
    assert caught.value.kind == "refused"


def test_a_command_that_shows_or_takes_a_secret_is_gated_and_hand_spelt_or_off_the_cli():
    for command in REGISTRY.values():
        if command.shows_secret:
            assert command.gated, command.name
        if command.shows_secret or any(p.secret for p in command.params):
            assert command.cli is not True, command.name  # never a generated argv option
    assert {n for n, c in REGISTRY.items() if c.shows_secret} == {
        "seed-backup", "secret-reveal", "split", "combine", "commit-vote"}


async def test_the_secret_commands_show_it_only_once_confirmed(pair):
    offer_id, _deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await execute(pair.alice, "lock", {"deal": offer_id, "yes": True})
    await pair.sync()
    secret, seed = pair.bob.keeper.deal_secret(offer_id), pair.bob.vault.export_seed()
    contract = deal_b.state.contract
    assert secret is not None and contract is not None

    asked = await execute(pair.bob, "secret-reveal", {"deal": offer_id[:12]})
    assert asked["performed"] is False and asked["gate"]["confirm"]["code_required"] is True
    asked_seed = await execute(pair.bob, "seed-backup", {})
    assert asked_seed["performed"] is False and asked_seed["gate"]["action"] == "seed-backup"
    with pytest.raises(CommandError) as caught:
        await execute(pair.bob, "secret-reveal", {"deal": offer_id, "confirm": "zzzz"})
    assert caught.value.kind == "usage" and caught.value.data["wrong_code"] is True
    unconfirmed = json.dumps([asked, asked_seed, caught.value.to_dict()])
    assert secret not in unconfirmed and seed not in unconfirmed

    shown = await execute(pair.bob, "secret-reveal", {"deal": offer_id,
                                                      "confirm": contract[2:6]})
    assert shown == {"deal": offer_id, "secret": secret, "performed": True}
    assert await execute(pair.bob, "seed-backup", {"yes": True}) == {"seed": seed,
                                                                   "performed": True}
    with pytest.raises(CommandError) as caught:  # a seed in use is never replaced
        await execute(pair.alice, "seed-restore", {"seed": seed, "replace": True})
    assert caught.value.kind == "refused" and seed not in json.dumps(caught.value.to_dict())
    assert pair.alice.vault.export_seed() != seed


def test_one_mapping_of_failures_to_kinds_for_every_face():
    from tclk_tui.engine.commands import as_command_error, command_error
    from tclk_tui.engine.gates import GateRefused, WrongCode
    from tclk_tui.vault.errors import SeedMissing

    cases = [(GateRefused("blocked"), "refused", "refused: blocked"),
             (WrongCode("the code does not match"), "usage", "the code does not match"),
             (SeedMissing("no seed"), "vault", "no seed"),
             (ValueError("the venue URL names no host"), "refused",
              "the venue URL names no host"),
             (ExceptionGroup("one", [SeedMissing("no seed")]), "vault", "no seed")]
    for exc, kind, message in cases:
        mapped = command_error(exc)
        assert (mapped.kind, mapped.message) == (kind, message), exc
        assert as_command_error(exc) is not None
    unexpected = command_error(TypeError("0x" + "ab" * 32))  # a message may quote anything
    assert (unexpected.kind, unexpected.message) == ("internal", "unexpected TypeError")
    assert as_command_error(TypeError("x")) is None
