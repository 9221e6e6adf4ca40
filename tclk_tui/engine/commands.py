"""The command registry: every engine operation a face may ask for, declared once.

Each face is generated from `REGISTRY`, never written beside it: the CLI subcommands and their
`--help`, the control-socket methods (a JSON-RPC method is a command's name, its params object
the command's params), the TUI palette entries and the agents' tools (`agents/catalog.py`
names which commands an agent may be granted, and reads everything else off the declaration).
So a command's contract lives here and only here:

- **params** are typed (`str`, `int`, `bool`, `list[str]`) and checked by `run` whoever
  calls, so a JSON-RPC client gets the same refusals as the CLI's argparse; a `secret` param
  (a seed backup, a secret to split) is never taken from a command line;
- the **answer** is typed: `run` returns the command's view (a DealView, a case, a Tally) or
  `Unconfirmed` with the gate request the engine stated, and `execute` is the same call as
  JSON (`to_json`, the command's `wire`), the one form every wire carries. It holds public
  facts only, never the master seed, a private key or a secret, except for a command whose
  whole purpose is to show one to the operator who confirmed it (`shows_secret`: gated, and
  never an agent's tool); nor, outside a gate's facts (which state the time left now), a
  wall-clock reading, so the same call answers the same way through a daemon or in-process;
- a **refusal** is `CommandError(kind, message)`, mapped from whatever the engine raised once,
  in `run` (`as_command_error`); `kind` is one of `ERROR_KINDS` and the face maps it to its own
  channel (the CLI: exit code 1 or 2, `{"error": {...}}` with `--json`);
- a **gated** command (funds or a secret at stake) is two steps. Without its confirmation
  param it performs nothing and answers `{"performed": false, "gate": {...}}`: the facts the
  engine established, the blockers, and which param confirms it (never the value to type when
  that value is a secret; the reveal code is the public contract id's first 4 hex, the one
  rule of `gates.code_for`). A wrong code is a usage refusal saying so. With the
  confirmation it re-checks everything and performs: the engine enforces, the face only asks.

The module imports nothing heavy at load (the engine's parts are imported when a command runs),
so a face can build itself from the declarations cheaply: a CLI call answered by a daemon.

A completed command whose answer carries a top-level `"ok": false` (an audit that found a
problem) did its job and found something wrong; faces report it as such (the CLI exits 1).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tclk_tui.engine.actions import ACTIONS, RAIL_OPS, gating
from tclk_tui.engine.errors import EngineError, JournalUnwritable, os_error_sentence
from tclk_tui.engine.gates import GateFact, GateRefused, GateRequest, WrongCode, wrong_code
from tclk_tui.engine.id_prefix import id_prefix
from tclk_tui.engine.words import rehearsal_note

if TYPE_CHECKING:
    from tclk_tui.engine.arbitration.desk import Tally
    from tclk_tui.engine.audit import AuditReport
    from tclk_tui.engine.deal import DealSession
    from tclk_tui.engine.secrets.gates import SeedGates
    from tclk_tui.engine.views import DealView
    from tclk_tui.engine.wallet import Wallet

# What each refusal kind means; faces pick their own rendering (the CLI's exit codes below).
ERROR_KINDS: Mapping[str, str] = {
    "usage": "the call itself is wrong: an unknown command, a missing or ill-typed param",
    "confirmation-required": "a gated command was asked without its confirmation",
    "not-found": "no offer or deal matches what was named",
    "refused": "the engine refused: a gate blocker, a protocol rule, an invalid state",
    "venue": "the venue could not be reached or refused the request",
    "vault": "the vault is locked, missing or unusable",
    "internal": "an unexpected failure; the message names it",
}
EXIT_CODES: Mapping[str, int] = {"usage": 2, "confirmation-required": 2}  # every other kind: 1


class CommandError(Exception):
    """A command refused, with a `kind` from ERROR_KINDS and one sentence for the operator.

    `data` holds extra public facts (a gate's facts, the offer form's field problems). It is
    what a JSON face prints as `{"error": {"kind", "message", ...data}}`.
    """

    def __init__(self, kind: str, message: str, data: Mapping[str, Any] | None = None) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown command error kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.data = dict(data or {})

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.kind, 1)

    def to_dict(self) -> dict[str, Any]:
        return {**self.data, "kind": self.kind, "message": self.message}

    @classmethod
    def from_dict(cls, error: Mapping[str, Any]) -> CommandError:
        """The inverse of `to_dict`, for a face that received the error over a socket."""
        kind = error.get("kind")
        data = {k: v for k, v in error.items() if k not in ("kind", "message")}
        if not isinstance(kind, str) or kind not in ERROR_KINDS:
            kind = "internal"
        return cls(kind, str(error.get("message", "")), data)


def as_command_error(exc: BaseException) -> CommandError | None:
    """The refusal an engine, gate, venue, vault or protocol exception stands for, or None.

    The one mapping of failures to kinds, for every path (a command's run in `run`, opening
    the wallet, the control socket's port calls, the CLI's last line of defence), so the same
    failure has the same kind and sentence whichever face met it. A ValueError is a refusal
    in its own words (a venue URL that cannot be one, an id of the wrong shape: the raisers
    never quote a secret). None: an unexpected failure, which `command_error` names.
    """
    import sqlite3

    from tclk_tui.engine.arbitration.desk import ArbitrationError
    from tclk_tui.protocol.errors import TclkError
    from tclk_tui.technocore.errors import VenueError
    from tclk_tui.vault.errors import VaultError

    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]  # a task group's one failure is the failure
    if isinstance(exc, CommandError):
        return exc
    if isinstance(exc, WrongCode):
        return CommandError("usage", exc.reason, {"wrong_code": True})
    if isinstance(exc, GateRefused):
        return CommandError("refused", f"refused: {exc.reason}")
    if isinstance(exc, VaultError):
        return CommandError("vault", str(exc))
    if isinstance(exc, VenueError):
        return CommandError("venue", str(exc))
    if isinstance(exc, JournalUnwritable):  # says whether the action reached the venue
        return CommandError("refused", str(exc), {"happened": exc.happened})
    if isinstance(exc, EngineError | TclkError | ArbitrationError):
        return CommandError("refused", str(exc))
    if isinstance(exc, OSError):
        return CommandError("refused", os_error_sentence(exc))
    if isinstance(exc, sqlite3.Error):  # a write no `journaling` names: said, not a fault
        return CommandError("refused", f"the journal could not be written ({exc}): what the "
                            "command did before that stands; status shows where it got to")
    if isinstance(exc, ValueError):
        return CommandError("refused", str(exc))
    return None


def command_error(exc: BaseException) -> CommandError:
    """Any failure as a CommandError: its refusal (`as_command_error`), else an internal one
    naming only its type (an unexpected exception's message may quote anything), as the
    control socket answers one."""
    mapped = as_command_error(exc)
    return mapped if mapped is not None else CommandError(
        "internal", f"unexpected {type(exc).__name__}")


# -- the declaration ----------------------------------------------------------------------------

ParamKind = type | types.GenericAlias  # str | int | bool | list[str]
_JSON_TYPES = {str: "string", int: "integer", bool: "boolean", list: "array"}


@dataclass(frozen=True)
class Param:
    """One typed parameter. The CLI spells it `--name-with-dashes` (or positionally)."""

    name: str
    kind: ParamKind
    help: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] | None = None
    positional: bool = False
    metavar: str | None = None
    # A secret the operator gives (a seed backup, a secret to split): a face never takes it
    # from a command line (shell history keeps it), and nothing journals or logs it.
    secret: bool = False

    @property
    def base(self) -> type:
        """`str`, `int`, `bool` or `list` (a list holds strings)."""
        origin = typing.get_origin(self.kind)
        return origin if origin is not None else self.kind  # type: ignore[return-value]

    def check(self, value: Any) -> Any:
        """The value if it has this param's type (and is one of its choices), else a usage
        refusal naming the param."""
        base = self.base
        ok = (isinstance(value, base) and not (base is int and isinstance(value, bool))
              and (base is not list
                   or (isinstance(value, list) and all(isinstance(v, str) for v in value))))
        if not ok:
            what = {str: "a string", int: "an integer", bool: "true or false",
                    list: "a list of strings"}[base]
            raise CommandError("usage", f"{self.name}: expected {what}")
        if self.choices is not None:
            items = value if base is list else [value]
            bad = [v for v in items if v not in self.choices]
            if bad:
                raise CommandError("usage", f"{self.name}: {bad[0]!r} is not one of "
                                   + ", ".join(self.choices))
        return value

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": _JSON_TYPES[self.base], "description": self.help}
        if self.base is list:
            schema["items"] = {"type": "string"}
            if self.required:
                schema["minItems"] = 1
        if self.choices is not None:
            if self.base is list:
                schema["items"]["enum"] = list(self.choices)
            else:
                schema["enum"] = list(self.choices)
        if self.default is not None:
            schema["default"] = self.default
        return schema


Runner = Callable[[Any, dict[str, Any]], Awaitable[Any]]  # the typed answer (a view)
# The request a gated command states now from what the engine holds, reading nothing.
Stater = Callable[[Any, dict[str, Any]], GateRequest]
Wire = Callable[[Any], dict[str, Any]]  # a typed answer as JSON: the wire's adapter


def plain(answer: dict[str, Any]) -> dict[str, Any]:
    """The adapter of an answer that is public facts as JSON already."""
    return answer


@dataclass(frozen=True, slots=True)
class Unconfirmed:
    """A gated command asked without its confirmation: the request the engine stated. It
    performed nothing; its JSON is `{performed: false, gate: gate_facts(...)}`."""

    request: GateRequest


class SeedOwner(Protocol):
    """What the master seed's commands run on: a wallet, or the profile's vault alone."""

    @property
    def gates(self) -> SeedGates: ...


@dataclass(frozen=True)
class Command:
    """One engine operation: what it is called, what it takes, what it answers, and how.

    `needs_wallet` is False for a command that reads only what it is given (an offline audit
    of export files): it runs with `wallet=None` and needs no profile, vault or venue.
    `needs_venue` is False for a command that answers from the wallet's own facts (its DID):
    the wallet opens without contacting the venue, so it works offline.
    `vault_alone` is True for the master seed's commands: with no engine owning the profile
    they run on its vault alone (`VaultAlone`), since opening a wallet on a fresh machine would
    make a seed of its own before a backup could be restored.
    `confirm` names the param that confirms a gated command.
    `run` answers the typed view (a DealView, a CaseView, or `Unconfirmed` with the gate's
    request); `wire` turns a performed answer into the JSON every wire carries.
    `shows_secret` is True for a command whose whole purpose is to show a secret (the seed, a
    deal's secret, shares) to the operator who asked: it is never an agent's tool.
    `cli` is how the CLI offers it: True, a subcommand of its name generated from here; a
    string, the hand-written subcommand that runs it (`vault backup`: its input or output
    needs a terminal's care); False, not at all (the app's and the socket's).
    `state` (every gated command has one) states the command's request from what the engine
    holds now, performing and reading nothing: the dry run `state()` answers, which a face's
    confirm dialog asks again while it is open. `run` reads what it must first (a rail, the
    sealed mail), then states the same request through it.
    """

    name: str
    summary: str
    params: tuple[Param, ...]
    result: str
    gated: bool
    run: Runner
    wire: Wire = plain
    needs_wallet: bool = True
    needs_venue: bool = True
    confirm: str | None = None
    vault_alone: bool = False
    shows_secret: bool = False
    cli: str | bool = True
    state: Stater | None = None
    param_names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "param_names", frozenset(p.name for p in self.params))
        if self.gated and self.confirm not in self.param_names:
            raise ValueError(f"gated command {self.name} needs a confirm param")
        if self.gated != (self.state is not None):
            raise ValueError(f"{self.name}: a gated command, and only one, states its request")
        if self.cli is True and any(p.secret for p in self.params):
            raise ValueError(f"{self.name} takes a secret: its CLI subcommand is hand-written")

    @property
    def spelling(self) -> str:
        """The command as the CLI spells it (`vault backup` for `seed-backup`)."""
        return self.cli if isinstance(self.cli, str) else self.name

    def stated(self, wallet: Any, bound: dict[str, Any]) -> GateRequest:
        """The request this gated command states now (`state`), for its own run."""
        assert self.state is not None
        return self.state(wallet, bound)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def json_schema(self) -> dict[str, Any]:
        """The params as JSON Schema (an MCP tool's inputSchema, a JSON-RPC method's params)."""
        return {
            "type": "object",
            "description": self.summary,
            "properties": {p.name: p.json_schema() for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }

    def bind(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every param by name, checked, defaults filled in; an absent or null optional param
        takes its default. Anything else is a usage refusal."""
        given = dict(params or {})
        unknown = sorted(set(given) - self.param_names)
        if unknown:
            raise CommandError("usage", f"{self.name} takes no param {unknown[0]!r}")
        bound: dict[str, Any] = {}
        for p in self.params:
            value = given.get(p.name)
            if value is None or (p.required and value == []):
                if p.required:
                    raise CommandError("usage", f"{self.name} needs {p.name}")
                bound[p.name] = p.default
            else:
                bound[p.name] = p.check(value)
        return bound


async def run(wallet: Wallet | SeedOwner | None, name: str,
              params: Mapping[str, Any] | None = None) -> Any:
    """Run one command and return its typed answer: look it up, check its params, run it, and
    map every refusal to CommandError, here and only here (`as_command_error`).

    The answer is the command's view (a DealView, a CaseView, a Tally...) or, for a gated
    command asked without its confirmation, `Unconfirmed` holding the request the engine
    stated. `execute` is the same call answered as JSON.
    """
    command = REGISTRY.get(name)
    if command is None:
        raise CommandError("usage", f"no command {name!r}")
    bound = command.bind(params)
    if command.needs_wallet and wallet is None:
        raise CommandError("internal", f"{name} needs an open wallet")
    rooms = getattr(wallet, "rooms", None)  # a wallet's, not a vault's alone
    if command.needs_venue and rooms is not None:
        # An owner still reading the venue behind its screen answers from the whole board.
        await rooms.first_read.wait()
    try:
        return await command.run(wallet, bound)
    except Exception as exc:
        mapped = as_command_error(exc)
        if mapped is None:
            raise
        raise mapped from None


def state(wallet: Wallet | SeedOwner | None, name: str,
          params: Mapping[str, Any] | None = None) -> GateRequest:
    """The request gated command `name` would state now, performing nothing and reading
    nothing: "is this legal now", as one dry run, for a face whose confirm dialog follows the
    engine's answer while it is open. Refusals map as `run` maps them; confirming is `run`
    with the command's confirm param, which states the request again and re-checks it."""
    command = REGISTRY.get(name)
    if command is None or command.state is None:
        raise CommandError("usage", f"no gated command {name!r}")
    bound = command.bind(params)
    if wallet is None:
        raise CommandError("internal", f"{name} needs an open wallet")
    try:
        return command.state(wallet, bound)
    except Exception as exc:
        mapped = as_command_error(exc)
        if mapped is None:
            raise
        raise mapped from None


async def execute(wallet: Wallet | SeedOwner | None, name: str,
                  params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run one command and answer JSON: what every wire carries (the CLI's --json and its
    words, the control socket, MCP, the room mailbox), so the checks and the answer are the
    same whoever asks."""
    answer = await run(wallet, name, params)  # an unknown name is its usage refusal
    return to_json(REGISTRY[name], answer)


def to_json(command: Command, answer: Any) -> dict[str, Any]:
    """A command's typed answer as JSON: the wire's one adapter."""
    if isinstance(answer, Unconfirmed):
        return {"performed": False, "gate": gate_facts(command, answer.request)}
    data = command.wire(answer)
    return {**data, "performed": True} if command.gated else data


# -- answers: public facts only -----------------------------------------------------------------


def deal_summary(view: DealView) -> dict[str, Any]:
    """A deal's public facts: what `offer`, `accept`, `deals` and the gated commands answer."""
    return {
        "deal": view.deal_id, "contract": view.contract, "role": view.role,
        "status": view.status, "amount": view.amount, "asset": view.asset,
        "amount_text": view.amount_text, "amount_minimal": view.amount_minimal, "lock": view.lock,
        "rail": view.rail, "rail_ref": view.rail_ref, "counterparty": view.counterparty,
        "room": view.room, "actions": sorted(view.actions),
        "last_safe_ms": view.deadlines.last_safe_ms, "secret_held": view.secret_held,
        "fee_wait": view.fee_wait or None,
    }


def deal_detail(view: DealView) -> dict[str, Any]:
    """`status`: the summary, the deadlines and the transcript as the fold judged it."""
    d = view.deadlines
    return {
        **deal_summary(view),
        "rails": list(view.rails),
        "rail_moves_value": view.rail_moves_value,
        "deadlines": {"expires_ms": d.expires_ms, "claim_by_ms": d.claim_by_ms,
                      "refund_after_ms": d.refund_after_ms, "last_safe_ms": d.last_safe_ms,
                      "last_safe_what": d.last_safe_what},
        "note": view.note,
        "transcript_status": view.transcript_status, "rail_status": view.rail_status,
        "disagreement": view.disagreement,
        "accepted_by": view.accepted_by,
        "refused_accepts": [{"from": who, "reason": why} for who, why in view.refused_accepts],
        "unavailable": dict(view.unavailable),
        "records": [{"room": r.room, "seq": r.seq, "ts_ms": r.ts_ms, "sender": r.sender,
                     "verified": r.verified, "type": r.type, "summary": r.summary, "ok": r.ok,
                     "reason": r.reason, "mine": r.mine} for r in view.records],
    }


def fact_json(fact: GateFact) -> dict[str, Any]:
    return {"label": fact.label, "ok": fact.ok, "detail": fact.detail}


def gate_facts(command: Command, request: GateRequest) -> dict[str, Any]:
    """What a gated command would do, as the engine established it now (no secret in it).

    The one prompt is the command's confirm param (the contract id's first 4 hex, the code
    every face asks for), so an unconfirmed answer never asks for two different codes."""
    assert command.confirm is not None
    confirm = command.param(command.confirm)
    return {
        "action": request.action, "deal": request.deal_id, "contract": request.contract,
        "allowed": request.allowed, "blockers": list(request.blockers), "late": request.late,
        "facts": [fact_json(f) for f in request.facts],
        "confirm": {"param": confirm.name, "code_required": confirm.base is str,
                    "prompt": confirm.help},
    }


async def _confirm(command: Command, deal: DealSession, request: GateRequest,
                   **options: Any) -> DealView:
    """Perform a gated action; a refusal carries the facts the engine re-checked."""
    try:
        return await deal.confirm(request, **options)
    except GateRefused as exc:
        raise _gate_refusal(command, request, exc) from None


def _gate_refusal(command: Command, request: GateRequest, exc: GateRefused) -> CommandError:
    gate = {"gate": gate_facts(command, request)}
    if isinstance(exc, WrongCode):
        return CommandError("usage", exc.reason, {**gate, "wrong_code": True})
    return CommandError("refused", f"refused: {exc.reason}", gate)


def _deal(wallet: Wallet, name: str) -> DealSession:
    """A deal by offer id, contract id or a unique prefix of either."""
    try:
        return wallet.deal(name)
    except EngineError as exc:
        raise CommandError("not-found", str(exc)) from None


def _checked_prefix(prefix: str, what: str) -> str:
    try:
        return id_prefix(prefix, what)
    except EngineError as exc:
        raise CommandError("not-found", str(exc)) from None


def _offer_id(wallet: Wallet, prefix: str) -> str:
    from tclk_tui.engine.views import BoardQuery

    prefix = _checked_prefix(prefix, "offer")
    matches = [r.offer_id for r in wallet.board.query(BoardQuery(status=None))
               if r.offer_id.startswith(prefix)]
    if len(matches) != 1:
        raise CommandError("not-found", f"{prefix!r} matches {len(matches)} offers on the board")
    return matches[0]


# -- the commands -------------------------------------------------------------------------------

_GATED_RESULT = ("the deal summary with performed: true; unconfirmed, {performed: false, gate: "
                 "{action, deal, contract, allowed, blockers, late, facts: [{label, ok, "
                 "detail}], confirm: {param, code_required, prompt}}}")
_DEAL = Param("deal", str, "deal: offer id, contract id, or a unique prefix of either",
              required=True, positional=True)
_YES = Param("yes", bool, "confirm after reading the facts the command states without it",
             default=False)


async def _identity(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"did": wallet.did, "profile": wallet.profile,
                              "venue": wallet.venue_url}
    rail = wallet.rails.get("evm-htlc")
    if rail is not None:  # the README says to fund it: say where, and what it holds
        from tclk_tui.engine.evm import account_answer

        answer["evm"] = await account_answer(rail)
    return answer


async def _board(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    from tclk_tui.engine.board.filter import parse_filter

    rows = wallet.board.query(parse_filter(p["filter"] or "",
                                           status=None if p["all"] else "open"))
    total = len(rows)
    if p["limit"] is not None:
        rows = rows[:max(p["limit"], 0)]
    offers = [{"offer": r.offer_id, "sender": r.sender, "role": r.role, "amount": r.amount,
               "asset": r.asset, "amount_text": r.amount_text, "lock": r.lock,
               "rails": list(r.rails), "status": r.status,
               "expires_ms": r.expires_ms, "claim_by_ms": r.claim_by_ms,
               "refund_after_ms": r.refund_after_ms, "mine": r.mine, "job": r.job}
              for r in rows]
    return {"offers": offers, "total": total, "rejected": dict(wallet.board.rejected())}


async def _offer(wallet: Wallet, p: dict[str, Any]) -> DealView:
    from tclk_tui.engine.views import OfferDraft

    draft = OfferDraft(role=p["role"], amount=p["amount"], asset=p["asset"], lock=p["lock"],
                       rails=p["rails"], claim_in_s=str(p["claim_in"]),
                       refund_gap_s=str(p["refund_gap"]), expires_in_s=str(p["expires_in"]),
                       job=p["job"] or "", panel=p["panel"] or "")
    problems = wallet.validate_offer_draft(draft)
    if problems:
        raise CommandError("usage", "; ".join(f"{q.field}: {q.message}" for q in problems),
                           {"fields": [{"field": q.field, "message": q.message}
                                       for q in problems]})
    return await wallet.post_offer(draft)


async def _accept(wallet: Wallet, p: dict[str, Any]) -> DealView:
    return await wallet.accept_offer(_offer_id(wallet, p["offer"]), rail=p["rail"],
                                     private=p["private"])


def _deal_state(action: str) -> Stater:
    """A gated deal action's request, stated by the deal (`Action.request`)."""
    method = ACTIONS[action].request
    assert method is not None

    def state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
        deal = _deal(wallet, p["deal"])
        if action == "lock":
            return deal.request_lock(p["rail"])
        return getattr(deal, method)()  # type: ignore[no-any-return]

    return state


async def _lock(wallet: Wallet, p: dict[str, Any]) -> DealView | Unconfirmed:
    deal = _deal(wallet, p["deal"])
    await deal.quote_lock(p["rail"])  # the account's balance and the gas, read now
    request = LOCK.stated(wallet, p)
    if not p["yes"]:
        return Unconfirmed(request)
    return await _confirm(LOCK, deal, request)


async def _reveal(wallet: Wallet, p: dict[str, Any]) -> DealView | Unconfirmed:
    deal = _deal(wallet, p["deal"])
    await deal.fetch_secret()  # a referee's release may be waiting in the sealed mail
    await deal.check_lock()
    request = REVEAL.stated(wallet, p)
    if not (p["confirm"] or "").strip():
        return Unconfirmed(request)
    _check_code(REVEAL, request, p["confirm"])
    return await _confirm(REVEAL, deal, request, typed_code=p["confirm"],
                          acknowledge_late=p["late"])


def _check_code(command: Command, request: GateRequest, typed: str) -> None:
    """A wrong code is said to be wrong, at once and before anything else: the operator
    mistyped. When the engine would refuse the action anyway, the same answer says why."""
    if request.confirm_code is not None and request.code_matches(typed):
        return
    message = wrong_code()
    if request.blockers:
        message += "; even with the right code it is refused now: " + "; ".join(request.blockers)
    raise CommandError("usage", message, {"gate": gate_facts(command, request),
                                          "wrong_code": True})


def _simple_gate(action: str) -> Runner:
    async def run(wallet: Wallet, p: dict[str, Any]) -> DealView | Unconfirmed:
        deal = _deal(wallet, p["deal"])
        if action == "refund":
            await deal.check_rail()  # the rail, not the transcript, decides a refund
        request = REGISTRY[action].stated(wallet, p)
        if not p["yes"]:
            return Unconfirmed(request)
        return await _confirm(REGISTRY[action], deal, request)

    return run


async def _status(wallet: Wallet, p: dict[str, Any]) -> DealView:
    deal = _deal(wallet, p["deal"])
    await deal.check_rail()  # so a rail that disagrees with the transcript shows as unknown
    return deal.view()


async def _reconcile(wallet: Wallet, p: dict[str, Any]) -> DealView:
    return await _deal(wallet, p["deal"]).reconcile()


async def _cancel_wait(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    deal = _deal(wallet, p["deal"])
    cancelled = deal.cancel_fee_waits(p["action"])
    return {**deal_summary(deal.view()), "cancelled": cancelled}


async def _deals(wallet: Wallet, p: dict[str, Any]) -> list[DealView]:
    return wallet.deals()


def _deal_list(views: list[DealView]) -> dict[str, Any]:
    return {"deals": [deal_summary(v) for v in views]}


async def _heartbeat(wallet: Wallet, p: dict[str, Any]) -> DealView:
    return await _deal(wallet, p["deal"]).heartbeat(p["note"])


async def _receipt(wallet: Wallet, p: dict[str, Any]) -> DealView:
    return await _deal(wallet, p["deal"]).receipt()


async def _rails(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    return {"rails": [{"id": rail_id, "moves_value": bool(rail.moves_value),
                       "describe": rail.describe()}
                      for rail_id, rail in sorted(wallet.rails.items())],
            "set_aside": dict(sorted(wallet.refused_rails.items()))}


async def _tally(wallet: Wallet, p: dict[str, Any]) -> Tally:
    return await wallet.arbitration.tally(p["contract"].strip(), p["jurors"])


def _tally_json(result: Tally) -> dict[str, Any]:
    return {"contract": result.contract, "commits": dict(result.commits),
            "reveals": dict(result.reveals), "counts": dict(result.counts),
            "problems": list(result.problems)}


async def _audit(wallet: Wallet | None, p: dict[str, Any]) -> AuditReport:
    from tclk_tui.engine.audit import audit_exports

    return audit_exports([Path(f) for f in p["files"]])


def _to_dict(view: Any) -> dict[str, Any]:
    """The adapter of a view that writes its own JSON (`to_dict`)."""
    return view.to_dict()  # type: ignore[no-any-return]


async def _audit_deal(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    from tclk_tui.engine.audit import audit_live

    deal = _deal(wallet, p["deal"])
    contract = deal.state.contract
    if not contract or not deal.room:
        raise CommandError("refused", "the deal has no contract yet: nothing to audit")
    try:
        report = await audit_live(wallet.client.export, contract)
    except Exception as exc:  # whatever the venue sent is the answer, never a crash
        raise CommandError("venue", f"the venue's exports could not be read: {exc}") from None
    found = [c for c in report.contracts if c.contract == contract]
    return {"deal": deal.deal_id, "contract": contract,
            "venue_status": found[0].status if found else None,
            "wallet_status": deal.state.status,
            "agree": bool(found) and found[0].status == deal.state.status,
            "records": report.records, "unverified": report.unverified,
            "problems": report.problems}


def _case(view: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return {**asdict(view), "panel": list(view.panel), "what": view.what}


def _case_id(wallet: Wallet, prefix: str) -> str:
    prefix = _checked_prefix(prefix, "case")
    matches = [c.offer_id for c in wallet.referee.cases() if c.offer_id.startswith(prefix)]
    if len(matches) != 1:
        raise CommandError("not-found", f"{prefix!r} matches {len(matches)} of your cases")
    return matches[0]


async def _cases(wallet: Wallet, p: dict[str, Any]) -> list[Any]:
    return list(await wallet.referee.refresh())


def _case_list(views: list[Any]) -> dict[str, Any]:
    return {"cases": [_case(c) for c in views]}


def _mint_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    return wallet.referee.request_mint(_case_id(wallet, p["offer"]))


def _release_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    return wallet.referee.request_release(_case_id(wallet, p["offer"]))


def _withhold_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    return wallet.referee.request_withhold(_case_id(wallet, p["offer"]))


def _vote_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    if not p["open"] and not p["verdict"]:
        raise CommandError("usage", "vote needs a verdict to commit (or open to open it)")
    offer_id = _case_id(wallet, p["offer"])
    desk = wallet.referee
    return (desk.request_open(offer_id) if p["open"]
            else desk.request_commit(offer_id, p["verdict"]))


async def _mint(wallet: Wallet, p: dict[str, Any]) -> Any:
    await wallet.referee.refresh()
    request = MINT.stated(wallet, p)
    if not p["yes"]:
        return Unconfirmed(request)
    try:
        return await wallet.referee.confirm_mint(request)
    except GateRefused as exc:
        raise _gate_refusal(MINT, request, exc) from None


async def _release(wallet: Wallet, p: dict[str, Any]) -> Any:
    await wallet.referee.refresh()
    request = RELEASE.stated(wallet, p)
    if not p["confirm"]:
        return Unconfirmed(request)
    _check_code(RELEASE, request, p["confirm"])
    try:
        return await wallet.referee.confirm_release(request, p["confirm"])
    except GateRefused as exc:
        raise _gate_refusal(RELEASE, request, exc) from None


async def _withhold(wallet: Wallet, p: dict[str, Any]) -> Any:
    await wallet.referee.refresh()
    request = WITHHOLD.stated(wallet, p)
    if not p["confirm"]:
        return Unconfirmed(request)
    _check_code(WITHHOLD, request, p["confirm"])
    try:
        return wallet.referee.confirm_withhold(request, p["confirm"])
    except GateRefused as exc:
        raise _gate_refusal(WITHHOLD, request, exc) from None


async def _vote(wallet: Wallet, p: dict[str, Any]) -> Any:
    await wallet.referee.refresh()
    desk = wallet.referee
    request = VOTE.stated(wallet, p)
    if not p["yes"]:
        return Unconfirmed(request)
    try:
        return (await desk.confirm_open(request) if p["open"]
                else await desk.confirm_commit(request, p["verdict"]))
    except GateRefused as exc:
        raise _gate_refusal(VOTE, request, exc) from None


async def _round(wallet: Wallet, p: dict[str, Any]) -> Any:
    await wallet.referee.refresh()
    return wallet.referee.round_view(_case_id(wallet, p["offer"]))


async def _committee(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    await wallet.check_mail()
    return {"deals": wallet.committee_overview()}


async def _evidence(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    import json

    from tclk_tui.engine.bundle import build_bundle

    bundle = await build_bundle(wallet, _deal(wallet, p["deal"]).deal_id)
    path = Path(p["out"])
    text = json.dumps(bundle, indent=1, sort_keys=True) + "\n"
    try:
        # A new file only: an existing one (another deal's evidence, anything) is never
        # overwritten; a device or a pipe (/dev/stdout) is written to, not replaced.
        try:
            out = open(path, "x", encoding="utf-8")  # noqa: SIM115
        except FileExistsError:
            if path.is_file() or path.is_symlink():
                raise CommandError("usage", f"{path} already exists: the evidence was not "
                                   "written (name a new file, or move that one away "
                                   "first)") from None
            out = open(path, "w", encoding="utf-8")  # noqa: SIM115
        with out:
            out.write(text)
    except OSError as exc:
        raise CommandError("usage", os_error_sentence(exc, "write the evidence bundle",
                                                      path=path)) from None
    return {"file": str(path), "deal": bundle["deal"], "contract": bundle["contract"],
            "status": bundle["status"],
            "records": sum(len(v) for v in bundle["rooms"].values())}


async def _seed_backup(owner: SeedOwner, p: dict[str, Any]) -> dict[str, Any] | Unconfirmed:
    from tclk_tui.engine.secrets.gates import SEED_BACKUP_CODE

    request = SEED_BACKUP.stated(owner, p)
    if not p["yes"]:
        return Unconfirmed(request)
    try:  # the operator's yes stands for the code the app's dialog has typed
        seed = owner.gates.confirm_seed_backup(request, SEED_BACKUP_CODE)
    except GateRefused as exc:
        raise _gate_refusal(SEED_BACKUP, request, exc) from None
    return {"seed": seed}


def _seed_backup_state(owner: SeedOwner, p: dict[str, Any]) -> GateRequest:
    return owner.gates.request_seed_backup()


def _seed_restore_state(owner: SeedOwner, p: dict[str, Any]) -> GateRequest:
    """What restoring this backup would replace; the engine holds no backup after it."""
    request = owner.gates.request_seed_restore(p["seed"])
    owner.gates.withdraw_seed_restore(request)
    return request


async def _seed_restore(owner: SeedOwner, p: dict[str, Any]) -> dict[str, Any] | Unconfirmed:
    from tclk_tui.engine.secrets.gates import SEED_RESTORE_CODE

    gates = owner.gates
    request = gates.request_seed_restore(p["seed"])
    try:
        if request.confirm_code is not None and not p["replace"]:
            return Unconfirmed(request)
        # A restore that replaces nothing has nothing to confirm (`request_seed_restore`).
        return {"fingerprint": gates.confirm_seed_restore(
            request, SEED_RESTORE_CODE if p["replace"] else "")}
    except GateRefused as exc:
        raise _gate_refusal(SEED_RESTORE, request, exc) from None
    finally:  # answered within this call: the engine holds no backup after it
        gates.withdraw_seed_restore(request)


def _secret_reveal_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    return wallet.request_secret_reveal(_deal(wallet, p["deal"]).deal_id)


async def _secret_reveal(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any] | Unconfirmed:
    deal = _deal(wallet, p["deal"])
    await deal.fetch_secret()  # a referee's release may be waiting in the sealed mail
    request = SECRET_REVEAL.stated(wallet, p)
    if not (p["confirm"] or "").strip():
        return Unconfirmed(request)
    _check_code(SECRET_REVEAL, request, p["confirm"])
    try:
        secret = wallet.confirm_secret_reveal(request, p["confirm"])
    except GateRefused as exc:
        raise _gate_refusal(SECRET_REVEAL, request, exc) from None
    return {"deal": deal.deal_id, "secret": secret}


def _split_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    from tclk_tui.engine.arbitration.share_gates import split_request

    return split_request(wallet.arbitration, p["kind"], p["secret"], p["parts"],
                         wallet.now_ms())[0]


def _combine_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    from tclk_tui.engine.arbitration.share_gates import combine_request

    return combine_request(wallet.arbitration, p["kind"], p["shares"], p["statement"],
                           wallet.now_ms())[0]


def _commit_vote_state(wallet: Wallet, p: dict[str, Any]) -> GateRequest:
    from tclk_tui.engine.arbitration.share_gates import vote_request

    return vote_request(wallet.arbitration, p["contract"], p["verdict"], wallet.now_ms())[0]


async def _split(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any] | Unconfirmed:
    from tclk_tui.engine.arbitration.share_gates import split_request

    request, shares = split_request(wallet.arbitration, p["kind"], p["secret"], p["parts"],
                                    wallet.now_ms())
    if not p["yes"]:
        return Unconfirmed(request)
    return {"kind": p["kind"], "shares": shares}


async def _combine(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any] | Unconfirmed:
    from tclk_tui.engine.arbitration.share_gates import combine_request

    request, result = combine_request(wallet.arbitration, p["kind"], p["shares"],
                                      p["statement"], wallet.now_ms())
    if not p["yes"]:
        return Unconfirmed(request)
    return {"kind": p["kind"], "value": result.value, "opens": result.opens}


async def _commit_vote(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any] | Unconfirmed:
    from tclk_tui.engine.arbitration.share_gates import vote_request

    request, vote = vote_request(wallet.arbitration, p["contract"], p["verdict"],
                                 wallet.now_ms())
    if not p["yes"]:
        return Unconfirmed(request)
    return {"contract": vote.contract, "commitment": vote.commitment, "salt": vote.salt,
            "commit_line": vote.commit_line}


async def _verify_vote(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    return {"opens": wallet.arbitration.verify_vote(p["commitment"], p["contract"],
                                                    p["verdict"], p["salt"])}


THEME_SETTING = "theme"  # the app remembers its theme in the owner's journal
MAX_THEME_NAME = 64


async def _theme(wallet: Wallet, p: dict[str, Any]) -> dict[str, Any]:
    settings = wallet.journal.settings
    name = p["theme"]
    if name is not None:
        if not name or len(name) > MAX_THEME_NAME or not name.isprintable():
            raise CommandError("usage", f"theme: a name of 1 to {MAX_THEME_NAME} printable "
                               "characters")
        settings.set(THEME_SETTING, name)
    return {"theme": settings.get(THEME_SETTING)}


IDENTITY = Command(
    "identity", "show this profile's did:key (and its evm-htlc account, with its balances)", (),
    "{did, profile, venue, evm?: {address, chain_id, balances: [{asset, units, text}], "
    "error?}}", gated=False, run=_identity, needs_venue=False)
BOARD = Command(
    "board", "list offers on the board",
    (Param("all", bool, "include accepted, expired and cancelled offers", default=False),
     Param("filter", str, "show only matching offers, as the app's filter line: words to "
           "search for and asset:X rail:X lock:hash|point role:payer|payee status:any",
           metavar="FILTER"),
     Param("limit", int, "at most this many offers (default: all)")),
    "{offers: [{offer, sender, role, amount, asset, amount_text, lock, rails, status, expires_ms, "
    "claim_by_ms, refund_after_ms, mine, job}], total, rejected: {reason: count}}",
    gated=False, run=_board)
OFFER = Command(
    "offer", "post an offer to the board",
    (Param("role", str, "the side you take", default="payer", choices=("payer", "payee")),
     Param("amount", str, "whole number of minimal units", required=True),
     Param("asset", str, "asset ticker, 1-32 letters, digits, _ or -", required=True),
     Param("lock", str, "lock kind", default="hash", choices=("hash", "point")),
     Param("rails", str, f"comma-separated rail ids you can settle on; {rehearsal_note()}",
           required=True),
     Param("claim_in", int, "seconds until claim by", default=3600),
     Param("refund_gap", int, "seconds from claim by to refund after", default=3600),
     Param("expires_in", int, "seconds until the offer expires", default=600),
     Param("job", str, "proto:id of the job this pays for, e.g. a2a:task-42"),
     Param("panel", str, "the arbiter's did:key, or a committee's did:keys comma-separated "
           "(they mint the statement; the offer id commits to them)")),
    "the deal summary {deal, contract, role, status, ...}", gated=False, run=_offer,
    wire=deal_summary)
ACCEPT = Command(
    "accept", "accept an offer from the board",
    (Param("offer", str, "offer id (a unique prefix is enough)", required=True,
           positional=True),
     Param("rail", str, "settle on this offered rail (default: the first one set up here); "
           f"{rehearsal_note()}"),
     Param("private", bool, "deliver the accept sealed to the offerer's mailbox instead of "
           "posting it on the board", default=False)),
    "the deal summary {deal, contract, role, status, ...}", run=_accept, wire=deal_summary,
    **gating("accept"))
LOCK = Command(
    "lock", "lock funds on a rail (payer)",
    (_DEAL,
     Param("rail", str, "lock on this offered rail (default: the first one set up here); "
           f"{rehearsal_note()}"),
     _YES),
    _GATED_RESULT, run=_lock, wire=deal_summary, state=_deal_state("lock"), **gating("lock"))
REVEAL = Command(
    "reveal", "reveal the secret to claim (payee)",
    (_DEAL,
     Param("confirm", str, "the first 4 hex of the contract id, typed to confirm",
           metavar="HEX4"),
     Param("late", bool, "acknowledge a reveal past claimByMs", default=False)),
    _GATED_RESULT, run=_reveal, wire=deal_summary, state=_deal_state("reveal"),
    **gating("reveal"))
REFUND = Command(
    "refund", "refund after the window opens (payer)", (_DEAL, _YES),
    _GATED_RESULT, run=_simple_gate("refund"), wire=deal_summary, state=_deal_state("refund"),
    **gating("refund"))
CANCEL = Command(
    "cancel", "cancel before any lock", (_DEAL, _YES),
    _GATED_RESULT, run=_simple_gate("cancel"), wire=deal_summary, state=_deal_state("cancel"),
    **gating("cancel"))
STATUS = Command(
    "status", "one deal's state, deadlines and transcript", (_DEAL,),
    "the deal summary plus {rails, rail_moves_value, deadlines, note, records: [{room, seq, "
    "ts_ms, sender, verified, type, summary, ok, reason, mine}]}", gated=False, run=_status,
    wire=deal_detail)
RECONCILE = Command(
    "reconcile", "re-read the rail and re-fold a deal whose rail and transcript disagree",
    (_DEAL,), "the same answer as status; a refund is in actions once the window is open and "
    "the rail holds the funds", run=_reconcile, wire=deal_detail, **gating("reconcile"))
CANCEL_WAIT = Command(
    "cancel-wait", "drop a deal's transaction that waits for the fee, before it is signed",
    (_DEAL, Param("action", str, "only this one (default: whichever waits)",
                  choices=RAIL_OPS)),
    "the deal summary plus {cancelled: [the actions dropped]} (none: nothing was waiting, or "
    "it was already being sent)", gated=False, run=_cancel_wait)
DEALS = Command(
    "deals", "list this profile's deals", (),
    "{deals: [deal summary]}, newest first", gated=False, run=_deals, wire=_deal_list)
HEARTBEAT = Command(
    "heartbeat", "post a liveness note into a deal's room",
    (_DEAL, Param("note", str, "a short note for the counterparty")),
    "the deal summary", run=_heartbeat, wire=deal_summary, **gating("heartbeat"))
RECEIPT = Command(
    "receipt", "post the receipt of a settled or cancelled contract", (_DEAL,),
    "the deal summary", run=_receipt, wire=deal_summary, **gating("receipt"))
RAILS = Command(
    "rails", "list the settlement rails set up in this wallet", (),
    "{rails: [{id, moves_value, describe}], set_aside: {id: why it cannot be chosen here}}",
    gated=False, run=_rails)
TALLY = Command(
    "tally", "count a contract's commit-reveal vote from its deal room, as `round` does",
    (Param("contract", str, "the contract id (0x and 64 hex)", required=True,
           positional=True),
     Param("jurors", list[str], "the jurors to count when the offer names no committee (an "
           "offer's committee is always the one counted)", default=None)),
    "{contract, commits: {juror: commitment}, reveals: {juror: verdict}, "
    "counts: {verdict: votes}, problems}", gated=False, run=_tally, wire=_tally_json)
AUDIT = Command(
    "audit", "verify and fold exported room transcripts offline",
    (Param("files", list[str], "export files; the room is the file name (tclk-offers.jsonl) "
           "or given as FILE:ROOM", required=True, positional=True),),
    "{files, records, unverified, problems, ok, contracts: [{contract, status, steps}]}",
    gated=False, run=_audit, wire=_to_dict, needs_wallet=False)
AUDIT_DEAL = Command(
    "audit-deal", "fold the venue's exports of a deal's rooms, as an offline auditor would, "
    "and compare with this wallet's state", (_DEAL,),
    "{deal, contract, venue_status, wallet_status, agree, records, unverified, problems}",
    gated=False, run=_audit_deal)

_CASE = Param("offer", str, "the case's offer id (a unique prefix is enough)", required=True,
              positional=True)
CASES = Command(
    "cases", "list the deals whose offer names this wallet as arbiter or juror", (),
    "{cases: [{offer_id, role, index, panel, what, status, contract, payer, payee, minted, "
    "held, decision, lock_verified, lock_detail, ...}]}", gated=False, run=_cases,
    wire=_case_list)
_CASE_GATED = ("the case with performed: true; unconfirmed, {performed: false, gate: {...}} "
               "as for lock")
MINT = Command(
    "mint", "publish this referee's statement (or juror share point) for a case",
    (_CASE, _YES), _CASE_GATED, run=_mint, wire=_case, state=_mint_state, **gating("mint"))
RELEASE = Command(
    "release", "release a case's secret (or this juror's share) sealed to the payee",
    (_CASE, Param("confirm", str, "the first 4 hex of the contract id, typed to confirm",
                  metavar="HEX4")),
    _GATED_RESULT, run=_release, wire=_case, state=_release_state, **gating("release"))
WITHHOLD = Command(
    "withhold", "decide, for good, not to release a case: the payer refunds after the deadline",
    (_CASE, Param("confirm", str, "the first 4 hex of the contract id (of the offer id before "
                  "the accept), typed to confirm", metavar="HEX4")),
    _CASE_GATED, run=_withhold, wire=_case, state=_withhold_state, **gating("withhold"))
VOTE = Command(
    "vote", "commit a verdict in a case's vote round, or open the committed one",
    (_CASE, Param("verdict", str, "the verdict to commit, e.g. release"),
     Param("open", bool, "open this wallet's commitment (once every juror committed or the "
           "round's deadline passed)", default=False),
     _YES),
    "the round {contract, deadline_ms, jurors, counts, problems, all_committed, "
    "commit_closed} with performed: true; unconfirmed, {performed: false, gate: {...}}",
    run=_vote, wire=_to_dict, state=_vote_state, **gating("vote"))
ROUND = Command(
    "round", "a case's commit-reveal round as its deal room's signed records say", (_CASE,),
    "{contract, deadline_ms, jurors: [{did, index, committed, opened, verdict, flags}], "
    "counts, problems, all_committed, commit_closed}", gated=False, run=_round, wire=_to_dict)
COMMITTEE = Command(
    "committee", "this wallet's deals as payee naming a committee: shares in and missing", (),
    "{deals: [{deal, status, jurors, have, missing, opened, problem}]}", gated=False,
    run=_committee)
EVIDENCE = Command(
    "evidence", "write one deal's evidence bundle (audit it with tclk-tui audit)",
    (_DEAL, Param("out", str, "the new file to write (an existing one is never "
                  "overwritten)", required=True)),
    "{file, deal, contract, status, records}", gated=False, run=_evidence)

SEED_BACKUP = Command(
    "seed-backup", "show the master seed's backup text, which restores every deal secret",
    (_YES,), "{seed, performed: true}: the backup text; unconfirmed, {performed: false, gate}",
    run=_seed_backup, state=_seed_backup_state, vault_alone=True, shows_secret=True,
    cli="vault backup",
    **gating("seed-backup"))
SEED_RESTORE = Command(
    "seed-restore", "restore the master seed from its backup text",
    (Param("seed", str, "the backup text (a face reads it without echo or from stdin, never "
           "from a command line)", required=True, secret=True),
     Param("replace", bool, "replace the profile's current, different master seed (never one "
           "in use: its identity or deal secrets derive from it)", default=False)),
    "{fingerprint, performed: true}; a restore that replaces a seed is unconfirmed without "
    "replace: {performed: false, gate}", run=_seed_restore, state=_seed_restore_state,
    vault_alone=True,
    cli="vault restore", **gating("seed-restore"))
SECRET_REVEAL = Command(
    "secret-reveal", "show one deal's secret (its preimage or witness) on the screen",
    (_DEAL, Param("confirm", str, "the first 4 hex of the contract id (of the deal id before "
                  "there is a contract), typed to confirm", metavar="HEX4")),
    "{deal, secret, performed: true}; unconfirmed, {performed: false, gate}",
    run=_secret_reveal, state=_secret_reveal_state, shows_secret=True, cli=False,
    **gating("secret-reveal"))
_KIND = Param("kind", str, "what the shares are of: a hash lock's preimage or a point lock's "
              "witness", default="preimage", choices=("preimage", "witness"))
_SHOW = Param("yes", bool, "confirm: show it (without, the facts of what would be shown)",
              default=False)
SPLIT = Command(
    "split", "split a secret into shares for a committee, each shown once",
    (_KIND, Param("secret", str, "the secret to split (0x and 64 hex)", required=True,
                  secret=True),
     Param("parts", int, "how many shares: 2 to 64", default=3), _SHOW),
    "{kind, shares, performed: true}; unconfirmed, {performed: false, gate}", run=_split,
    state=_split_state, shows_secret=True, cli=False, **gating("split"))
COMBINE = Command(
    "combine", "rebuild a secret from a committee's shares, and check it opens the statement",
    (_KIND, Param("shares", list[str], "every share (0x and 64 hex each)", required=True,
                  secret=True),
     Param("statement", str, "the lock's statement the rebuilt secret must open"), _SHOW),
    "{kind, value, opens, performed: true}; unconfirmed, {performed: false, gate} (its facts "
    "say whether the value opens the statement)", run=_combine, state=_combine_state,
    shows_secret=True, cli=False,
    **gating("combine"))
COMMIT_VOTE = Command(
    "commit-vote", "make a vote's commitment and the salt that opens it, posting nothing",
    (Param("contract", str, "the contract id (0x and 64 hex)", required=True),
     Param("verdict", str, "the verdict, e.g. release", required=True), _SHOW),
    "{contract, commitment, salt, commit_line, performed: true}; unconfirmed, {performed: "
    "false, gate}", run=_commit_vote, state=_commit_vote_state,
    shows_secret=True, cli=False, **gating("commit-vote"))
VERIFY_VOTE = Command(
    "verify-vote", "check that a verdict and its salt open a vote's commitment",
    (Param("commitment", str, "the commitment as posted", required=True),
     Param("contract", str, "the contract id (0x and 64 hex)", required=True),
     Param("verdict", str, "the verdict revealed", required=True),
     Param("salt", str, "the salt revealed", required=True, secret=True)),
    "{opens}", gated=False, run=_verify_vote, cli=False)

THEME = Command(
    "theme", "remember the app's theme, given one; answer the one remembered",
    (Param("theme", str, "the theme's name"),), "{theme: the name, or null}", gated=False,
    run=_theme, needs_venue=False, cli=False)

REGISTRY: Mapping[str, Command] = types.MappingProxyType({c.name: c for c in (
    IDENTITY, BOARD, OFFER, ACCEPT, LOCK, REVEAL, REFUND, CANCEL, CANCEL_WAIT, STATUS, DEALS,
    HEARTBEAT,
    RECEIPT, RAILS, TALLY, AUDIT, RECONCILE, CASES, MINT, RELEASE, WITHHOLD, VOTE, ROUND,
    COMMITTEE, EVIDENCE, AUDIT_DEAL, SEED_BACKUP, SEED_RESTORE, SECRET_REVEAL, SPLIT, COMBINE,
    COMMIT_VOTE, VERIFY_VOTE, THEME)})

__all__ = ["ERROR_KINDS", "EXIT_CODES", "REGISTRY", "Command", "CommandError", "Param",
           "SeedOwner", "Unconfirmed", "as_command_error", "command_error", "deal_detail",
           "deal_summary",
           "execute", "fact_json", "gate_facts", "run", "state", "to_json"]
