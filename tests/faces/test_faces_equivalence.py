"""Every registry command answers the same whichever face asks: in-process, through the owner's
control socket, through the app's door attached to the owner, over MCP on stdio and over a
room, success and refusal alike.

This is what a restructuring of the faces proves itself against ("behaviour, CLI output and JSON
unchanged"). The command faces (in-process, socket, the attached app's door: its typed answer
as the command's JSON) must give the very same JSON, error kinds and data included. The agent
faces expose the commands of the agents' catalogue; there a result is the command's JSON, an
engine refusal arrives as a failed tool with the command's own sentence, and a call the agents'
layer refuses before it runs (a parameter its schema does not allow) is a JSON-RPC error. Where
the agents' desk answers in words of its own today, the case says so (`agent_reason`), so each
divergence is written down here, once.

One venue, one owner with its socket, one MCP process and one mailbox serve the whole module;
the reads run first, on the state the fixture built, then each flow runs once per face on a
deal of that face's own, and the faces' answers are compared with their ids tokenised.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import pytest_asyncio

from tclk_tui.agents.catalog import FROM_REGISTRY, RENAMED
from tclk_tui.engine.commands import REGISTRY
from tclk_tui.engine.gates import code_for
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import draft
from tests.faces.world import Outcome, World, dumps, world

pytestmark = pytest.mark.asyncio(loop_scope="module")

COMMAND_FACES = ("inproc", "socket", "door")
AGENT_FACES = ("mcp", "room")
NOWHERE = "0x" + "de" * 32
SHARE_A, SHARE_B = "0x" + "11" * 32, "0x" + "22" * 32  # fixed values: the answers repeat
OWNER = {"tool_error": "refused", "rule": "deal.owner",
         "reason": "deal.owner: the agent acts only on deals it offered or accepted itself"}
"""An agent acts only on its own deals: the operator's are refused before the engine is asked."""
NO_DEAL = f"no deal {NOWHERE[:40]!r}"
"""The desk's own words for a deal tool naming no deal (the command says `not-found`)."""


@dataclass
class State:
    world: World
    accepted: str  # bob's payee offer, accepted by alice: alice pays, nothing locked yet
    contract: str
    open_offer: str  # bob's payer offer, open on the board
    case: str  # bob's offer naming alice as its arbiter
    export: str  # the board's /export, saved as a file

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def state(tmp_path_factory):
    async with world(tmp_path_factory.mktemp("faces")) as w:
        accepted = await w.bob.post_offer(draft(role="payee", rails="memory"))
        await w.alice.sync()
        view = await w.alice.accept_offer(accepted.deal_id, rail="memory")
        open_offer = await w.bob.post_offer(draft(rails="memory,paper", asset="GOLD"))
        case = await w.bob.post_offer(draft(rails="memory", panel=w.alice.did))
        await w.bob.client.post(OFFER_ROOM, "tclk1-statement 0x12 not-a-statement")
        await w.sync()
        async with httpx.AsyncClient() as http:
            body = (await http.get(f"{w.venue.url}/r/{OFFER_ROOM}/export")).content
        export = w.files / f"{OFFER_ROOM}.jsonl"
        export.write_bytes(body)
        assert view.contract is not None
        yield State(world=w, accepted=accepted.deal_id, contract=view.contract,
                    open_offer=open_offer.deal_id, case=case.deal_id, export=str(export))


# -- the cases ------------------------------------------------------------------------------

Params = Callable[[State], dict[str, Any]]


@dataclass(frozen=True)
class Case:
    """One call and what its in-process answer is (`ok`: a result, else a refusal).

    `agent_params`: the agents' layer refuses the call before it runs (its own schema).
    `agent_reason`: the agents' desk refuses in words of its own, not the command's.
    `agent`: the agents' desk refuses for a rule of its own (`OWNER`)."""

    name: str
    command: str
    params: Params
    ok: bool
    agent_params: bool = False
    agent_reason: str | None = None
    agent: dict[str, Any] | None = None

    @property
    def on_agents(self) -> bool:
        return self.command in FROM_REGISTRY


