"""The wallet watches when the operator does not: a refund by itself once the window opens, a
heartbeat now and then, and an alert, once, for what needs the operator."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tclk_tui.engine.events import Alert
from tclk_tui.engine.watch_policy import WatchPolicy, load_policy
from tests.engine.helpers import lock_as_payer, payer_offer_accepted, until
from tests.technocore.helpers import json_reply, scripted

RECORDER = Path(__file__).with_name("record_alert.py")


def recording(path: Path) -> WatchPolicy:
    return WatchPolicy(alert_command=(sys.executable, str(RECORDER), str(path)))


def recorded(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_policy_file_is_read_or_refused_with_its_reason(tmp_path):
    assert load_policy(tmp_path) == WatchPolicy()  # no file: refunds and heartbeats on
    (tmp_path / "policy.toml").write_text(
        '[auto]\nrefund = false\nheartbeat_every_s = 0\n'
        '[alerts]\ncommand = ["notify-send", "tclk-tui"]\nwebhook = "http://127.0.0.1:9/a"\n')
    policy = load_policy(tmp_path)
    assert (policy.auto_refund, policy.heartbeat_every_s, policy.alert_command,
            policy.alert_webhook, policy.problem) == (
        False, 0, ("notify-send", "tclk-tui"), "http://127.0.0.1:9/a", None)
    for text, why in (('[alerts]\nwebhook = "http://alerts.example/x"\n', "this computer"),
                      ('[alerts]\ncommand = "notify-send hi"\n', "list of words"),
                      ('[auto]\nrefund = "yes"\n', "true or false"),
                      ('[auto]\nheartbeat_every_s = 5\n', "60..86400"),
                      ('[auto]\nreveal = true\n', "unknown key 'reveal'"),
                      ('[auto\n', "policy.toml")):
        (tmp_path / "policy.toml").write_text(text)
        refused = load_policy(tmp_path)
        assert refused.problem is not None and why in refused.problem, text
        assert refused.auto_refund and refused.alert_command == ()  # the defaults hold


async def test_a_payer_wallet_refunds_by_itself_once_the_window_opens(pair, tmp_path):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    alice = pair.alice
    alice.alerts.policy = recording(tmp_path / "alerts.jsonl")
    await alice.autopilot.tick()
    assert deal_a.state.status == "locked"  # the window is not open yet: nothing happens
    pair.clock.advance(deal_a.offer["refundAfterMs"] - pair.clock.ms)
    await alice.autopilot.tick()
    assert deal_a.state.status == "refunded"
    assert pair.memory.status(deal_a.state.contract or "") == "refunded"
    await until(lambda: len(recorded(tmp_path / "alerts.jsonl")) == 1)
    (line,) = recorded(tmp_path / "alerts.jsonl")
    assert line["kind"] == "auto" and "refunded by itself" in line["text"]
    taken = alice.take_alerts()
    assert [a.kind for a in taken] == ["auto"] and alice.take_alerts() == []


async def test_no_refund_by_itself_when_the_policy_says_so(pair):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    pair.alice.alerts.policy = WatchPolicy(auto_refund=False)
    pair.clock.advance(deal_a.offer["refundAfterMs"] - pair.clock.ms)
    await pair.alice.autopilot.tick()
    assert deal_a.state.status == "locked"


async def test_a_payees_last_safe_moment_is_alerted_once_through_the_command(pair, tmp_path):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    bob = pair.bob
    record = tmp_path / "alerts.jsonl"
    bob.alerts.policy = recording(record)
    events = bob.events.subscribe()
    await bob.autopilot.tick()
    assert bob.take_alerts() == []  # calm: an hour to go
    pair.clock.advance(deal_b.offer["claimByMs"] - pair.clock.ms - 10 * 60_000)
    for _ in range(3):
        await bob.autopilot.tick()  # three ticks, one alert
    await until(lambda: len(recorded(record)) == 1)
    (line,) = recorded(record)
    assert line["kind"] == "deadline" and line["deal"] == deal_b.deal_id
    assert "last safe moment to reveal" in line["text"] and "UTC" in line["text"]
    alerts = [e for e in _drain(events) if isinstance(e, Alert)]
    assert [a.kind for a in alerts] == ["deadline"]
    bob = await pair.reopen("bob")  # journaled: a restart raises it again nowhere
    bob.alerts.policy = recording(record)
    await bob.autopilot.tick()
    shown = bob.take_alerts()  # shown on attach, once
    assert [a.kind for a in shown] == ["deadline"] and bob.take_alerts() == []
    pair.clock.advance(9 * 60_000)  # the danger window: a new level is a new alert
    await bob.autopilot.tick()
    await until(lambda: len(recorded(record)) == 2)
    assert "DANGER" in recorded(record)[1]["text"]


async def test_an_alert_is_posted_to_the_webhook(pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    async with scripted() as (hook, url):
        hook.add(json_reply({"ok": True}))
        pair.bob.alerts.policy = WatchPolicy(alert_webhook=url + "/alerts")
        pair.clock.advance(deal_b.offer["claimByMs"] - pair.clock.ms - 60_000)
        await pair.bob.autopilot.tick()
        await until(lambda: bool(hook.seen))
        (seen,) = hook.seen
        body = json.loads(seen.body)
        assert (seen.method, seen.path, body["kind"], body["deal"]) == (
            "POST", "/alerts", "deadline", deal_b.deal_id)


async def test_a_heartbeat_by_itself_in_an_open_deal_never_creates_a_room(pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    pair.clock.advance(11 * 60_000)
    await pair.bob.autopilot.tick()  # the payee: the room does not exist yet
    assert not deal_b.room_records
    await lock_as_payer(pair, deal_a, "memory")
    pair.clock.advance(11 * 60_000)
    await pair.bob.autopilot.tick()
    assert [r for r in deal_b.room_records if r.sender == pair.bob.did
            and '"heartbeat"' in r.line]
    await pair.bob.autopilot.tick()  # not again until another ten minutes have passed
    assert len([r for r in deal_b.room_records if r.sender == pair.bob.did]) == 1


def _drain(queue) -> list:
    out = []
    while not queue.empty():
        out.append(queue.get_nowait())
    return out

