"""The vault as the deals see it: which secret belongs to which deal, and payment keys.

A deal's secret is derived from the profile's master seed and the deal's public facts (offer id
and the nonce that minted it), so one seed backup restores every live secret; the vault also
caches each derived value so a lost seed never strands a live deal.
"""

from __future__ import annotations

from dataclasses import dataclass

from tclk_tui.engine.evm import evm_account_key, evm_account_public_key
from tclk_tui.protocol.adaptor import get_public_key
from tclk_tui.protocol.locks import hash_lock_from_preimage, point_lock_from_witness
from tclk_tui.vault.seed import Vault, derive_bytes

REVEALED_PREFIX = "revealed/"
RECEIVED_PREFIX = "received/"
SHARE_PREFIX = "share/"
JOURNAL_DOMAIN = "tclk-tui journal vouch v1"


@dataclass(frozen=True, slots=True)
class SecretPlan:
    """Where a deal's secret comes from: never the secret itself, so it may be journaled."""

    offer_id: str
    nonce: str  # the nonce that minted it (our accept nonce, or our offer nonce)
    lock: str  # hash | point

    def to_dict(self) -> dict[str, str]:
        return {"offer_id": self.offer_id, "nonce": self.nonce, "lock": self.lock}


@dataclass(frozen=True, slots=True)
class PaymentKeyPlan:
    offer_id: str | None  # None for the maker of an offer (the offer id hashes the key)
    nonce: str
    # True for a payee on an evm-htlc offer: the paymentKey is the profile's EVM account key,
    # so the escrow pays the account the wallet shows (and spends gas from).
    account: bool = False

    def to_dict(self) -> dict[str, str | bool | None]:
        plan: dict[str, str | bool | None] = {"offer_id": self.offer_id, "nonce": self.nonce}
        if self.account:
            plan["account"] = True
        return plan


class VaultKeeper:
    """Derives, stores and finds deal secrets; implements the deals' SecretSource."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._secret_plans: dict[str, SecretPlan] = {}
        self._key_plans: dict[str, PaymentKeyPlan] = {}
        self._journal_key: bytes | None = None

    def journal_key(self) -> bytes:
        """The key this profile vouches for its own journal rows with (`Evidence`): derived
        from the master seed, so a journal copied from elsewhere, or edited, is not vouched
        for; held in memory only, like every derived key."""
        if self._journal_key is None:
            self._journal_key = derive_bytes(self.vault.master_seed(), JOURNAL_DOMAIN)
        return self._journal_key

    def __repr__(self) -> str:
        return f"VaultKeeper({self.vault.describe()!r})"

    def plan_secret(self, deal_id: str, plan: SecretPlan) -> None:
        self._secret_plans[deal_id] = plan

    def plan_payment_key(self, deal_id: str, plan: PaymentKeyPlan) -> None:
        self._key_plans[deal_id] = plan

    def mint(self, plan: SecretPlan) -> str:
        """Derive the deal secret, write it durably to the vault, return its statement."""
        if plan.lock == "hash":
            secret = self.vault.derive_preimage(plan.offer_id, plan.nonce)
            return hash_lock_from_preimage(secret.reveal()).hash
        secret = self.vault.derive_witness(plan.offer_id, plan.nonce)
        return point_lock_from_witness(secret.reveal()).statement

    def payment_public_key(self, plan: PaymentKeyPlan) -> str:
        if plan.account:
            return evm_account_public_key(self.vault)
        key = get_public_key("0x" + self.vault.derive_payment_key(plan.offer_id, plan.nonce).hex())
        assert key is not None  # derive_scalar only yields scalars in [1, n)
        return key

    # -- SecretSource ---------------------------------------------------------------------------

    def deal_secret(self, deal_id: str) -> str | None:
        plan = self._secret_plans.get(deal_id)
        if plan is None:
            return self.received_secret(deal_id)
        if plan.lock == "hash":
            return "0x" + self.vault.derive_preimage(plan.offer_id, plan.nonce).hex()
        return "0x" + self.vault.derive_witness(plan.offer_id, plan.nonce).hex()

    def payment_secret_key(self, deal_id: str) -> str:
        plan = self._key_plans[deal_id]
        if plan.account:
            return "0x" + evm_account_key(self.vault).hex()
        return "0x" + self.vault.derive_payment_key(plan.offer_id, plan.nonce).hex()

    def statement_of(self, deal_id: str) -> str | None:
        plan = self._secret_plans.get(deal_id)
        return None if plan is None else self.mint(plan)

    def held(self) -> dict[str, SecretPlan]:
        return dict(self._secret_plans)

    def held_values(self) -> list[str]:
        """Every secret this keeper can produce, as hex: for redaction filters, never output."""
        values = ["0x" + self.vault.master_seed().hex()]
        for deal_id in self._secret_plans:
            values += [v for v in (self.deal_secret(deal_id), self.revealed_secret(deal_id))
                       if v is not None]
        values += [self.payment_secret_key(deal_id) for deal_id in self._key_plans]
        return values

    # -- secrets the counterparty revealed ------------------------------------------------------

    def remember_revealed(self, deal_id: str, secret: str) -> None:
        """Keep a secret the payee published for one of our deals in the vault, not in SQLite.

        The journal holds the reveal record with a placeholder; this is what puts the record
        back together (and its signature with it) when the journal is read after a restart.
        """
        if secret == self.deal_secret(deal_id):
            return  # our own secret: the vault already holds it
        name = REVEALED_PREFIX + deal_id
        raw = bytes.fromhex(secret.removeprefix("0x"))
        if self.vault.backend.get(name) != raw:
            self.vault.backend.put(name, raw)

    def revealed_secret(self, deal_id: str) -> str | None:
        raw = self.vault.backend.get(REVEALED_PREFIX + deal_id)
        return None if raw is None else "0x" + bytes(raw).hex()

    # -- secrets an arbiter or a committee handed us privately ----------------------------------

    def receive_secret(self, deal_id: str, secret: str) -> None:
        """Keep a secret released to us sealed (the caller checked it opens the statement): it
        is what the deal's normal reveal gate then finds for this deal."""
        raw = bytes.fromhex(secret.removeprefix("0x"))
        if self.vault.backend.get(RECEIVED_PREFIX + deal_id) != raw:
            self.vault.backend.put(RECEIVED_PREFIX + deal_id, raw)

    def received_secret(self, deal_id: str) -> str | None:
        raw = self.vault.backend.get(RECEIVED_PREFIX + deal_id)
        return None if raw is None else "0x" + bytes(raw).hex()

    def store_share(self, deal_id: str, juror: int, share: str) -> None:
        self.vault.backend.put(f"{SHARE_PREFIX}{deal_id}/{juror}",
                               bytes.fromhex(share.removeprefix("0x")))

    def shares(self, deal_id: str) -> dict[int, str]:
        prefix = f"{SHARE_PREFIX}{deal_id}/"
        found: dict[int, str] = {}
        for name in self.vault.backend.names():
            if name.startswith(prefix) and name[len(prefix):].isdigit():
                raw = self.vault.backend.get(name)
                if raw is not None:
                    found[int(name[len(prefix):])] = "0x" + bytes(raw).hex()
        return found
