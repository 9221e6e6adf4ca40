"""An in-memory wallet that speaks the engine contract with real view values.

The panes and the app only ever see the engine through its door (`tclk_tui.engine.door`):
`LocalDoor(ContractWallet())` runs the real registry's commands over this class, which
implements what they call over plain `OfferRow`/`DealView`/`GateRequest` values so the app can be
driven deterministically (pinned clock, no randomness, no I/O). The arbitration pane reaches it
through `LocalDoor(wallet)` and the real command registry, so it holds what the registry's
runners call (`arbitration`, `referee`, `now_ms`). Flows against the real engine live in
test_tui_flows.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tclk_tui.engine.events import BoardChanged, EventBus, VenueStatus
from tclk_tui.engine.gates import GateFact, GateRefused, GateRequest, code_prompt
from tclk_tui.engine.views import (
    BoardQuery,
    Deadlines,
    DealView,
    FieldProblem,
    HeldSecret,
    OfferDraft,
    OfferRow,
    RecordView,
    TimelineEntry,
    VaultStatus,
)
from tclk_tui.vault.backup import encode_backup
from tclk_tui.vault.secret import MasterSeed

NOW_MS = 1_767_225_600_000  # 2026-01-01 00:00:00 UTC
MINUTE = 60_000
HOUR = 60 * MINUTE
ME = "did:key:z6MkmeMEmeMEmeMEmeMEmeMEmeMEmeMEmeMEmeMEmeMEmeMEmeMEme"
THEM = "did:key:z6MkthemTHEMthemTHEMthemTHEMthemTHEMthemTHEMthemTH"
CONTRACT = "0xabcd" + "12" * 30
# A real backup text (`tclk-seed1 xxxx-xxxx-...`), so the screen's layout of it is the real one.
SEED_TEXT = encode_backup(MasterSeed(bytes(range(32))))
SECRET_VALUE = "0x" + "5e" * 32


class EngineError(Exception):
    """Stands in for the engine's operator-readable error in this double."""


# Defined in a tclk_tui-looking module path so describe_error shows its text, like the engine's.
EngineError.__module__ = "tclk_tui.engine.wallet"


@dataclass
class Clock:
    value: int = NOW_MS

    def __call__(self) -> int:
        return self.value


def did_for(index: int) -> str:
    body = f"z6Mk{index:06d}" + "q" * 42
    return "did:key:" + body[:48]


def make_offer(index: int, *, now_ms: int = NOW_MS, **changes: object) -> OfferRow:
    row = OfferRow(
        offer_id="0x" + f"{index:064x}",
        sender=did_for(index % 97),
        role="payer" if index % 2 else "payee",
        amount=str(1000 + index * 7),
        asset=("FLOP", "USDC", "BTC")[index % 3],
        lock="hash" if index % 4 else "point",
        rails=("memory",) if index % 5 else ("memory", "paper"),
        claim_by_ms=now_ms + HOUR + index * 1000,
        refund_after_ms=now_ms + 2 * HOUR + index * 1000,
        expires_ms=now_ms + 10 * MINUTE + index * 1000,
        status="open",
        capability=("memory",) if index % 3 else None,
        mine=False,
        seq=index + 1,
        ts_ms=now_ms - MINUTE + index,
        job="",
        line=f"tclk1 {{\"type\":\"offer\",\"n\":{index}}}",
    )
    return replace(row, **changes)  # type: ignore[arg-type]


def make_deadlines(now_ms: int = NOW_MS, level: str = "soon") -> Deadlines:
    return Deadlines(now_ms=now_ms, expires_ms=now_ms + 9 * MINUTE,
                     claim_by_ms=now_ms + 25 * MINUTE, refund_after_ms=now_ms + 2 * HOUR,
                     last_safe_ms=now_ms + 25 * MINUTE,
                     last_safe_what="reveal before claimByMs", level=level)  # type: ignore[arg-type]