def p(**fixed: Any) -> Params:
    """Params whose values name the state's ids by `@name` (e.g. deal="@accepted")."""
    def build(state: State) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in fixed.items():
            if isinstance(value, str) and value.startswith("@"):
                value = state[value[1:]]
            elif isinstance(value, list):
                value = [state[v[1:]] if isinstance(v, str) and v.startswith("@") else v
                         for v in value]
            out[key] = value
        return out
    return build


def _code(state: State) -> dict[str, Any]:
    return {"deal": state.accepted, "confirm": "zzzz"}


READS = (
    Case("identity", "identity", p(), ok=True),
    Case("identity with a param it does not take", "identity", p(verbose=True), ok=False),
    Case("board", "board", p(), ok=True),
    Case("board all, limited", "board", p(all=True, limit=2), ok=True),
    Case("board filtered", "board", p(filter="asset:GOLD role:payer"), ok=True),
    Case("board with an ill-typed limit", "board", p(limit="two"), ok=False,
         agent_params=True),
    Case("board with an unknown param", "board", p(sudo=True), ok=False, agent_params=True),
    Case("deals", "deals", p(), ok=True),
    Case("deals with a param it does not take", "deals", p(all=True), ok=False,
         agent_params=True),
    Case("rails", "rails", p(), ok=True),
    Case("rails with a param it does not take", "rails", p(rail="memory"), ok=False,
         agent_params=True),
    Case("status", "status", p(deal="@accepted"), ok=True),
    Case("status of a prefix", "status", lambda s: {"deal": s.accepted[:12]}, ok=True),
    Case("status of nothing", "status", p(deal=NOWHERE), ok=False),
    Case("status without its deal", "status", p(), ok=False, agent_params=True),
    Case("reconcile", "reconcile", p(deal="@accepted"), ok=True),
    Case("reconcile of nothing", "reconcile", p(deal=NOWHERE), ok=False),
    Case("offer with bad fields", "offer",
         p(amount="-5", asset="F L O P", rails="memory"), ok=False,
         agent={"tool_error": "refused", "rule": "params.amount",
                "reason": "params.amount: amount is a whole number of minimal units (ASCII "
                          "digits, no leading 0), not '-5'"}),
    Case("offer on a rail the wallet lacks", "offer",
         p(amount="5", asset="FLOP", rails="no-such-rail"), ok=False),
    Case("offer with a role that is no choice", "offer",
         p(amount="5", asset="FLOP", rails="memory", role="judge"), ok=False,
         agent_params=True),
    Case("accept of nothing", "accept", p(offer=NOWHERE), ok=False,
         agent_reason="no such offer on the board"),
    Case("accept of our own deal's offer", "accept", p(offer="@accepted"), ok=False),
    Case("lock, unconfirmed", "lock", p(deal="@accepted"), ok=True, agent=OWNER),
    Case("lock of nothing", "lock", p(deal=NOWHERE, yes=True), ok=False, agent_reason=NO_DEAL),
    Case("reveal, unconfirmed", "reveal", p(deal="@accepted"), ok=True, agent=OWNER),
    Case("reveal with a wrong code", "reveal", _code, ok=False, agent=OWNER),
    Case("refund, unconfirmed", "refund", p(deal="@accepted"), ok=True, agent=OWNER),
    Case("refund of nothing", "refund", p(deal=NOWHERE), ok=False, agent_reason=NO_DEAL),
    Case("cancel, unconfirmed", "cancel", p(deal="@accepted"), ok=True, agent=OWNER),
    Case("cancel with a yes that is no bool", "cancel", p(deal="@accepted", yes="yes"),
         ok=False, agent=OWNER),
    Case("cancel-wait with nothing waiting", "cancel-wait", p(deal="@accepted"), ok=True),
    Case("cancel-wait of an action that is none", "cancel-wait",
         p(deal="@accepted", action="deposit"), ok=False),
    Case("heartbeat of nothing", "heartbeat", p(deal=NOWHERE), ok=False,
         agent_reason=NO_DEAL),
    Case("receipt before any outcome", "receipt", p(deal="@accepted"), ok=False, agent=OWNER),
    Case("tally", "tally", p(contract="@contract", jurors=["did:key:z6Mk" + "a" * 44]),
         ok=True),
    # The offer names no committee and no jurors are given: an answer counting nothing.
    Case("tally without jurors", "tally", p(contract="@contract"), ok=True),
    Case("tally of a contract that is not one", "tally", p(contract="0xnot-a-contract"),
         ok=False),
    Case("audit of the board's export", "audit", p(files=["@export"]), ok=True),
    Case("audit of a missing file", "audit", p(files=["/nonexistent/tclk-offers.jsonl"]),
         ok=True),
    Case("audit without files", "audit", p(files=[]), ok=False),
    Case("cases", "cases", p(), ok=True),
    Case("cases with a param it does not take", "cases", p(offer="@case"), ok=False),
    Case("mint of nothing", "mint", p(offer=NOWHERE), ok=False),
    Case("round before any contract", "round", p(offer="@case"), ok=False),
    Case("release, unconfirmed", "release", p(offer="@case"), ok=True),
    Case("release with a wrong code", "release", p(offer="@case", confirm="zzzz"), ok=False),
    Case("withhold of nothing", "withhold", p(offer=NOWHERE), ok=False),
    Case("vote without a verdict", "vote", p(offer="@case"), ok=False),
    Case("vote of nothing", "vote", p(offer=NOWHERE, verdict="release"), ok=False),
    Case("committee", "committee", p(), ok=True),
    Case("committee with a param it does not take", "committee", p(deal="@accepted"),
         ok=False),
    # Every face writes the bundle to the same place: a device, since a file that exists is
    # never replaced (the second face would be refused).
    Case("evidence", "evidence", lambda s: {"deal": s.accepted, "out": os.devnull}, ok=True),
    Case("evidence over an existing file", "evidence",
         lambda s: {"deal": s.accepted, "out": str(s.export)}, ok=False),
    Case("evidence of nothing", "evidence",
         lambda s: {"deal": NOWHERE, "out": str(s.world.files / "none.json")}, ok=False),
    Case("audit-deal", "audit-deal", p(deal="@accepted"), ok=True),
    Case("audit-deal of nothing", "audit-deal", p(deal=NOWHERE), ok=False),
    Case("seed-backup, unconfirmed", "seed-backup", p(), ok=True),
    Case("seed-backup with a yes that is no bool", "seed-backup", p(yes="yes"), ok=False),
    Case("seed-restore of the seed held", "seed-restore",
         lambda s: {"seed": s.world.alice.vault.export_seed()}, ok=True),
    Case("seed-restore of no backup", "seed-restore", p(seed="tclk-seed1 not one"), ok=False),
    Case("secret-reveal, unconfirmed", "secret-reveal", p(deal="@accepted"), ok=True),
    Case("secret-reveal of nothing", "secret-reveal", p(deal=NOWHERE), ok=False),
    Case("split, unconfirmed", "split", p(secret=SHARE_A, parts=3), ok=True),
    Case("split into one share", "split", p(secret=SHARE_A, parts=1, yes=True), ok=False),
    Case("combine", "combine", p(shares=[SHARE_A, SHARE_B], yes=True), ok=True),
    Case("combine of a share that is none", "combine", p(shares=["0x12"], yes=True),
         ok=False),
    Case("commit-vote, unconfirmed", "commit-vote", p(contract="@contract", verdict="release"),
         ok=True),
    Case("commit-vote of a verdict the venue would trim", "commit-vote",
         p(contract="@contract", verdict="release ", yes=True), ok=False),
    Case("verify-vote", "verify-vote", p(commitment=SHARE_A, contract="@contract",
                                         verdict="release", salt=SHARE_B), ok=True),
    Case("verify-vote without its salt", "verify-vote",
         p(commitment=SHARE_A, contract="@contract", verdict="release"), ok=False),
    Case("theme remembered", "theme", p(theme="tclk-light"), ok=True),
    Case("theme with an unprintable name", "theme", p(theme="tclk\x1b[2J"), ok=False),
    Case("a command that does not exist", "export_seed", p(), ok=False),
)


