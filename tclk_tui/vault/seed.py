"""The master seed of a profile and the deal secrets derived from it.

Every deal secret is a keyed BLAKE2b of public deal facts under the master seed, with a domain
string per kind of secret, so one backup of the seed regenerates every preimage, witness and
payment key the profile ever committed to, and no two kinds can collide. The derived value is
ALSO written to the vault under `deal/<offer id>/<nonce>/<kind>` before it is returned: the caller
publishes a commitment only after derivation returns, so the secret is durable first, and a deal
stays claimable even if the master seed is later lost or replaced. When a cached value exists it
is the one returned, since it is what a published frame committed to.

Secret bytes are held as SecretValue in every frame here, so a traceback rendered with its locals
shows placeholders.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from tclk_tui.protocol.locks import SECP256K1_N
from tclk_tui.vault.backend import VaultBackend
from tclk_tui.vault.backup import backup_groups, encode_backup, parse_backup
from tclk_tui.vault.errors import BackupTextInvalid, SeedConflict, SeedMissing, VaultCorrupt
from tclk_tui.vault.secret import SEED_LEN, MasterSeed, SecretValue

SEED_ENTRY = "master-seed"
DEAL_PREFIX = "deal/"
MAKER_CONTEXT = "maker"

DOMAIN_PREIMAGE = "tclk-tui/v1/preimage"
DOMAIN_WITNESS = "tclk-tui/v1/witness"
DOMAIN_PAYMENT_KEY = "tclk-tui/v1/payment-key"

KIND_PREIMAGE = "preimage"
KIND_WITNESS = "witness"
KIND_PAYMENT_KEY = "payment-key"

_OFFER_ID_RE = re.compile(r"0x[0-9a-f]{64}")
_NONCE_RE = re.compile(r"[0-9a-f]{8,64}")
_PERSON = b"tclk-tui derive"
_MAX_SCALAR_DRAWS = 256


def _field(data: str) -> bytes:
    raw = data.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def derive_bytes(seed: MasterSeed, domain: str, *fields: str, counter: int = 0) -> bytes:
    """32 bytes bound to (seed, domain, fields, counter); fields are length-prefixed."""
    h = hashlib.blake2b(key=seed.reveal(), digest_size=32, person=_PERSON)
    h.update(_field(domain))
    h.update(len(fields).to_bytes(4, "big"))
    for item in fields:
        h.update(_field(item))
    h.update(counter.to_bytes(4, "big"))
    return h.digest()


def derive_scalar(seed: MasterSeed, domain: str, *fields: str, order: int = SECP256K1_N) -> bytes:
    """A 32-byte big-endian scalar in [1, order): the first in-range draw over counters 0, 1, ...

    For secp256k1 a draw is out of range with probability about 2^-128, so in practice counter 0
    is always the answer; the loop exists so the result is always a valid scalar, deterministically.
    """
    for counter in range(_MAX_SCALAR_DRAWS):
        draw = derive_bytes(seed, domain, *fields, counter=counter)
        if 1 <= int.from_bytes(draw, "big") < order:
            return draw
    raise VaultCorrupt(f"no scalar in [1, n) in {_MAX_SCALAR_DRAWS} draws")  # pragma: no cover


def _shape(value: object) -> str:
    # Describes a rejected argument without echoing it: a caller that mixes up arguments could
    # be passing a secret where a public id belongs.
    if isinstance(value, str):
        return f"a {len(value)}-character string"
    return f"a {type(value).__name__}"


def check_offer_id(offer_id: str) -> str:
    if not isinstance(offer_id, str) or _OFFER_ID_RE.fullmatch(offer_id) is None:
        raise ValueError(f"offer id must be 0x + 64 lowercase hex, got {_shape(offer_id)}")
    return offer_id


def check_nonce(nonce: str) -> str:
    if not isinstance(nonce, str) or _NONCE_RE.fullmatch(nonce) is None:
        raise ValueError(f"frame nonce must be 8-64 lowercase hex, got {_shape(nonce)}")
    return nonce


def deal_entry_name(context: str, nonce: str, kind: str) -> str:
    """Vault entry name of a cached deal secret: `deal/<offer id or 'maker'>/<nonce>/<kind>`."""
    return f"{DEAL_PREFIX}{context}/{nonce}/{kind}"


class Vault:
    """One profile's secrets: the master seed and the deal secrets derived from it.

    Thread-safe as far as its backend is (all shipped backends are). Derivations are
    deterministic, so two processes deriving the same secret write the same bytes.
    """

    def __init__(self, backend: VaultBackend, *, profile: str = "default") -> None:
        self._backend = backend
        self._profile = profile

    def __repr__(self) -> str:
        return f"Vault(profile={self._profile!r}, backend={self._backend!r})"

    @property
    def backend(self) -> VaultBackend:
        return self._backend

    @property
    def profile(self) -> str:
        return self._profile

    def describe(self) -> str:
        return self._backend.describe()

    # --- the master seed -----------------------------------------------------------------------

    def has_seed(self) -> bool:
        return self._backend.get(SEED_ENTRY) is not None

    def master_seed(self) -> MasterSeed:
        stored = self._get(SEED_ENTRY)
        if stored is None:
            raise SeedMissing(
                f"profile '{self._profile}' has no master seed yet: create one or restore a backup"
            )
        if len(stored) != SEED_LEN:
            raise VaultCorrupt(
                f"the stored master seed is {len(stored)} bytes, expected {SEED_LEN}"
            )
        return MasterSeed(stored.reveal())

    def seed_fingerprint(self) -> str:
        return self.master_seed().fingerprint()

    def create_seed(self, seed: MasterSeed | None = None) -> str:
        """Store a new (or the given) master seed; refuse if one exists. Returns its fingerprint."""
        if self.has_seed():
            raise SeedConflict(
                f"profile '{self._profile}' already has a master seed; it is never overwritten "
                "implicitly"
            )
        seed = seed if seed is not None else MasterSeed.generate()
        self._put_verified(SEED_ENTRY, seed)
        return seed.fingerprint()

    def ensure_seed(self) -> str:
        """The fingerprint of the profile's seed, creating a seed first if there is none."""
        if self.has_seed():
            return self.seed_fingerprint()
        return self.create_seed()

    def export_seed(self) -> str:
        """The seed's checksummed backup text. An explicit reveal: show it only when asked."""
        return encode_backup(self.master_seed())

    def backup_words(self) -> list[str]:
        """The backup text as its 14 groups of four characters, for writing down."""
        return backup_groups(self.master_seed())

    def restore_seed(self, text: str, *, replace: bool = False) -> str:
        """Store the seed a backup text encodes; returns its fingerprint.

        Restoring the seed already stored is a no-op. A different stored seed is replaced only
        with `replace=True`, and never once anything derives from it (the identity, a deal
        secret): the profile would then run on the old seed's identity while the backup it
        shows is the new seed, which restores neither.
        """
        parsed, problem = parse_backup(text)
        del text  # no frame that raises may hold the backup text (see file_format's docstring)
        if parsed is None:
            raise BackupTextInvalid(problem or "not a seed backup")
        return self.restore(parsed, replace=replace)

    def restore(self, seed: MasterSeed, *, replace: bool = False) -> str:
        """`restore_seed` of a backup already parsed (`parse_backup`): the same rules."""
        stored = self._get(SEED_ENTRY)
        if stored is not None:
            if stored == seed:
                return seed.fingerprint()
            if not replace:
                raise SeedConflict(
                    f"profile '{self._profile}' holds a different master seed; restoring over it "
                    "needs an explicit replace"
                )
            if self.in_use():
                raise SeedConflict(self.in_use_reason())
        self._put_verified(SEED_ENTRY, seed)
        return seed.fingerprint()

    def in_use(self) -> list[str]:
        """The entries beside the master seed (the identity, deal secrets, received ones):
        while any is held the seed is in use and is never replaced."""
        return [name for name in self._backend.names() if name != SEED_ENTRY]

    def in_use_reason(self) -> str:
        return (f"profile '{self._profile}' already uses its master seed (its identity or deal "
                "secrets derive from it), so it is kept: replacing it would leave a backup that "
                "restores neither. Restore into a new profile or a fresh data directory instead")

    # --- deal secrets --------------------------------------------------------------------------

    def derive_preimage(self, offer_id: str, accept_nonce: str) -> SecretValue:
        """The 32-byte hash-lock preimage of the deal (offer id, our accept nonce)."""
        offer_id, accept_nonce = check_offer_id(offer_id), check_nonce(accept_nonce)
        return self._derive_cached(
            deal_entry_name(offer_id, accept_nonce, KIND_PREIMAGE),
            lambda seed: derive_bytes(seed, DOMAIN_PREIMAGE, offer_id, accept_nonce),
        )

    def derive_witness(self, offer_id: str, accept_nonce: str) -> SecretValue:
        """The point-lock witness of the deal: a secp256k1 scalar in [1, n), 32 bytes big-endian."""
        offer_id, accept_nonce = check_offer_id(offer_id), check_nonce(accept_nonce)
        return self._derive_cached(
            deal_entry_name(offer_id, accept_nonce, KIND_WITNESS),
            lambda seed: derive_scalar(seed, DOMAIN_WITNESS, offer_id, accept_nonce),
        )

    def derive_payment_key(self, offer_id: str | None, nonce: str) -> SecretValue:
        """The secp256k1 private scalar behind a frame's `paymentKey`.

        An acceptor passes the offer id and its accept nonce. The maker of an offer cannot (the
        offer id hashes the paymentKey itself), so it passes `offer_id=None` and the offer's nonce.
        """
        nonce = check_nonce(nonce)
        context = MAKER_CONTEXT if offer_id is None else check_offer_id(offer_id)
        return self._derive_cached(
            deal_entry_name(context, nonce, KIND_PAYMENT_KEY),
            lambda seed: derive_scalar(seed, DOMAIN_PAYMENT_KEY, context, nonce),
        )

    def cached_deal_secret(self, context: str, nonce: str, kind: str) -> SecretValue | None:
        """A deal secret already in the vault, without deriving (works with no master seed)."""
        return self._get(deal_entry_name(context, nonce, kind))

    def deal_entries(self, context: str | None = None) -> list[str]:
        """Names of cached deal secrets, all or for one offer id (or 'maker')."""
        prefix = DEAL_PREFIX if context is None else f"{DEAL_PREFIX}{context}/"
        return [n for n in self._backend.names() if n.startswith(prefix)]

    def forget_deal(self, context: str) -> int:
        """Delete the cached secrets of one offer id once its deal is settled; returns a count."""
        names = self.deal_entries(context)
        for name in names:
            self._backend.delete(name)
        return len(names)

    # --- internals -----------------------------------------------------------------------------

    def _get(self, name: str) -> SecretValue | None:
        raw = self._backend.get(name)
        return None if raw is None else SecretValue(raw)

    def _derive_cached(self, name: str, compute: Callable[[MasterSeed], bytes]) -> SecretValue:
        cached = self._get(name)
        if cached is not None:
            if len(cached) != SEED_LEN:
                raise VaultCorrupt(f"cached deal secret {name} has a wrong length")
            return cached
        value = SecretValue(compute(self.master_seed()))
        self._put_verified(name, value)
        return value

    def _put_verified(self, name: str, value: SecretValue) -> None:
        """Write, then read back: a secret is reported durable only once it can be read again."""
        self._backend.put(name, value)
        stored = self._get(name)
        if stored is None or stored != value:
            raise VaultCorrupt(f"vault entry {name} did not read back as written")


__all__ = [
    "DEAL_PREFIX",
    "KIND_PAYMENT_KEY",
    "KIND_PREIMAGE",
    "KIND_WITNESS",
    "MAKER_CONTEXT",
    "SECP256K1_N",
    "SEED_ENTRY",
    "MasterSeed",
    "SecretValue",
    "Vault",
    "deal_entry_name",
    "derive_bytes",
    "derive_scalar",
]