def make_deal(deal_id: str = "0x" + "d1" * 32, *, status: str = "locked", role: str = "payee",
              actions: frozenset[str] = frozenset({"reveal", "heartbeat"}),
              now_ms: int = NOW_MS, **changes: object) -> DealView:
    records = (
        RecordView(room="tclk-offers", seq=10, ts_ms=now_ms - 20 * MINUTE, sender=THEM,
                   verified=True, type="offer", summary="offer: pay 5000 FLOP on memory",
                   ok=True, reason=None, mine=False),
        RecordView(room="tclk-offers", seq=11, ts_ms=now_ms - 18 * MINUTE, sender=ME,
                   verified=True, type="accept", summary="accept with statement 0x11aa…",
                   ok=True, reason=None, mine=True),
        RecordView(room="mb-p-tclk-abcd1212", seq=1, ts_ms=now_ms - 10 * MINUTE, sender=THEM,
                   verified=True, type="lock", summary="lock on memory ref 0xabcd…",
                   ok=True, reason=None, mine=False),
        RecordView(room="mb-p-tclk-abcd1212", seq=2, ts_ms=now_ms - 5 * MINUTE, sender=THEM,
                   verified=False, type=None, summary="unsigned line", ok=False,
                   reason="signature does not verify", mine=False),
    )
    view = DealView(
        deal_id=deal_id, contract=CONTRACT, role=role, status=status, amount="5000",
        asset="FLOP", lock="hash", rail="memory", rail_ref="0xabcd1212", rails=("memory",),
        counterparty=THEM, room="mb-p-tclk-abcd1212", deadlines=make_deadlines(now_ms),
        actions=actions, records=records,
        timeline=(TimelineEntry("proposed", now_ms - 20 * MINUTE, THEM),
                  TimelineEntry("accepted", now_ms - 18 * MINUTE, ME),
                  TimelineEntry("locked", now_ms - 10 * MINUTE, THEM)),
        secret_held=True, rail_moves_value=False, note="working on it")
    return replace(view, **changes)  # type: ignore[arg-type]


def gate_request(action: str = "reveal", *, deal_id: str = "0x" + "d1" * 32,
                 late: bool = False, blockers: tuple[str, ...] = (),
                 code: str | None = "abcd", facts: tuple[GateFact, ...] | None = None
                 ) -> GateRequest:
    facts = facts if facts is not None else (
        GateFact("lock on memory", True, "verified on the rail"),
        GateFact("secret in the vault opens the statement", True, "yes"),
        GateFact("claim window", None, "25m left before claimByMs"),
    )
    return GateRequest(action=action, deal_id=deal_id, contract=CONTRACT,  # type: ignore[arg-type]
                       facts=facts, blockers=blockers, late=late, confirm_code=code,
                       created_ms=NOW_MS,
                       prompt=code_prompt(code, digits_of="contract id") if code else "")


class ContractBoard:
    def __init__(self, rows: list[OfferRow] | None = None,
                 rejected: dict[str, int] | None = None) -> None:
        self.rows: dict[str, OfferRow] = {row.offer_id: row for row in rows or []}
        self._rejected = dict(rejected or {})
        self.queries: list[BoardQuery] = []

    def __len__(self) -> int:
        return len(self.rows)

    def put(self, row: OfferRow) -> None:
        self.rows[row.offer_id] = row

    def query(self, q: BoardQuery) -> list[OfferRow]:
        self.queries.append(q)
        text = q.text.strip().lower()
        out = [row for row in self.rows.values()
               if (q.status is None or row.status == q.status)
               and (q.asset is None or row.asset == q.asset)
               and (q.rail is None or q.rail in row.rails)
               and (q.lock is None or row.lock == q.lock)
               and (q.role is None or row.role == q.role)
               and (not text or text in f"{row.offer_id} {row.sender} {row.asset}".lower())]
        if q.sort == "amount":
            out.sort(key=lambda r: (len(r.amount), r.amount), reverse=q.descending)
        else:
            out.sort(key=lambda r: getattr(r, q.sort), reverse=q.descending)
        return out

    def get(self, offer_id: str) -> OfferRow | None:
        return self.rows.get(offer_id)

    def rejected(self) -> dict[str, int]:
        return dict(self._rejected)

    def refresh_status(self, now_ms: int) -> BoardChanged:
        expired = [oid for oid, row in self.rows.items()
                   if row.status == "open" and now_ms >= row.expires_ms]
        for oid in expired:
            self.rows[oid] = replace(self.rows[oid], status="expired")
        return BoardChanged(updated=tuple(expired))