def agent_params(command: str, params: dict[str, Any]) -> dict[str, Any]:
    """A command's params as its tool takes them: no confirmation (the desk's to give), the
    CLI's `late` spelt out."""
    confirm = REGISTRY[command].confirm if command in REGISTRY else None
    return {RENAMED.get(k, k): v for k, v in params.items() if k != confirm}


def agent_expectation(inproc: Outcome, *, agent_params_refusal: bool = False,
                      reason: str | None = None) -> Outcome:
    """What an agent face answers, given what the command answers in-process."""
    if agent_params_refusal:
        return Outcome(False, {"tool_error": "params"})
    if inproc.ok:
        value = inproc.value
        if value.get("performed") is False:  # the desk confirms only what nothing blocks
            blockers = value["gate"]["blockers"]
            assert blockers, "a case that would perform on the agent faces belongs in a flow"
            return Outcome(False, {"tool_error": "failed", "reason": "; ".join(blockers)})
        return inproc
    return Outcome(False, {"tool_error": "failed",
                           "reason": reason if reason is not None else inproc.value["message"]})


def assert_agent_answer(face: str, got: Outcome, want: Outcome) -> None:
    if want.value.get("tool_error") == "params":
        assert not got.ok and got.value["tool_error"] == "params", (face, dumps(got.value))
        return
    assert got == want, f"{face}:\n{dumps(got.value)}\nwanted:\n{dumps(want.value)}"


