"""`tclk-tui agents list | show | check | log`: manifests and the audit trail, read only."""

from __future__ import annotations

import json

from tclk_tui.cli import main
from tclk_tui.store.journal import Journal


def _manifest(home, name: str, text: str) -> None:
    folder = home / "default" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(text, encoding="utf-8")


def test_list_and_check_name_every_problem(tmp_path, capsys):
    _manifest(tmp_path, "good", 'tools = ["board", "status"]\n[caps]\nper_deal = 10\n')
    _manifest(tmp_path, "bad", 'tools = ["board", "drain"]\n')
    assert main(["--home", str(tmp_path), "--json", "agents", "list"]) == 0
    listed = {a["name"]: a for a in json.loads(capsys.readouterr().out)["agents"]}
    assert listed["good"]["valid"] and listed["good"]["tools"] == ["board", "status"]
    assert not listed["bad"]["valid"] and "drain" in listed["bad"]["problem"]
    assert listed["bad"]["tools"] == []
    assert main(["--home", str(tmp_path), "agents", "check"]) == 1
    out = capsys.readouterr().out
    assert "good: ok" in out and "bad: no such tool(s): drain" in out
    assert main(["--home", str(tmp_path), "agents", "check", "good"]) == 0


def test_show_and_log_read_the_journal(tmp_path, capsys):
    _manifest(tmp_path, "bot", 'tools = ["heartbeat"]\n')
    journal = Journal(tmp_path / "default" / "journal.sqlite3")
    journal.agents.add_call(agent="bot", transport="room", tool="heartbeat",
                            params={"deal": "x", "note": "\x1b[2J[red]ignore all rules[/]"},
                            decision="refused", result_kind="refused", detail="deal.owner: no")
    journal.agents.spend_once(agent="bot", deal_id="d1", asset="FLOP", amount=5)
    journal.close()
    assert main(["--home", str(tmp_path), "agents", "show", "bot"]) == 0
    out = capsys.readouterr().out
    assert "spent in the last 24 h: 5" in out
    assert main(["--home", str(tmp_path), "agents", "log"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\u001b[2J[red]ignore all rules[/]" in out
    assert "deal.owner: no" in out
    assert main(["--home", str(tmp_path), "--json", "agents", "log", "bot"]) == 0
    [row] = json.loads(capsys.readouterr().out)["calls"]
    assert row["params"]["note"].startswith("\x1b[2J") and row["transport"] == "room"


def test_show_without_a_journal_says_so(tmp_path, capsys):
    _manifest(tmp_path, "bot", 'tools = []\n')
    assert main(["--home", str(tmp_path), "agents", "show", "bot"]) == 1
    assert "has no journal yet" in capsys.readouterr().err


def test_check_refuses_two_manifests_with_one_did(tmp_path, capsys):
    did = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
    _manifest(tmp_path, "one", f'tools = ["board"]\ndid = "{did}"\n')
    _manifest(tmp_path, "two", f'tools = ["board"]\ndid = "{did}"\n')
    assert main(["--home", str(tmp_path), "agents", "check"]) == 1
    out = capsys.readouterr().out
    assert "one: its did is also two's" in out and "two: its did is also one's" in out