@dataclass
class ContractDeal:
    wallet: ContractWallet
    deal_id: str
    confirmations: list[tuple[GateRequest, str | None, bool]] = field(default_factory=list)
    refuse_with: str | None = None
    next_request: GateRequest | None = None

    def view(self) -> DealView:
        return self.wallet.views[self.deal_id]

    def _request(self, action: str) -> GateRequest:
        if self.next_request is not None:
            return self.next_request
        return gate_request(action, deal_id=self.deal_id,
                            code="abcd" if action == "reveal" else None)

    def request_lock(self, rail: str | None = None) -> GateRequest:
        self.wallet.calls.append(("request_lock", rail))
        return self._request("lock")

    def request_reveal(self) -> GateRequest:
        return self._request("reveal")

    def request_cancel(self) -> GateRequest:
        return self._request("cancel")

    def request_refund(self) -> GateRequest:
        return self._request("refund")

    async def confirm(self, request: GateRequest, *, typed_code: str | None = None,
                      acknowledge_late: bool = False) -> DealView:
        self.confirmations.append((request, typed_code, acknowledge_late))
        if self.refuse_with is not None:
            raise GateRefused(self.refuse_with)
        status = {"lock": "locked", "reveal": "claimed", "refund": "refunded",
                  "cancel": "cancelled"}[request.action]
        view = replace(self.view(), status=status, actions=frozenset({"receipt"}))
        self.wallet.views[self.deal_id] = view
        return view

    async def heartbeat(self, note: str | None = None) -> DealView:
        self.wallet.calls.append(("heartbeat", note))
        return self.view()

    # What the registry's commands read before they state a request (the rail, the sealed
    # mail): a double with nothing behind it has nothing to read.
    async def quote_lock(self, rail: str | None = None) -> None:
        return None

    async def fetch_secret(self) -> None:
        return None

    async def check_lock(self) -> None:
        return None

    async def check_rail(self) -> None:
        return None

    async def reconcile(self) -> DealView:
        self.wallet.calls.append(("reconcile", self.deal_id))
        return self.view()

    async def receipt(self) -> DealView:
        self.wallet.calls.append(("receipt", self.deal_id))
        return self.view()


@dataclass(frozen=True)
class CombineResult:
    value: str
    opens: bool | None

    def __repr__(self) -> str:
        return f"CombineResult(value=<redacted>, opens={self.opens})"


@dataclass(frozen=True)
class VoteCommit:
    commitment: str
    salt: str
    contract: str = CONTRACT  # what the registry's `commit-vote` answers besides the two

    @property
    def commit_line(self) -> str:
        return f"tclk1-vote-commit {self.commitment}"


@dataclass(frozen=True)
class Tally:
    commits: dict[str, str]
    reveals: dict[str, str]
    counts: dict[str, int]
    problems: tuple[str, ...]


