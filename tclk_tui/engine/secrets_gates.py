"""The vault as the operator sees it: its health, the secrets it holds, and the gates that
show one (the master seed for a backup, a deal's secret) or replace the seed."""

from __future__ import annotations

import secrets as _secrets
from collections.abc import Callable

from tclk_tui.engine.deal_book import DealBook
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import (
    GateFact,
    GateRefused,
    GateRequest,
    StatedGates,
    WrongCode,
    code_for,
    code_prompt,
    wrong_code,
)
from tclk_tui.engine.keeper import VaultKeeper
from tclk_tui.engine.views import HeldSecret, VaultStatus
from tclk_tui.vault.errors import VaultError
from tclk_tui.vault.seed import Vault

SEED_BACKUP_CODE = "backup"


class SecretGates:
    def __init__(self, vault: Vault, keeper: VaultKeeper, book: DealBook,
                 now_ms: Callable[[], int], stated: StatedGates) -> None:
        self.vault = vault
        self.keeper = keeper
        self.book = book
        self.now_ms = now_ms
        self.stated = stated  # a confirmation answers a request stated here, never a face's

    def vault_status(self) -> VaultStatus:
        # The backend is named once, in `backend`; `detail` says what it holds.
        try:
            healthy = self.vault.has_seed()
        except VaultError as exc:
            return VaultStatus(backend=type(self.vault.backend).__name__, healthy=False,
                               detail=str(exc))
        detail = ("master seed held" if healthy else
                  "no master seed: nothing can be derived until a backup is restored")
        return VaultStatus(backend=self.vault.backend.describe(), healthy=healthy, detail=detail)

    def held_secrets(self) -> list[HeldSecret]:
        held = [HeldSecret(name="master seed", deal_id="", kind="master", statement=None)]
        for deal_id, plan in self.keeper.held().items():
            deal = self.book.get(deal_id)
            statement = deal.state.statement if deal and deal.state.statement else None
            held.append(HeldSecret(name=f"{plan.lock} secret of {deal_id[:12]}…",
                                   deal_id=deal_id,
                                   kind="preimage" if plan.lock == "hash" else "witness",
                                   statement=statement))
        return held

    def request_seed_backup(self) -> GateRequest:
        facts = (GateFact("what", None, "the master seed restores every deal secret"),
                 GateFact("where", None, "on this screen only, until you close it"),
                 GateFact("fingerprint", None, self.vault.seed_fingerprint()))
        return self.stated.state(GateRequest(
            action="seed-backup", deal_id="", contract=None, facts=facts,
            confirm_code=SEED_BACKUP_CODE, created_ms=self.now_ms(), token=_secrets.token_hex(8),
            prompt=code_prompt(SEED_BACKUP_CODE)))

    def confirm_seed_backup(self, request: GateRequest, typed_code: str = "") -> str:
        request = self.stated.stated(request)
        if request.action != "seed-backup":
            raise GateRefused("not a seed backup request")
        if typed_code.strip().lower() != SEED_BACKUP_CODE:  # never the request's own code
            raise GateRefused(f"type {SEED_BACKUP_CODE} to show the seed")
        seed = self.vault.export_seed()
        self.stated.answered(request)
        return seed

    def restore_seed(self, text: str) -> str:
        try:
            return self.vault.restore_seed(text, replace=True)
        except VaultError as exc:
            raise EngineError(str(exc)) from None

    def request_secret_reveal(self, deal_id: str) -> GateRequest:
        deal = self.book.find(deal_id)
        blockers = [] if self.keeper.deal_secret(deal.deal_id) else ["no secret held for it"]
        code = code_for(deal.state.contract or deal.deal_id) or ""  # a deal id is never empty
        digits_of = "contract id" if deal.state.contract else "deal id"
        facts = (GateFact("deal", None, deal.deal_id[:18] + "…"),
                 GateFact("status", None, deal.state.status),
                 GateFact("risk", None if deal.state.status in ("claimed",) else False,
                          "anyone who sees it can claim before you" if deal.state.status ==
                          "locked" else "shown on this screen only"))
        return self.stated.state(GateRequest(
            action="secret-reveal", deal_id=deal.deal_id, contract=deal.state.contract,
            facts=facts, blockers=tuple(blockers), confirm_code=code, created_ms=self.now_ms(),
            token=_secrets.token_hex(8), prompt=code_prompt(code, digits_of=digits_of)))

    def confirm_secret_reveal(self, request: GateRequest, typed_code: str) -> str:
        request = self.stated.stated(request)  # its code is the engine's, never the face's
        if request.action != "secret-reveal" or request.blockers:
            raise GateRefused("; ".join(request.blockers) or "not a secret reveal request")
        if request.confirm_code is None or not request.code_matches(typed_code):
            raise WrongCode(wrong_code("contract id" if request.contract else "deal id"))
        secret = self.keeper.deal_secret(request.deal_id)
        if secret is None:
            raise GateRefused("no secret held for this deal")
        self.stated.answered(request)
        return secret
