"""Nothing a stranger writes reaches the operator's terminal raw through the CLI.

A counterparty signs lines whose JSON strings carry an OSC 52 (sets the clipboard) and an OSC 0
(renames the terminal). `status` and `audit`, human and JSON output alike, must show them as
visible escapes.
"""

from __future__ import annotations

import json

import httpx

from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.naming import deal_room
from tests.cli.helpers import run_cli, vault_of

OSC = "\x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07\x9b2J\u202e"


def _hostile_lines(sender: str, contract: str) -> list[str]:
    frames = [
        {"type": "cancel", "from": sender, "contract": contract, "reason": OSC},
        {"type": "lock", "from": sender, "contract": contract, "rail": "paper" + OSC,
         "ref": "r"},
        {"type": "lock", "from": sender, "contract": contract, "rail": "paper", "ref": OSC,
         OSC: 1},
    ]
    return ["tclk1 " + json.dumps(f, ensure_ascii=True, separators=(",", ":")) for f in frames]


def _raw(text: str) -> bool:
    return any(ch in text for ch in "\x1b\x07\x9b\u202e")


async def test_status_and_audit_show_hostile_text_as_visible_escapes(venue, home, tmp_path):
    code, out, err = await run_cli(venue.url, home, "alice", "offer", "--amount", "1000",
                                "--asset", "FLOP", "--rails", "paper", "--json")
    assert code == 0, err
    offer = json.loads(out)["deal"]
    code, out, err = await run_cli(venue.url, home, "bob", "accept", offer[:12], "--json")
    assert code == 0, err
    contract = json.loads(out)["contract"]

    bob = await Wallet.open("bob", venue_url=venue.url, data_dir=home,
                            vault=vault_of(home, "bob"))
    try:
        for line in _hostile_lines(bob.did, contract):
            await bob.client.post(deal_room(contract), line)
    finally:
        await bob.close()

    for args in (("status", offer[:12]), ("status", offer[:12], "--json")):
        code, out, err = await run_cli(venue.url, home, "alice", *args)
        assert code == 0, err
        assert not _raw(out + err)
    code, out, _err = await run_cli(venue.url, home, "alice", "status", offer[:12])
    assert "\\x1b]52" in out  # shown, as a visible escape

    exports = []
    async with httpx.AsyncClient() as http:
        for room in ("tclk-offers", deal_room(contract)):
            path = tmp_path / f"{room}.jsonl"
            path.write_bytes((await http.get(f"{venue.url}/r/{room}/export")).content)
            exports.append(str(path))
    for extra in ((), ("--json",)):
        code, out, err = await run_cli(venue.url, home, "alice", "audit", *exports, *extra)
        assert not _raw(out + err)
    assert "\\x1b]52" in out or "\\u001b]52" in out