class ContractDesk:
    """Arithmetic stand-ins with the desk's shapes; the real maths is tested in protocol/."""

    def __init__(self) -> None:
        self.tally_result = Tally(commits={THEM: "0xc1", ME: "0xc2"}, reveals={THEM: "claimed"},
                                  counts={"claimed": 1}, problems=("seq 9: late commitment",))

    def split(self, kind: str, secret: str, parts: int) -> list[str]:
        if parts < 2:
            raise EngineError("tclk: parts must be at least 2")
        return [f"{kind[:1]}share{index}-{secret[-4:]}" for index in range(1, parts + 1)]

    def combine(self, kind: str, shares: list[str], statement: str | None = None
                ) -> CombineResult:
        if not shares:
            raise EngineError("tclk: no shares given")
        return CombineResult(value="0x" + "77" * 32,
                             opens=None if statement is None else statement == "0xgood")

    def commit_vote(self, contract: str, verdict: str) -> VoteCommit:
        if "|" in verdict:
            raise EngineError("tclk: verdict must not contain '|'")
        return VoteCommit(commitment="0x" + "c0" * 32, salt="0x" + "5a" * 16,
                          contract=contract)

    def verify_vote(self, commitment: str, contract: str, verdict: str, salt: str) -> bool:
        return commitment == "0x" + "c0" * 32 and salt == "0x" + "5a" * 16

    async def tally(self, contract: str, jurors: list[str] | None = None) -> Tally:
        return self.tally_result


@dataclass(frozen=True)
class Case:
    """A referee's case with the engine's CaseView fields the console reads."""

    offer_id: str
    role: str = "arbiter"
    index: int = 0
    panel: tuple[str, ...] = (ME,)
    lock: str = "hash"
    amount: str = "5000"
    asset: str = "FLOP"
    status: str = "locked"
    contract: str | None = CONTRACT
    payer: str | None = THEM
    payee: str | None = ME
    minted: bool = True
    held: bool = True
    decision: str = "pending"
    lock_detail: str = "lock verified with matching terms"
    lock_verified: bool | None = True
    claim_by_ms: int = NOW_MS + HOUR
    refund_after_ms: int = NOW_MS + 2 * HOUR
    note: str = ""

    @property
    def amount_text(self) -> str:
        return f"{self.amount} {self.asset}"

    @property
    def what(self) -> str:
        return "the secret" if self.role == "arbiter" else \
            f"share {self.index + 1} of {len(self.panel)}"


@dataclass(frozen=True)
class Round:
    contract: str
    deadline_ms: int
    jurors: tuple = ()
    counts: dict = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    all_committed: bool = False
    commit_closed: bool = False


class ContractReferee:
    """The referee's desk with its gates: every act is a request, then a confirmation."""

    def __init__(self) -> None:
        self.rows = {case.offer_id: case for case in (
            Case("0x" + "c1" * 32),
            Case("0x" + "c2" * 32, role="juror", index=1, panel=(THEM, ME, did_for(3)),
                 lock="point", status="proposed", contract=None, minted=False, held=True,
                 lock_detail="no lock announced", lock_verified=None,
                 note="publish the statement before anyone can accept"))}
        self.done: list[tuple[str, str]] = []

    def cases(self) -> list[Case]:
        return list(self.rows.values())

    def case(self, offer_id: str) -> Case:
        return self.rows[offer_id]

    async def refresh(self) -> list[Case]:
        return self.cases()

    def round_view(self, offer_id: str) -> Round:
        return Round(contract=CONTRACT, deadline_ms=NOW_MS + HOUR)

    def _request(self, action: str, offer_id: str, *, code: bool = False) -> GateRequest:
        case = self.rows[offer_id]
        blockers = ("this case was withheld",) if case.decision == "withheld" else ()
        return GateRequest(action=action, deal_id=offer_id,  # type: ignore[arg-type]
                           contract=case.contract,
                           facts=(GateFact("case", None, f"{case.amount} {case.asset}"),
                                  GateFact("posts", None, "a signed line")),
                           blockers=blockers, confirm_code="abcd" if code else None,
                           created_ms=NOW_MS,
                           prompt=code_prompt("abcd", digits_of="contract id") if code else "")

    def request_release(self, offer_id: str) -> GateRequest:
        return self._request("arbiter-release", offer_id, code=True)

    def request_withhold(self, offer_id: str) -> GateRequest:
        return self._request("arbiter-withhold", offer_id, code=True)

    def request_mint(self, offer_id: str) -> GateRequest:
        return self._request("arbiter-mint", offer_id)

    def request_commit(self, offer_id: str, verdict: str) -> GateRequest:
        return self._request("vote-post", offer_id)

    def request_open(self, offer_id: str) -> GateRequest:
        return self._request("vote-open", offer_id)

    def _decide(self, request: GateRequest, **changes: object) -> Case:
        self.done.append((request.action, request.deal_id))
        case = replace(self.rows[request.deal_id], **changes)  # type: ignore[arg-type]
        self.rows[case.offer_id] = case
        return case

    async def confirm_release(self, request: GateRequest, typed_code: str = "") -> Case:
        if typed_code != "abcd":
            raise GateRefused("type the code")
        return self._decide(request, decision="released")

    def confirm_withhold(self, request: GateRequest, typed_code: str = "") -> Case:
        if typed_code != "abcd":
            raise GateRefused("type the code")
        return self._decide(request, decision="withheld")

    async def confirm_mint(self, request: GateRequest) -> Case:
        return self._decide(request, minted=True, note="")

    async def confirm_commit(self, request: GateRequest, verdict: str) -> Round:
        self._decide(request)
        return self.round_view(request.deal_id)

    async def confirm_open(self, request: GateRequest) -> Round:
        self._decide(request)
        return self.round_view(request.deal_id)


