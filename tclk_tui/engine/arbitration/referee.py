"""The referee's console: deals whose offer names this wallet as arbiter or juror (SPEC §8).

A case starts on the board, from an offer whose `job.context` names us. Minting publishes the
statement (an arbiter's, a hash-lock dealer's) or this juror's share point Y_i as a signed
board line beside the offer, the secret or share being durable in the vault first:

- an arbiter derives the deal's secret from its master seed (one backup restores it);
- a point-lock juror derives its own share y_i the same way; nobody ever holds y = Σy_i;
- a hash-lock dealer (the first juror) draws s at random, splits it into XOR shares, seals each
  other juror its share, keeps its own, publishes sha256(s), and keeps s nowhere.

Then the console watches the deal (the fold of its board and deal-room records, the lock checked
on the rail) and either releases, a gated action sealed to the payee's mailbox, or withholds and
lets the deadline refund the payer. Jurors may also run a commit-reveal round in the deal room.
Minting, withholding and the round's two posts are gates too (`referee_gates`).
"""

from __future__ import annotations

import secrets as _secrets
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tclk_tui.engine.arbitration import referee_gates
from tclk_tui.engine.arbitration.desk import commit_vote
from tclk_tui.engine.arbitration.vote_round import RoundView, offer_round
from tclk_tui.engine.deal.text import ms_text, short
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import Notice
from tclk_tui.engine.gates import (
    GateFact,
    GateRefused,
    GateRequest,
    WrongCode,
    code_for,
    wrong_code,
)
from tclk_tui.engine.money import money
from tclk_tui.engine.sync.private_deals import SETTING_HELD_SHARE, dealt_share
from tclk_tui.engine.views import BoardQuery
from tclk_tui.protocol.arbitration import split_secret
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.frames import OfferFrame
from tclk_tui.protocol.locks import (
    generate_hash_lock,
    hash_lock_from_preimage,
    point_lock_from_witness,
)
from tclk_tui.protocol.machine import ContractState, lock_terms
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.panel import Panel, panel_of
from tclk_tui.protocol.side_lines import (
    encode_statement,
    encode_vote_commit,
    encode_vote_reveal,
    try_parse_statement,
)
from tclk_tui.protocol.transcript import TranscriptRecord, fold_transcript
from tclk_tui.technocore.errors import VenueError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from tclk_tui.engine.board.offers_board import OffersBoard
    from tclk_tui.engine.events import EventBus
    from tclk_tui.engine.evidence import Evidence
    from tclk_tui.engine.gates import StatedGates
    from tclk_tui.engine.sync.mailbox import PrivateMail
    from tclk_tui.engine.sync.outbox import Outbox
    from tclk_tui.rails.base import SettlementRail
    from tclk_tui.store.settings import SettingStore
    from tclk_tui.technocore.client import VenueClient
    from tclk_tui.vault.seed import Vault

SETTING_CASE = "case:"
SETTING_OPENED = "vote-opened:"
VOTE_ENTRY = "vote/"


@dataclass(frozen=True, slots=True)
class CaseView:
    """One case as the console shows it: public facts only (never the secret or a share)."""

    offer_id: str
    role: str  # arbiter | juror
    index: int  # 0 for an arbiter; the juror's place in the panel
    panel: tuple[str, ...]
    lock: str
    amount: str
    asset: str
    status: str  # the fold's status: proposed, accepted, locked, claimed, refunded, cancelled
    contract: str | None
    payer: str | None
    payee: str | None
    minted: bool  # our statement or share point is on the board
    held: bool  # the vault holds what we would release
    decision: str  # pending | released | withheld
    lock_detail: str
    lock_verified: bool | None
    claim_by_ms: int
    refund_after_ms: int
    note: str = ""
    money_text: str = ""  # the amount as money (engine.money)

    @property
    def amount_text(self) -> str:
        return self.money_text or f"{self.amount} {self.asset}"

    @property
    def what(self) -> str:
        if self.role == "arbiter":
            return "the secret"
        return f"share {self.index + 1} of {len(self.panel)}"


