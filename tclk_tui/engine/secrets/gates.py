"""The vault as the operator sees it: its health, the secrets it holds, and the gates that
show one (the master seed for a backup, a deal's secret) or replace the seed."""

from __future__ import annotations

import secrets as _secrets
import time
from collections.abc import Callable

from tclk_tui.engine.deal.book import DealBook
from tclk_tui.engine.gates import (
    NOT_STATED,
    GateFact,
    GateRefused,
    GateRequest,
    StatedGates,
    WrongCode,
    code_for,
    code_prompt,
    wrong_code,
)
from tclk_tui.engine.secrets.identity_key import IDENTITY_ENTRY, held_identity, identity_of
from tclk_tui.engine.secrets.keeper import VaultKeeper
from tclk_tui.engine.views import HeldSecret, VaultStatus
from tclk_tui.engine.words import plural
from tclk_tui.vault.backup import parse_backup
from tclk_tui.vault.errors import BackupTextInvalid, VaultError
from tclk_tui.vault.secret import MasterSeed
from tclk_tui.vault.seed import DEAL_PREFIX, Vault

SEED_BACKUP_CODE = "backup"
SEED_RESTORE_CODE = "replace"
_KEEP_RESTORING = 1  # restore candidates held while their gate is open: the newest only


class SeedGates:
    """The master seed's two gates: showing it (a backup) and replacing it (a restore).

    They need the vault alone, so a face with no engine running (the CLI restoring a backup
    onto a fresh machine, where opening a wallet would first make a seed of its own) goes
    through the same gates as one talking to the profile's owner."""

    def __init__(self, vault: Vault, now_ms: Callable[[], int], stated: StatedGates) -> None:
        self.vault = vault
        self.now_ms = now_ms
        self.stated = stated  # a confirmation answers a request stated here, never a face's
        # The backup a restore request stated, by its token, until it is confirmed: never in
        # the request itself, which a face holds.
        self._restoring: dict[str, MasterSeed] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.vault!r})"

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

    def request_seed_restore(self, text: str) -> GateRequest:
        """What restoring this backup would do: which seed it replaces, and what derives from
        that one (a seed in use is never replaced: that is a blocker, not a warning). A
        replacement is confirmed by typing `replace`; a restore that replaces nothing (an
        empty vault, or the seed it holds already) has no code to type."""
        parsed, problem = parse_backup(text)
        del text  # no frame that raises may hold the backup text
        if parsed is None:
            raise BackupTextInvalid(problem or "not a seed backup")
        backup = parsed.fingerprint()
        facts = [GateFact("backup", None, f"seed fingerprint {backup}: it makes this profile "
                          f"{identity_of(parsed).did}")]
        blockers: list[str] = []
        code: str | None = None
        if not self.vault.has_seed():
            facts.append(GateFact("current seed", None, "none held: the backup becomes this "
                                  "profile's master seed"))
        elif self.vault.master_seed() == parsed:
            facts.append(GateFact("current seed", True, f"the same seed ({backup}): nothing "
                                  "changes"))
        else:
            facts.append(GateFact("current seed", None, f"{self.vault.seed_fingerprint()} is "
                                  "replaced: a backup of it no longer restores this profile"))
            code = SEED_RESTORE_CODE
            in_use = self.vault.in_use()
            if in_use:
                facts.append(GateFact("derived from it", False, _derived(in_use)))
                blockers.append(self.vault.in_use_reason())
        held = held_identity(self.vault)
        if held is not None:
            facts.append(GateFact("identity", None, f"this profile is {held.did}"))
        request = GateRequest(
            action="seed-restore", deal_id="", contract=None, facts=tuple(facts),
            blockers=tuple(blockers), confirm_code=code, created_ms=self.now_ms(),
            token=_secrets.token_hex(8),
            prompt=code_prompt(code) if code is not None else "")
        self._restoring = {request.token: parsed}  # _KEEP_RESTORING: the newest request only
        return self.stated.state(request)

    def withdraw_seed_restore(self, request: GateRequest) -> None:
        """Forget a restore request nobody will confirm: its backup is no longer held."""
        self._restoring.pop(request.token, None)
        self.stated.answered(request)

    def confirm_seed_restore(self, request: GateRequest, typed_code: str = "") -> str:
        """Restore the backup `request` stated; returns its fingerprint. The vault re-checks
        its own rules (a seed that came into use meanwhile is still kept)."""
        request = self.stated.stated(request)
        if request.action != "seed-restore":
            raise GateRefused("not a seed restore request")
        if request.blockers:
            raise GateRefused("; ".join(request.blockers))
        if request.confirm_code is not None and typed_code.strip().lower() != \
                SEED_RESTORE_CODE:
            raise GateRefused(f"type {SEED_RESTORE_CODE} to replace the master seed")
        seed = self._restoring.get(request.token)
        if seed is None:
            raise GateRefused(NOT_STATED)
        fingerprint = self.vault.restore(seed, replace=request.confirm_code is not None)
        del self._restoring[request.token]
        self.stated.answered(request)
        return fingerprint


class VaultAlone:
    """The profile's vault with no engine running: what the master seed's commands run on
    when no owner answers (`Command.vault_alone`). Its gates state and confirm their own
    requests like a wallet's."""

    def __init__(self, vault: Vault, now_ms: Callable[[], int] | None = None) -> None:
        self.vault = vault
        self.gates = SeedGates(vault, now_ms or _wall_clock_ms, StatedGates())

    def __repr__(self) -> str:
        return f"VaultAlone({self.vault!r})"


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


def _derived(names: list[str]) -> str:
    """What derives from a seed, from its vault's entry names (never their values)."""
    deals = {n.split("/")[1] for n in names if n.startswith(DEAL_PREFIX) and n.count("/") >= 2}
    parts = []
    if IDENTITY_ENTRY in names:
        parts.append("the identity")
    if deals:
        parts.append("the secrets of " + plural(len(deals), "deal"))
    others = len(names) - (IDENTITY_ENTRY in names) - sum(n.startswith(DEAL_PREFIX)
                                                          for n in names)
    if others:
        parts.append(plural(others, "other key or secret", "other keys and secrets"))
    return " and ".join(parts)


class SecretGates(SeedGates):
    """The vault as the operator sees it in a running wallet: its health, the secrets it
    holds, the seed's gates and the gate that shows one deal's secret."""

    def __init__(self, vault: Vault, keeper: VaultKeeper, book: DealBook,
                 now_ms: Callable[[], int], stated: StatedGates) -> None:
        super().__init__(vault, now_ms, stated)
        self.keeper = keeper
        self.book = book

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