class _Settings:
    def __init__(self, wallet: ContractWallet) -> None:
        self._wallet = wallet

    def get(self, key: str) -> str | None:
        return self._wallet.theme_name if key == "theme" else None

    def set(self, key: str, value: str) -> None:
        if key == "theme":
            self._wallet.theme_name = value


class _Journal:
    """The journal's settings, where the app's theme is remembered (the `theme` command)."""

    def __init__(self, wallet: ContractWallet) -> None:
        self.settings = _Settings(wallet)


class ContractWallet:
    def __init__(self, *, rows: list[OfferRow] | None = None,
                 deals: list[DealView] | None = None,
                 rejected: dict[str, int] | None = None,
                 secrets: list[HeldSecret] | None = None,
                 clock: Clock | None = None, referee: bool = False) -> None:
        self.profile = "default"
        self.did = ME
        self.venue_url = "http://127.0.0.1:8787"
        self.events = EventBus()
        self.venue_status = VenueStatus("following")
        self.clock = clock or Clock()
        self.board = ContractBoard(rows, rejected)
        self.arbitration = ContractDesk()
        if referee:  # the Cases tab shows only for a wallet with a referee desk
            self.referee = ContractReferee()
        self.views: dict[str, DealView] = {view.deal_id: view for view in deals or []}
        self.sessions: dict[str, ContractDeal] = {}
        self.secrets = list(secrets if secrets is not None else [
            HeldSecret(name="deal/0xd1d1/preimage", deal_id="0x" + "d1" * 32, kind="preimage",
                       statement="0x11aa" + "00" * 30),
            HeldSecret(name="master", deal_id="", kind="master", statement=None),
        ])
        self.calls: list[tuple[str, object]] = []
        self.posted: list[OfferDraft] = []
        self.restored: list[int] = []  # lengths only: the double never keeps a seed either
        self.restoring = 0
        self.alerts: list = []  # raised by the engine, not yet shown by a face
        self.gates = self  # the master seed's gates (`SeedOwner`), as the registry asks them
        self.theme_name: str | None = None
        self.journal = _Journal(self)

    def now_ms(self) -> int:
        return self.clock()

    def venue_budget(self) -> None:
        return None  # a double with no venue behind it has no budgets to show

    def take_alerts(self) -> list:
        taken, self.alerts = self.alerts, []
        return taken

    def validate_offer_draft(self, draft: OfferDraft) -> list[FieldProblem]:
        problems = []
        if not draft.amount.isdigit():
            problems.append(FieldProblem("amount", "amount must be a decimal integer"))
        if not draft.asset:
            problems.append(FieldProblem("asset", "asset is required"))
        if not draft.rails:
            problems.append(FieldProblem("rails", "name at least one rail"))
        return problems

    async def post_offer(self, draft: OfferDraft) -> DealView:
        self.posted.append(draft)
        if draft.asset == "REFUSE":
            raise EngineError("venue refused the post: rate limited")
        view = make_deal("0x" + "0f" * 32, status="proposed", role=draft.role,
                         actions=frozenset({"cancel"}), amount=draft.amount, asset=draft.asset)
        self.views = {view.deal_id: view, **self.views}
        return view

    async def accept_offer(self, offer_id: str, *, rail: str | None = None,
                           private: bool = False) -> DealView:
        self.calls.append(("accept_offer", (offer_id, rail)))
        view = make_deal(offer_id, status="accepted", role="payee",
                         actions=frozenset({"cancel", "heartbeat"}))
        self.views = {view.deal_id: view, **self.views}
        return view

    def accept_refusal(self, offer_id: str) -> str | None:
        """The engine's dry run of an accept, as the double's board has the offer."""
        row = self.board.get(offer_id)
        if row is None:
            return "no such offer on the board"
        if row.status != "open":
            return f"the offer is {row.status}"
        if self.now_ms() >= row.expires_ms:
            return "the offer is expired"
        return None

    def deals(self) -> list[DealView]:
        return list(self.views.values())

    def deal(self, deal_id: str) -> ContractDeal:
        if deal_id not in self.views:
            raise EngineError(f"no deal {deal_id[:10]}")
        return self.sessions.setdefault(deal_id, ContractDeal(self, deal_id))

    def vault_status(self) -> VaultStatus:
        return VaultStatus("file", True, "encrypted file vault, argon2id")

    def held_secrets(self) -> list[HeldSecret]:
        return list(self.secrets)

    def request_seed_backup(self) -> GateRequest:
        return GateRequest(action="seed-backup", deal_id="", contract=None,
                           facts=(GateFact("shown once", None, "write it on paper"),),
                           confirm_code="backup", created_ms=self.now_ms(),
                           prompt=code_prompt("backup"))

    def confirm_seed_backup(self, request: GateRequest, typed_code: str = "") -> str:
        if typed_code.strip().lower() != "backup":
            raise GateRefused("type backup to show the seed")
        self.calls.append(("confirm_seed_backup", request.action))
        return SEED_TEXT

    def request_seed_restore(self, text: str) -> GateRequest:
        if text == "bad":
            raise EngineError("backup text has a bad checksum")
        self.restoring = len(text)
        return GateRequest(action="seed-restore", deal_id="", contract=None,
                           facts=(GateFact("current seed", None, "ab12-cd34 is replaced"),),
                           confirm_code="replace", created_ms=self.now_ms(),
                           prompt=code_prompt("replace"))

    def confirm_seed_restore(self, request: GateRequest, typed_code: str = "") -> str:
        if typed_code.strip().lower() != "replace":
            raise GateRefused("type replace to replace the master seed")
        self.restored.append(self.restoring)
        return "seed fingerprint"

    def withdraw_seed_restore(self, request: GateRequest) -> None:
        return None

    async def ask_restore(self, text: str) -> None:
        """What the app's restore dialog asks first: the engine's request for the text."""
        self.request_seed_restore(text)

    def request_secret_reveal(self, deal_id: str) -> GateRequest:
        return GateRequest(action="secret-reveal", deal_id=deal_id, contract=CONTRACT,
                           facts=(GateFact("secret", None, "preimage of this deal"),),
                           confirm_code="abcd", created_ms=self.now_ms(),
                           prompt=code_prompt("abcd", digits_of="contract id"))

    def confirm_secret_reveal(self, request: GateRequest, typed_code: str) -> str:
        if typed_code.lower() != "abcd":
            raise GateRefused("type abcd (the first 4 hex of the contract id) to confirm")
        return SECRET_VALUE
