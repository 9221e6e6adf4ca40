"""The CLI is generated from the command registry: every engine subcommand, every option's help,
the JSON error contract with its exit codes, and answers equal to the engine's own."""

from __future__ import annotations

import argparse
import json

import pytest

from tclk_tui.cli import NON_ENGINE, build_parser, main
from tclk_tui.engine.commands import REGISTRY, execute
from tclk_tui.engine.wallet import Wallet
from tests.cli.helpers import run_cli, vault_of


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _words(text: str) -> str:
    return " ".join(text.split())


GENERATED = sorted(name for name, command in REGISTRY.items() if command.cli is True)


def test_every_subcommand_is_a_registry_command_or_one_of_the_few_hand_written():
    assert set(_subcommands(build_parser())) == set(GENERATED) | set(NON_ENGINE)
    assert not set(REGISTRY) & set(NON_ENGINE)
    for command in REGISTRY.values():  # a hand-written spelling is a subcommand that exists
        if isinstance(command.cli, str):
            group, sub = command.cli.split()
            assert group in NON_ENGINE
            assert sub in _subcommands(_subcommands(build_parser())[group]), command.name


@pytest.mark.parametrize("name", GENERATED)
def test_help_describes_the_command_and_every_param(name, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    command = REGISTRY[name]
    with pytest.raises(SystemExit) as exited:
        main([name, "--help"])
    assert exited.value.code == 0
    text = _words(capsys.readouterr().out)
    assert _words(command.summary) in text
    for param in command.params:
        flag = param.name if param.positional else "--" + param.name.replace("_", "-")
        assert flag in text, (name, flag)
        assert _words(param.help) in text, (name, param.name)
        if param.choices:
            assert "{" + ",".join(param.choices) + "}" in text
    with pytest.raises(SystemExit):
        main(["--help"])
    assert _words(command.summary) in _words(capsys.readouterr().out)


@pytest.mark.parametrize("argv", [
    ["--json", "offer"],
    ["offer", "--json", "--amount"],
    ["status", "--json"],
    ["--json", "nosuch"],
    ["board", "--json", "--all=3"],
    ["offer", "--json", "--amount", "1", "--asset", "A", "--rails", "paper",
     "--claim-in", "soon"],
    ["--json", "vault"],
])
def test_a_usage_error_with_json_is_a_json_error_and_exit_2(argv, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    error = json.loads(out)["error"]
    assert error["kind"] == "usage" and error["message"]
    assert err == ""


def test_a_usage_error_without_json_is_argparse_usage_on_stderr(capsys):
    assert main(["status"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: tclk-tui status")
    assert "required: deal" in err and "Traceback" not in err


async def test_refusals_answer_json_and_exit_1(venue, home):
    code, out, err = await run_cli(venue.url, home, "alice", "status", "0xdeadbeef", "--json")
    assert code == 1 and err == ""
    assert json.loads(out)["error"]["kind"] == "not-found"
    code, out, err = await run_cli("http://127.0.0.1:9", home, "alice", "--json", "board")
    assert code == 1 and err == ""
    error = json.loads(out)["error"]
    assert error["kind"] == "venue" and "cannot reach the venue" in error["message"]
    code, out, err = await run_cli(venue.url, home, "alice", "audit", str(home / "none.jsonl"),
                                   "--json")
    assert code == 1 and json.loads(out)["ok"] is False


async def test_gate_without_confirmation_and_answers_equal_the_engines(venue, home):
    async def run(profile, *args):
        code, out, err = await run_cli(venue.url, home, profile, *args)
        return code, (json.loads(out) if out.strip() else None), err

    code, offer, err = await run("alice", "offer", "--amount", "7", "--asset", "FLOP",
                                 "--rails", "paper", "--json")
    assert code == 0, err
    deal = offer["deal"]
    code, _accepted, err = await run("bob", "accept", deal[:12], "--json")
    assert code == 0, err

    code, answer, err = await run("alice", "lock", deal[:12], "--json")
    assert code == 2 and err == ""
    error = answer["error"]
    assert error["kind"] == "confirmation-required" and "--yes" in error["message"]
    assert error["gate"]["allowed"] is True and error["gate"]["facts"]
    code, _out, err = await run("alice", "lock", deal[:12])
    assert code == 2 and "[ok] rail offered: paper" in err and "--yes" in err
    code, answer, err = await run("alice", "refund", deal[:12], "--json")
    assert code == 1 and answer["error"]["kind"] == "refused"
    assert "the contract is accepted, not locked" in answer["error"]["gate"]["blockers"]

    cli_answers = {}
    for name, args in [("status", [deal[:12]]), ("deals", []), ("identity", []),
                       ("rails", [])]:
        code, cli_answers[name], err = await run("alice", name, *args, "--json")
        assert code == 0, err
    wallet = await Wallet.open("alice", venue_url=venue.url, data_dir=home,
                               vault=vault_of(home, "alice"), follow=False, one_shot=True)
    try:
        for name, params in [("status", {"deal": deal[:12]}), ("deals", {}), ("identity", {}),
                             ("rails", {})]:
            assert await execute(wallet, name, params) == cli_answers[name], name
    finally:
        await wallet.close()
    assert cli_answers["status"]["status"] == "accepted"
    assert cli_answers["deals"]["deals"][0]["deal"] == deal


async def test_a_refusal_prints_the_engines_own_reason(venue, home):
    code, out, err = await run_cli(venue.url, home, "alice", "offer", "--amount", "7",
                                   "--asset", "FLOP", "--rails", "paper", "--json")
    assert code == 0, err
    deal = json.loads(out)["deal"]
    code, out, err = await run_cli(venue.url, home, "alice", "heartbeat", deal[:12], "--json")
    wallet = await Wallet.open("alice", venue_url=venue.url, data_dir=home,
                               vault=vault_of(home, "alice"), follow=False)
    try:
        reason = wallet.deal(deal).can("heartbeat").reason
    finally:
        await wallet.close()
    assert reason == "the contract is proposed, not accepted or locked"
    error = json.loads(out)["error"]
    assert code == 1 and error["kind"] == "refused" and reason in error["message"]
