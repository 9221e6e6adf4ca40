"""An audit of a doctored evidence bundle or export: whatever was changed, the audit answers
with its reasons and exit 1, never a traceback, and never passes a changed claim."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tclk_tui.cli import main
from tclk_tui.engine.bundle import build_bundle
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import Pair, lock_as_payer, payer_offer_accepted


def _audit(capsys, path: Path) -> tuple[int, dict]:
    code = main(["--json", "audit", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "unexpected" not in captured.err, captured.err
    return code, json.loads(captured.out) if captured.out.strip() else {}



TAMPERS = [
    ("a line that is a number", lambda b: b["rooms"][OFFER_ROOM][0].update(line=5)),
    ("a seq that is text", lambda b: b["rooms"][OFFER_ROOM][1].update(seq="1")),
    ("a timestamp that is null", lambda b: b["rooms"][OFFER_ROOM][1].update(timestamp_ms=None)),
    ("a sender that is a list", lambda b: b["rooms"][OFFER_ROOM][0].update(sender=["x"])),
    ("a room that is an object", lambda b: b["rooms"].update({OFFER_ROOM: {"a": 1}})),
    ("rooms that are a list", lambda b: b.update(rooms=[])),
    ("a record that is a string", lambda b: b["rooms"][OFFER_ROOM].insert(0, "junk")),
    ("a deal room that is a number", lambda b: b["rooms"].update(
        {k: 7 for k in b["rooms"] if k != OFFER_ROOM})),
    ("a contract that is a number", lambda b: b.update(contract=7)),
    ("a fold that is an object", lambda b: b.update(fold={"a": 1})),
    ("the deal room's records swapped", lambda b: b["rooms"].update(
        {k: v[::-1] for k, v in b["rooms"].items() if k != OFFER_ROOM})),
]


@pytest.fixture
async def bundle_file(pair: Pair, tmp_path: Path) -> tuple[Path, dict]:
    offer_id, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    await deal_a.heartbeat("still here")
    await pair.sync()
    bundle = await build_bundle(pair.alice, offer_id)
    return tmp_path / "deal.json", bundle


async def test_a_doctored_bundle_fails_the_audit_with_reasons(bundle_file, capsys):
    path, bundle = bundle_file
    path.write_text(json.dumps(bundle))
    code, answer = await asyncio.to_thread(_audit, capsys, path)
    assert code == 0, answer
    for what, tamper in TAMPERS:
        forged = json.loads(json.dumps(bundle))
        tamper(forged)
        path.write_text(json.dumps(forged))
        code, answer = await asyncio.to_thread(_audit, capsys, path)
        assert code == 1, (what, answer)
