import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.vault import (
    SECP256K1_N,
    FileVaultBackend,
    KdfParams,
    MasterSeed,
    MemoryVaultBackend,
    SeedConflict,
    SeedMissing,
    Vault,
    VaultCorrupt,
    deal_entry_name,
)
from tclk_tui.vault.seed import (
    DOMAIN_PREIMAGE,
    DOMAIN_WITNESS,
    SEED_ENTRY,
    derive_bytes,
    derive_scalar,
)

OFFER = "0x" + "d0" * 32
OTHER_OFFER = "0x" + "e1" * 32
NONCE = "0011223344556677"
SEED = MasterSeed(bytes(range(32)))

hex_ids = st.binary(min_size=32, max_size=32).map(lambda b: "0x" + b.hex())
nonces = st.binary(min_size=4, max_size=32).map(bytes.hex)


def seeded_vault() -> Vault:
    vault = Vault(MemoryVaultBackend(), profile="t")
    vault.create_seed(SEED)
    return vault


def test_secp256k1_order_constant():
    assert SECP256K1_N == 2**256 - 0x14551231950B75FC4402DA1732FC9BEBF


def test_derivation_is_deterministic_and_bound_to_every_input():
    a = derive_bytes(SEED, DOMAIN_PREIMAGE, OFFER, NONCE)
    assert a == derive_bytes(SEED, DOMAIN_PREIMAGE, OFFER, NONCE)
    assert a != derive_bytes(SEED, DOMAIN_WITNESS, OFFER, NONCE)
    assert a != derive_bytes(SEED, DOMAIN_PREIMAGE, OTHER_OFFER, NONCE)
    assert a != derive_bytes(SEED, DOMAIN_PREIMAGE, OFFER, "0011223344556678")
    assert a != derive_bytes(MasterSeed(bytes(32)), DOMAIN_PREIMAGE, OFFER, NONCE)
    assert a != derive_bytes(SEED, DOMAIN_PREIMAGE, OFFER, NONCE, counter=1)


def test_fields_are_length_prefixed_so_boundaries_matter():
    assert derive_bytes(SEED, "d", "ab", "c") != derive_bytes(SEED, "d", "a", "bc")
    assert derive_bytes(SEED, "d", "abc") != derive_bytes(SEED, "d", "ab", "c")


@settings(max_examples=100)
@given(hex_ids, nonces)
def test_witness_and_payment_key_are_scalars(offer_id, nonce):
    vault = seeded_vault()
    for secret in (
        vault.derive_witness(offer_id, nonce),
        vault.derive_payment_key(offer_id, nonce),
    ):
        assert len(secret) == 32
        assert 1 <= int.from_bytes(secret.reveal(), "big") < SECP256K1_N


def test_scalar_rederives_with_a_counter_when_out_of_range():
    order = 2**254  # three in four 256-bit draws fall outside [1, order)

    def in_range(field: str, counter: int) -> bool:
        return int.from_bytes(derive_bytes(SEED, "k", field, counter=counter), "big") < order

    field = next(f"x{i}" for i in range(100) if not in_range(f"x{i}", 0))
    first_good = next(c for c in range(1, 200) if in_range(field, c))
    expected = derive_bytes(SEED, "k", field, counter=first_good)
    assert derive_scalar(SEED, "k", field, order=order) == expected


def test_kinds_are_domain_separated():
    vault = seeded_vault()
    pre = vault.derive_preimage(OFFER, NONCE)
    wit = vault.derive_witness(OFFER, NONCE)
    pay = vault.derive_payment_key(OFFER, NONCE)
    assert pre != wit and wit != pay and pre != pay


def test_derived_secrets_are_cached_durably_under_deal_names():
    backend = MemoryVaultBackend()
    vault = Vault(backend)
    vault.create_seed(SEED)
    pre = vault.derive_preimage(OFFER, NONCE)
    name = deal_entry_name(OFFER, NONCE, "preimage")
    assert name == f"deal/{OFFER}/{NONCE}/preimage"
    assert backend.get(name) == pre.reveal()
    maker_key = vault.derive_payment_key(None, NONCE)
    assert backend.get(f"deal/maker/{NONCE}/payment-key") == maker_key.reveal()
    assert maker_key != vault.derive_payment_key(OFFER, NONCE)
    assert vault.deal_entries(OFFER) == [
        deal_entry_name(OFFER, NONCE, "payment-key"),
        name,
    ]
    assert vault.cached_deal_secret(OFFER, NONCE, "preimage") == pre


def test_lost_master_seed_does_not_strand_a_live_deal():
    backend = MemoryVaultBackend()
    vault = Vault(backend)
    vault.create_seed(SEED)
    pre = vault.derive_preimage(OFFER, NONCE)
    wit = vault.derive_witness(OFFER, NONCE)
    backend.delete(SEED_ENTRY)
    assert not vault.has_seed()
    assert vault.derive_preimage(OFFER, NONCE) == pre
    assert vault.derive_witness(OFFER, NONCE) == wit
    with pytest.raises(SeedMissing):
        vault.derive_preimage(OTHER_OFFER, NONCE)