@pytest.mark.parametrize("case", READS, ids=lambda c: c.name)
async def test_every_face_answers_as_in_process(state: State, case: Case) -> None:
    params = case.params(state)
    w = state.world
    inproc = await w.inproc(case.command, params)
    assert inproc.ok is case.ok, dumps(inproc.value)
    socket = await w.socket(case.command, params)
    assert socket == inproc, f"socket:\n{dumps(socket.value)}\nin-process:\n{dumps(inproc.value)}"
    door = await w.door(case.command, params)
    assert door == inproc, f"door:\n{dumps(door.value)}\nin-process:\n{dumps(inproc.value)}"
    if not case.on_agents:
        return
    if case.agent is not None:
        for face in AGENT_FACES:
            got = await w.faces[face](case.command, agent_params(case.command, params))
            assert got == Outcome(False, case.agent), (face, dumps(got.value))
        return
    want = agent_expectation(inproc, agent_params_refusal=case.agent_params,
                             reason=case.agent_reason)
    for face in AGENT_FACES:
        got = await w.faces[face](case.command, agent_params(case.command, params))
        assert_agent_answer(face, got, want)


# -- flows: each face on a deal of its own --------------------------------------------------

_HEX = re.compile(r"0x[0-9a-f]{6,}|[0-9a-f]{16,}")
_BLANK = frozenset({"seq"})


def tokenised(values: list[Any]) -> list[Any]:
    """The answers with every id (0x-hex, a room's hex) replaced by a token numbered in order of
    first appearance (keys read in sorted order, as the wire writes them), and record sequence
    numbers blanked: two faces' flows on their own deals then compare equal exactly when they
    did the same things in the same order."""
    tokens: dict[str, str] = {}

    def token(match: re.Match[str]) -> str:
        return tokens.setdefault(match.group(), f"<{len(tokens)}>")

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: "<seq>" if k in _BLANK else walk(value[k]) for k in sorted(value)}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            return _HEX.sub(token, value)
        return value

    return [walk(v) for v in values]


@dataclass
class Run:
    """One flow on one face: each step's answer, by label (a gated step on a command face is
    recorded twice: `name?` unconfirmed, `name` performed)."""

    face: str
    steps: list[tuple[str, Outcome]] = field(default_factory=list)

    async def call(self, w: World, command: str, params: dict[str, Any], *,
                   confirm: dict[str, Any] | None = None) -> Outcome:
        face = w.faces[self.face]
        if self.face in COMMAND_FACES and confirm is not None:
            self.steps.append((command + "?", await face(command, params)))
            answer = await face(command, {**params, **confirm})
        elif self.face in COMMAND_FACES:
            answer = await face(command, params)
        else:
            answer = await face(command, agent_params(command, params))
        self.steps.append((command, answer))
        return answer