@dataclass(frozen=True)
class RefereeParts:
    """What the referee's desk uses of the wallet, and nothing more: its identity, the vault
    that keeps what it mints, the board it finds its cases on, the settings that remember
    them, the gates it states, the outbox and the sealed mail it speaks through, the rails it
    checks a lock on, the venue's exports of a case's room."""

    did: str
    venue_url: str
    vault: Vault
    board: OffersBoard
    settings: SettingStore
    stated: StatedGates
    outbox: Outbox
    mail: PrivateMail
    events: EventBus
    rails: Mapping[str, SettlementRail]
    client: VenueClient
    evidence: Evidence
    sync: Callable[[], Awaitable[None]]
    now_ms: Callable[[], int]


class RefereeDesk:
    def __init__(self, parts: RefereeParts) -> None:
        self._w = parts
        self._rooms: dict[str, list[TranscriptRecord]] = {}
        # offer id -> (ref, verified, what the rail said, the status it was asked at)
        self._locks: dict[str, tuple[str, bool, str, str]] = {}
        self._members: tuple[int, frozenset[str]] = (-1, frozenset())  # board size, panels
        # offer id -> the jurors a hash-lock dealer cannot seal to yet, from the last refresh
        self._notes_missing: dict[str, tuple[str, ...]] = {}

    @property
    def parts(self) -> RefereeParts:
        return self._w

    # -- what the journal remembers ----------------------------------------------------------

    def _meta(self, offer_id: str) -> dict:
        return self._w.settings.get_object(SETTING_CASE + offer_id)

    def _set_meta(self, offer_id: str, **fields: object) -> None:
        meta = self._meta(offer_id)
        meta.update(fields)
        self._w.settings.set_object(SETTING_CASE + offer_id, meta)

    # -- cases -------------------------------------------------------------------------------

    def _panel(self, offer: OfferFrame) -> Panel | None:
        try:
            return panel_of(offer)
        except TclkError:
            return None

    def _case_ids(self) -> list[str]:
        board = self._w.board
        ids = []
        for row in board.query(BoardQuery(status=None, sort="ts_ms")):
            offer = board.offer_frame(row.offer_id)
            panel = self._panel(offer) if offer else None
            if panel is not None and self._w.did in panel.members:
                ids.append(row.offer_id)
        return ids

    def panel_members(self) -> set[str]:
        """Everyone on the panels of offers naming this wallet (a dealer seals us a share)."""
        did, board = self._w.did, self._w.board
        if self._members[0] == len(board):  # offers are only ever added: count, not re-read
            return set(self._members[1])
        out: set[str] = set()
        for offer in board.naming(did):
            panel = self._panel(offer)
            if panel is not None and did in panel.members:
                out.update(panel.members)
        self._members = (len(board), frozenset(out))
        return out

    def _state(self, offer_id: str) -> tuple[ContractState, OfferFrame, Panel]:
        board = self._w.board
        offer, record = board.offer_frame(offer_id), board.offer_record(offer_id)
        panel = self._panel(offer) if offer else None
        if offer is None or record is None or panel is None or self._w.did not in panel.members:
            raise EngineError("no case on the board names this wallet for that offer")
        records = [record]
        accept = board.accept_of(offer_id)
        if accept is not None:
            records.append(accept[0])
        fold = fold_transcript(records)
        state = fold.state
        assert state is not None
        if state.contract:
            fold = fold_transcript([*records, *self._rooms.get(deal_room(state.contract), [])])
            state = fold.state or state
        return state, offer, panel

    def cases(self) -> list[CaseView]:
        return [self.case(offer_id) for offer_id in reversed(self._case_ids())]

    def case(self, offer_id: str) -> CaseView:
        state, offer, panel = self._state(offer_id)
        index = panel.index_of(self._w.did) or 0
        role = "arbiter" if panel.kind == "arbiter" else "juror"
        lines = self._w.board.panel_lines(offer_id)
        meta = self._meta(offer_id)
        check = self._locks.get(offer_id)
        if state.rail_ref is None:
            lock_detail, verified = "no lock announced", None
        elif check is None or check[0] != state.rail_ref:
            lock_detail, verified = "not checked on the rail yet", None
        else:
            lock_detail, verified = check[2], check[1]
        return CaseView(
            offer_id=offer_id, role=role, index=index, panel=panel.members, lock=offer["lock"],
            amount=offer["amount"], asset=offer["asset"], status=state.status,
            contract=state.contract, payer=state.payer_did, payee=state.payee_did,
            minted=self._w.did in lines, held=self._held(offer, panel, index) is not None,
            decision=meta.get("decision", "pending"), lock_detail=lock_detail,
            lock_verified=verified, claim_by_ms=offer["claimByMs"],
            refund_after_ms=offer["refundAfterMs"],
            money_text=money(offer["amount"], offer["asset"], offer["rails"],
                             self._w.rails).text,
            note="" if self._w.did in lines or not self._mints(offer, panel) else
            "publish the statement before anyone can accept")

    def _mints(self, offer: OfferFrame, panel: Panel) -> bool:
        return panel.kind == "arbiter" or offer["lock"] == "point" or \
            panel.dealer == self._w.did

    def _held(self, offer: OfferFrame, panel: Panel, index: int) -> str | None:
        """What we would release: the arbiter's secret, or this juror's share."""
        vault = self._w.vault
        offer_id, nonce = offer["id"], offer["nonce"]
        if panel.kind == "arbiter":
            cached = vault.cached_deal_secret(offer_id, nonce,
                                              "preimage" if offer["lock"] == "hash"
                                              else "witness")
            return None if cached is None else "0x" + cached.hex()
        if offer["lock"] == "point":
            cached = vault.cached_deal_secret(offer_id, nonce, "witness")
            return None if cached is None else "0x" + cached.hex()
        raw = vault.backend.get(SETTING_HELD_SHARE + offer_id)  # ours, as the dealer
        if raw is None:
            return dealt_share(vault, self._w.settings, offer_id)
        return "0x" + bytes(raw).hex()

    async def refresh(self) -> list[CaseView]:
        """Read the board, every live case's deal room, and check announced locks on the rail."""
        try:
            await self._w.sync()
        except (VenueError, EngineError) as exc:
            self._w.events.publish(Notice("warning", f"cases: {exc}"))
        for offer_id in self._case_ids():
            state, _, panel = self._state(offer_id)
            if state.contract and not state.terminal:
                room = deal_room(state.contract)
                try:
                    export = await self._w.client.export(room)
                except VenueError as exc:
                    self._w.events.publish(Notice("warning", f"case room {room}: {exc}"))
                    continue
                self._rooms[room] = self._w.evidence.with_votes(room, export.records,
                                                                panel.members)
                state, _, _ = self._state(offer_id)
            if state.rail and state.rail_ref and (state.status == "locked"
                                                  or offer_id not in self._locks
                                                  or self._locks[offer_id][3] != state.status):
                await self._check_lock(offer_id, state, state.rail, state.rail_ref)
            if state.status == "proposed" and self._deals_shares(offer_id):
                self._notes_missing[offer_id] = await self._unsealable(offer_id)
        return self.cases()

    async def _unsealable(self, offer_id: str) -> tuple[str, ...]:
        """The other jurors whose DID note carries no record this wallet can seal to."""
        _, _, panel = self._state(offer_id)
        missing = []
        for juror in panel.members[1:]:
            try:
                await self._w.mail.peer_record(juror)
            except EngineError:
                missing.append(juror)
        return tuple(missing)

    def _deals_shares(self, offer_id: str) -> bool:
        _, offer, panel = self._state(offer_id)
        return panel.kind == "committee" and offer["lock"] == "hash" and \
            panel.dealer == self._w.did

    def mints(self, offer_id: str) -> bool:
        """Whether this wallet publishes a statement for the case (not a hash juror's share)."""
        _, offer, panel = self._state(offer_id)
        return self._mints(offer, panel)

    def missing_notes(self, offer_id: str) -> tuple[str, ...] | None:
        """Jurors a dealer cannot seal to, as the last refresh found (None: not checked)."""
        return self._notes_missing.get(offer_id)

    async def _check_lock(self, offer_id: str, state: ContractState, rail_id: str,
                          ref: str) -> None:
        """Ask the rail whether the lock announced under `ref` holds the deal's terms."""
        status = state.status
        rail = self._w.rails.get(rail_id)
        if rail is None:
            self._locks[offer_id] = (ref, False,
                                     f"this wallet has no {rail_id} rail to check it on", status)
            return
        try:
            ok = bool(await rail.verify_lock(lock_terms(state), ref))
            on_rail = await rail.lock_status(ref)
        except Exception as exc:  # a rail that cannot answer has not shown a lock
            self._locks[offer_id] = (ref, False, f"rail check failed: {exc}", status)
            return
        if on_rail in ("claimed", "refunded"):  # settled: what the rail says now, as it is
            earlier = self._locks.get(offer_id)
            ok = ok or (earlier is not None and earlier[0] == ref and earlier[1])
            detail = f"{on_rail} on {rail_id} (ref {ref})"
        elif ok:
            detail = "lock verified with matching terms"
        else:
            detail = "the rail holds no lock with these terms under that ref"
        self._locks[offer_id] = (ref, ok, detail, status)

    # -- minting -----------------------------------------------------------------------------

    async def mint(self, offer_id: str) -> CaseView:
        """Publish our statement or share point for a case (the secret durable first)."""
        _, offer, panel = self._state(offer_id)
        if self._w.did in self._w.board.panel_lines(offer_id):
            return self.case(offer_id)
        blockers = referee_gates.mint_blockers(self, offer_id)
        if blockers:
            raise EngineError("; ".join(blockers))
        vault, nonce = self._w.vault, offer["nonce"]
        try:
            if panel.kind == "arbiter" and offer["lock"] == "hash":
                statement = hash_lock_from_preimage(
                    vault.derive_preimage(offer_id, nonce).reveal()).hash
            elif offer["lock"] == "point":  # the arbiter's witness, or this juror's share
                statement = point_lock_from_witness(
                    "0x" + vault.derive_witness(offer_id, nonce).hex()).statement
            else:
                statement = await self._deal_hash_shares(offer, panel)
        except (TclkError, ValueError) as exc:
            raise EngineError(f"cannot mint for this offer: {exc}") from None
        await self._w.outbox.publish(OFFER_ROOM, encode_statement(offer_id, statement))
        return self.case(offer_id)

    async def _deal_hash_shares(self, offer: OfferFrame, panel: Panel) -> str:
        """Split a fresh preimage, seal each juror its share, keep ours, forget the preimage.
        Every juror must be reachable before the first share goes out."""
        missing = await self._unsealable(offer["id"])
        self._notes_missing[offer["id"]] = missing
        if missing:
            raise EngineError(referee_gates.missing_notes_text(self, offer["id"], missing))
        lock = generate_hash_lock()
        shares = split_secret(lock.preimage, len(panel.members))
        for juror, share in zip(panel.members[1:], shares[1:], strict=True):
            await self._w.mail.send(juror, {"kind": "deal-share", "offer": offer["id"],
                                            "share": share})
        self._w.vault.backend.put(SETTING_HELD_SHARE + offer["id"], bytes.fromhex(shares[0][2:]))
        return lock.hash

    # -- release or withhold -----------------------------------------------------------------

    def request_release(self, offer_id: str) -> GateRequest:
        view = self.case(offer_id)
        state, offer, panel = self._state(offer_id)
        now = self._w.now_ms()
        blockers: list[str] = []
        facts = [GateFact("what", None, f"{view.what}, sealed to the payee's mailbox"),
                 GateFact("payee", None, short(view.payee)),
                 GateFact("status", state.status == "locked" or None, state.status),
                 GateFact("lock on the rail", view.lock_verified, view.lock_detail),
                 GateFact("time to claimByMs", None if now < offer["claimByMs"] else False,
                          ms_text(offer["claimByMs"] - now)),
                 GateFact("time to refundAfterMs", None if now < offer["refundAfterMs"]
                          else False, ms_text(offer["refundAfterMs"] - now))]
        if state.status != "locked":
            blockers.append(f"the contract is {state.status}, not locked")
        elif view.lock_verified is not True:
            blockers.append(f"the lock is not verified on the rail: {view.lock_detail}")
        if not view.held:
            blockers.append(f"the vault holds no {view.what} for this case")
        if now >= offer["refundAfterMs"]:
            blockers.append("the refund window is open: the payee could no longer claim")
        if view.decision == "withheld":
            blockers.append("this case was withheld")
        if panel.kind == "committee" and state.contract:
            round_ = self.round_view(offer_id)
            if round_.jurors and any(j.committed for j in round_.jurors):
                facts.append(GateFact("vote round", None, ", ".join(
                    f"{v}: {n}" for v, n in round_.counts.items()) or "no opened votes yet"))
        return self._w.stated.state(GateRequest(
            action="arbiter-release", deal_id=offer_id, contract=state.contract,
            facts=tuple(facts), blockers=tuple(blockers), confirm_code=code_for(state.contract),
            created_ms=now, token=_secrets.token_hex(8)))

    async def confirm_release(self, request: GateRequest, typed_code: str = "") -> CaseView:
        request = self._w.stated.stated(request)  # a request this wallet stated, never a face's
        if request.action != "arbiter-release":
            raise GateRefused("not a release request")
        await self.refresh()
        fresh = self.request_release(request.deal_id)
        if fresh.blockers:
            raise GateRefused("; ".join(fresh.blockers))
        if fresh.contract != request.contract:
            raise GateRefused("the case changed since the request: ask again")
        if fresh.confirm_code is None or not fresh.code_matches(typed_code):
            raise WrongCode(wrong_code())
        state, offer, panel = self._state(request.deal_id)
        index = panel.index_of(self._w.did) or 0
        value = self._held(offer, panel, index)
        assert value is not None and state.payee_did is not None and state.contract is not None
        body = {"offer": request.deal_id, "contract": state.contract}
        if panel.kind == "arbiter":
            body |= {"kind": "secret", "secret": value}
        else:
            body |= {"kind": "share", "share": value}
        try:
            await self._w.mail.send(state.payee_did, body)
        except EngineError as exc:
            raise GateRefused(f"could not deliver to the payee: {exc}") from None
        self._set_meta(request.deal_id, decision="released")
        self._w.stated.answered(request)
        self._w.events.publish(Notice("info", f"case {request.deal_id[:10]}…: released "
                                      f"{self.case(request.deal_id).what} to the payee"))
        return self.case(request.deal_id)

    def request_withhold(self, offer_id: str) -> GateRequest:
        return referee_gates.request_withhold(self, offer_id)

    def confirm_withhold(self, request: GateRequest, typed_code: str = "") -> CaseView:
        """Decide not to release, for good: the payer refunds once refundAfterMs passes."""
        return referee_gates.confirm_withhold(self, request, typed_code)

    def record_withheld(self, offer_id: str) -> CaseView:
        """The decision, journaled; only `confirm_withhold` (its gate checked) calls this."""
        self._set_meta(offer_id, decision="withheld")
        return replace(self.case(offer_id), decision="withheld")

    def request_mint(self, offer_id: str) -> GateRequest:
        return referee_gates.request_mint(self, offer_id)

    async def confirm_mint(self, request: GateRequest) -> CaseView:
        return await referee_gates.confirm_mint(self, request)

    # -- the commit-reveal round -------------------------------------------------------------

    def round_view(self, offer_id: str) -> RoundView:
        state, offer, _ = self._state(offer_id)
        if state.contract is None:
            raise EngineError("no contract yet: a round runs in the deal room after the accept")
        records = self._rooms.get(deal_room(state.contract), [])
        view = offer_round(offer, state.contract, records, now_ms=self._w.now_ms())
        if view is None:
            raise EngineError("this case's offer names no panel: it has no vote round")
        return view

    def has_committed(self, contract: str) -> bool:
        return self._w.vault.backend.get(VOTE_ENTRY + contract) is not None

    def committed_verdict(self, contract: str) -> str | None:
        """The verdict this wallet committed to (shown before it is opened; never the salt)."""
        raw = self._w.vault.backend.get(VOTE_ENTRY + contract)
        return None if raw is None else bytes(raw).decode().partition(" ")[2]

    def request_commit(self, offer_id: str, verdict: str) -> GateRequest:
        return referee_gates.request_commit(self, offer_id, verdict)

    async def confirm_commit(self, request: GateRequest, verdict: str) -> RoundView:
        return await referee_gates.confirm_commit(self, request, verdict)

    def request_open(self, offer_id: str) -> GateRequest:
        return referee_gates.request_open(self, offer_id)

    async def confirm_open(self, request: GateRequest) -> RoundView:
        return await referee_gates.confirm_open(self, request)

    async def commit(self, offer_id: str, verdict: str) -> RoundView:
        state, _, _ = self._state(offer_id)
        if state.contract is None:
            raise EngineError("no contract yet: commit once the offer is accepted")
        if self._w.vault.backend.get(VOTE_ENTRY + state.contract) is not None:
            raise EngineError("this wallet already committed in this round")
        try:
            vote = commit_vote(state.contract, verdict)
        except Exception as exc:
            raise EngineError(str(exc)) from None
        # The salt seals the vote: durable in the vault before the commitment is published.
        self._w.vault.backend.put(VOTE_ENTRY + state.contract,
                                  f"{vote.salt} {vote.verdict}".encode())
        await self._w.outbox.publish(deal_room(state.contract),
                                     encode_vote_commit(vote.commitment))
        await self.refresh()
        return self.round_view(offer_id)

    async def open_vote(self, offer_id: str) -> RoundView:
        """Post our opening, only once every juror committed or the deadline passed."""
        await self.refresh()
        view = self.round_view(offer_id)  # refuses a case with no contract yet
        if not view.commit_closed:
            waiting = [short(j.did) for j in view.jurors if not j.committed]
            raise EngineError("the commit phase is still open (waiting for "
                              + ", ".join(waiting) + "): opening now would let them copy")
        raw = self._w.vault.backend.get(VOTE_ENTRY + view.contract)
        if raw is None:
            raise EngineError("this wallet has no commitment in this round")
        mine = next((j for j in view.jurors if j.did == self._w.did), None)
        opened = SETTING_OPENED + view.contract
        if (mine is not None and mine.opened) or self._w.settings.get(opened):
            raise EngineError("this wallet already opened its vote in this round: a second "
                              "opening would only be flagged")
        self._w.settings.set(opened, "1")  # before the line: two calls post one
        salt, _, verdict = bytes(raw).decode().partition(" ")
        try:
            line = encode_vote_reveal(salt, verdict)
        except TclkError as exc:
            raise EngineError(f"this wallet's commitment cannot be opened: {exc}") from None
        await self._w.outbox.publish(deal_room(view.contract), line)
        await self.refresh()
        return self.round_view(offer_id)


def statement_lines(records: list[TranscriptRecord], offer_id: str) -> list[TranscriptRecord]:
    """The signed statement side-lines naming one offer (for an evidence bundle)."""
    return [r for r in records
            if (line := try_parse_statement(r.line)) is not None and line.offer_id == offer_id]


__all__ = ["CaseView", "RefereeDesk", "statement_lines"]