def test_a_seed_in_use_is_never_replaced_so_its_backup_always_restores_the_profile():
    vault = seeded_vault()
    backup = vault.export_seed()
    pre = vault.derive_preimage(OFFER, NONCE)
    other = MasterSeed(bytes(32))
    with pytest.raises(SeedConflict, match="already uses its master seed"):
        vault.restore_seed(Vault(_seeded(other)).export_seed(), replace=True)
    assert vault.export_seed() == backup and vault.master_seed() == SEED
    assert vault.derive_preimage(OFFER, NONCE) == pre
    restored = Vault(MemoryVaultBackend())
    restored.restore_seed(backup)
    assert restored.derive_preimage(OFFER, NONCE) == pre


def _seeded(seed: MasterSeed) -> MemoryVaultBackend:
    backend = MemoryVaultBackend()
    Vault(backend).create_seed(seed)
    return backend


def test_no_seed_means_no_derivation():
    vault = Vault(MemoryVaultBackend())
    assert not vault.has_seed()
    with pytest.raises(SeedMissing):
        vault.derive_preimage(OFFER, NONCE)
    with pytest.raises(SeedMissing):
        vault.export_seed()


def test_create_seed_never_overwrites():
    vault = seeded_vault()
    fingerprint = vault.seed_fingerprint()
    with pytest.raises(SeedConflict):
        vault.create_seed()
    assert vault.ensure_seed() == fingerprint
    fresh = Vault(MemoryVaultBackend())
    assert fresh.ensure_seed() == fresh.seed_fingerprint()


def test_restore_refuses_a_different_seed_unless_asked():
    vault = seeded_vault()
    same = vault.export_seed()
    assert vault.restore_seed(same) == SEED.fingerprint()  # idempotent
    other_text = Vault(_seeded(MasterSeed(bytes(32)))).export_seed()
    with pytest.raises(SeedConflict):
        vault.restore_seed(other_text)
    assert vault.master_seed() == SEED
    vault.restore_seed(other_text, replace=True)
    assert vault.master_seed() == MasterSeed(bytes(32))


def test_damaged_seed_or_cache_entries_are_reported():
    backend = MemoryVaultBackend()
    vault = Vault(backend)
    backend.put(SEED_ENTRY, b"short")
    with pytest.raises(VaultCorrupt):
        vault.master_seed()
    backend.put(deal_entry_name(OFFER, NONCE, "preimage"), b"short")
    with pytest.raises(VaultCorrupt):
        vault.derive_preimage(OFFER, NONCE)


def test_bad_ids_are_refused_without_being_echoed():
    vault = seeded_vault()
    secret_looking = "f" * 64
    with pytest.raises(ValueError) as err:
        vault.derive_preimage(secret_looking, NONCE)
    assert secret_looking not in str(err.value)
    with pytest.raises(ValueError):
        vault.derive_preimage(OFFER.upper(), NONCE)
    with pytest.raises(ValueError):
        vault.derive_witness(OFFER, "123")
    with pytest.raises(ValueError):
        vault.derive_payment_key(OFFER, "not-hex!")


def test_forget_deal_removes_only_that_offers_secrets():
    vault = seeded_vault()
    vault.derive_preimage(OFFER, NONCE)
    vault.derive_witness(OFFER, NONCE)
    vault.derive_preimage(OTHER_OFFER, NONCE)
    assert vault.forget_deal(OFFER) == 2
    assert vault.deal_entries() == [deal_entry_name(OTHER_OFFER, NONCE, "preimage")]
    assert vault.has_seed()


def test_backup_wipe_restore_recovers_derived_secrets(tmp_path):
    path = tmp_path / "alice.vault"
    kdf = KdfParams.minimum()
    first = Vault(FileVaultBackend(path, passphrase=lambda: "one", kdf=kdf))
    first.create_seed()
    preimage = first.derive_preimage(OFFER, NONCE)
    witness = first.derive_witness(OFFER, NONCE)
    words = first.backup_words()
    path.unlink()  # the machine is lost
    second = Vault(FileVaultBackend(path, passphrase=lambda: "two", kdf=kdf))
    assert not second.has_seed()
    second.restore_seed(" ".join(words))
    assert second.deal_entries() == []  # nothing cached survived: these are fresh derivations
    assert second.derive_preimage(OFFER, NONCE) == preimage
    assert second.derive_witness(OFFER, NONCE) == witness


def test_vault_repr_holds_no_secret():
    vault = seeded_vault()
    pre = vault.derive_preimage(OFFER, NONCE)
    assert pre.hex() not in repr(vault)
    assert SEED.hex() not in repr(vault) and SEED.hex() not in repr(vault.backend)