def diff(face: str, got: Any, want: Any) -> str:
    return f"{face} differs from in-process:\n" + "\n".join(difflib.unified_diff(
        dumps(want).splitlines(), dumps(got).splitlines(), "wanted", face, lineterm=""))


def assert_runs_alike(runs: dict[str, Run]) -> None:
    base = runs["inproc"]
    labels = [label for label, _ in base.steps]
    want = tokenised([o.value for _, o in base.steps])
    oks = [o.ok for _, o in base.steps]
    for face, run in runs.items():
        if face in COMMAND_FACES:
            assert [label for label, _ in run.steps] == labels, face
            got = tokenised([o.value for _, o in run.steps])
            assert [o.ok for _, o in run.steps] == oks and got == want, diff(face, got, want)
            continue
        mine = [(label, o) for label, o in base.steps if not label.endswith("?")]
        expected = [agent_expectation(o) for _, o in mine]
        assert [label for label, _ in run.steps] == [label for label, _ in mine], face
        got = tokenised([o.value for _, o in run.steps])
        wanted = tokenised([o.value for o in expected])
        assert [o.ok for _, o in run.steps] == [o.ok for o in expected] and got == wanted, \
            diff(face, got, wanted)


FACES = (*COMMAND_FACES, *AGENT_FACES)


async def test_a_deal_the_face_pays_for_runs_alike_on_every_face(state: State) -> None:
    """accept, lock (its gate, then performed), the payee's reveal, status, receipt."""
    w = state.world
    runs = {}
    for face in FACES:
        run = runs[face] = Run(face)
        offer = await w.bob.post_offer(draft(role="payee", rails="memory"))
        await w.alice.sync()
        await run.call(w, "accept", {"offer": offer.deal_id, "rail": "memory"})
        await run.call(w, "heartbeat", {"deal": offer.deal_id, "note": "hello"})
        await run.call(w, "lock", {"deal": offer.deal_id}, confirm={"yes": True})
        await w.bob.sync()
        payee = w.bob.deal(offer.deal_id)
        await payee.check_lock()
        await payee.confirm(payee.request_reveal(), typed_code=code_for(payee.state.contract))
        await w.alice.sync()
        await run.call(w, "status", {"deal": offer.deal_id})
        await run.call(w, "receipt", {"deal": offer.deal_id})
    assert runs["inproc"].steps[-2][1].value["status"] == "claimed"
    assert_runs_alike(runs)


async def test_a_deal_the_face_is_paid_for_runs_alike_on_every_face(state: State) -> None:
    """accept as payee, the payer's lock, reveal (its gate, then performed), status."""
    w = state.world
    runs = {}
    for face in FACES:
        run = runs[face] = Run(face)
        offer = await w.bob.post_offer(draft(role="payer", rails="memory"))
        await w.alice.sync()
        await run.call(w, "accept", {"offer": offer.deal_id})
        await run.call(w, "reveal", {"deal": offer.deal_id})  # nothing locked yet: refused
        await w.bob.sync()
        payer = w.bob.deal(offer.deal_id)
        await payer.confirm(payer.request_lock("memory"))
        await w.alice.sync()
        contract = w.alice.deal(offer.deal_id).state.contract
        await run.call(w, "reveal", {"deal": offer.deal_id},
                       confirm={"confirm": code_for(contract)})
        await run.call(w, "status", {"deal": offer.deal_id})
    assert runs["inproc"].steps[-1][1].value["status"] == "claimed"
    assert_runs_alike(runs)


async def test_an_offer_the_face_posts_and_cancels_runs_alike_on_every_face(
        state: State) -> None:
    """offer, status, a refused heartbeat and lock, cancel (its gate, then performed)."""
    w = state.world
    runs = {}
    for face in FACES:
        run = runs[face] = Run(face)
        offer = await run.call(w, "offer", {"amount": "700", "asset": "FLOP",
                                            "rails": "memory", "job": "a2a:task-7"})
        deal = offer.value["deal"]
        await run.call(w, "status", {"deal": deal})
        await run.call(w, "heartbeat", {"deal": deal})
        await run.call(w, "lock", {"deal": deal})
        await run.call(w, "cancel", {"deal": deal}, confirm={"yes": True})
        await run.call(w, "deals", {})
    assert runs["inproc"].steps[-2][1].value["status"] == "cancelled"
    for run in runs.values():  # every face's deals list holds the offers before it: compare
        label, answer = run.steps.pop()  # only the newest, this face's own
        run.steps.append((label, Outcome(answer.ok, {"deals": answer.value["deals"][:1]})))
    assert_runs_alike(runs)


async def test_a_case_the_face_referees_runs_alike_on_the_command_faces(state: State) -> None:
    """mint, round, vote (commit, then open), withhold, release's gate: the referee's commands
    are the operator's, not an agent's, so two faces."""
    w = state.world
    runs = {}
    for face in COMMAND_FACES:
        run = runs[face] = Run(face)
        offer = await w.bob.post_offer(draft(rails="memory", panel=w.alice.did))
        await w.alice.sync()
        await run.call(w, "round", {"offer": offer.deal_id})  # no contract yet: refused
        await run.call(w, "mint", {"offer": offer.deal_id}, confirm={"yes": True})
        await w.carol.sync()
        await w.carol.accept_offer(offer.deal_id, rail="memory")
        await w.alice.sync()
        await run.call(w, "round", {"offer": offer.deal_id})
        await run.call(w, "vote", {"offer": offer.deal_id, "verdict": "release", "yes": True})
        await run.call(w, "vote", {"offer": offer.deal_id, "open": True, "yes": True})
        contract = w.alice.referee.case(offer.deal_id).contract
        await run.call(w, "withhold", {"offer": offer.deal_id, "confirm": contract[2:6]})
        await run.call(w, "release", {"offer": offer.deal_id})
    steps = {label: o.value for label, o in runs["inproc"].steps}
    assert steps["vote"]["counts"] == {"release": 1} and steps["withhold"]["decision"] == \
        "withheld", dumps(steps)
    assert_runs_alike(runs)


# -- what the suite covers ------------------------------------------------------------------


async def test_every_registry_command_has_a_success_and_a_refusal_here() -> None:
    flows = {"accept", "heartbeat", "lock", "status", "receipt", "reveal", "offer", "cancel",
             "deals", "mint", "round", "vote", "withhold", "release"}
    answered = {c.command for c in READS if c.ok} | flows
    refused = {c.command for c in READS if not c.ok}
    assert set(REGISTRY) - answered == set()
    assert set(REGISTRY) - refused == set()


async def test_the_agent_faces_expose_exactly_the_catalogue(state: State) -> None:
    assert state.world.mcp.tools == [*FROM_REGISTRY, "audit", "approval"]
    assert {c.command for c in READS if c.on_agents} == set(FROM_REGISTRY)


async def test_the_attached_door_reads_the_views_the_app_reads_in_process(state: State) -> None:
    """The app attached to the owner reads what it reads in-process: the same values, the
    referee's cases and rounds included (alice is the arbiter of bob's `case` offer). The
    owner answers in this process, so the attached reads (blocking, as the app's are) run in
    a thread."""
    import asyncio

    from tclk_tui.engine.door import LocalDoor

    w = state.world
    local, remote = LocalDoor(w.alice), w.attached
    assert remote is not None
    await w.alice.referee.refresh()
    reads = {
        "serves_referee": lambda door: door.serves_referee,
        "cases": lambda door: door.cases(),
        "round": lambda door: door.round_view(state.case),
        "committee": lambda door: door.committee_overview(),
        "deals": lambda door: door.deals(),
        "deal": lambda door: door.deal_view(state.accepted),
        "accept": lambda door: door.accept_refusal(state.open_offer),
        "vault": lambda door: door.vault_status(),
        "secrets": lambda door: door.held_secrets(),
    }
    def answer(read: Callable[[Any], Any], door: Any) -> tuple[bool, Any]:
        try:
            return True, read(door)
        except Exception as exc:  # a refusal reads the same in its own words
            return False, str(exc)

    for name, read in reads.items():
        assert await asyncio.to_thread(answer, read, remote) == answer(read, local), name
    assert local.serves_referee and state.case in [c.offer_id for c in local.cases()]
