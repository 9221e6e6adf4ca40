"""The master seed is replaced only through the engine's gate: the request says which seed goes,
what derives from it and which identity the backup makes; a seed in use is a blocker; the
confirmation answers the request the engine stated, once, and never carries the backup."""

from __future__ import annotations

import pytest

from tclk_tui.engine.gates import GateRefused, GateRequest, StatedGates
from tclk_tui.engine.secrets.gates import SEED_RESTORE_CODE, SeedGates
from tclk_tui.engine.secrets.identity_key import identity_of
from tclk_tui.engine.wallet import Wallet
from tclk_tui.vault.backend import MemoryVaultBackend
from tclk_tui.vault.backup import parse_backup
from tclk_tui.vault.errors import BackupTextInvalid
from tclk_tui.vault.seed import Vault


def _vault(*, seeded: bool = True) -> Vault:
    vault = Vault(MemoryVaultBackend(), profile="dana")
    if seeded:
        vault.ensure_seed()
    return vault


def _gates(vault: Vault) -> SeedGates:
    return SeedGates(vault, lambda: 1_000, StatedGates())


def _facts(request: GateRequest) -> dict[str, tuple[bool | None, str]]:
    return {f.label: (f.ok, f.detail) for f in request.facts}


def _no_backup_in(request: GateRequest, backup: str) -> None:
    words = [w for w in backup.split() if len(w) >= 4]
    for text in (repr(request), *(f.detail for f in request.facts), *request.blockers,
                 request.prompt):
        assert backup not in text and not any(w in text for w in words[1:]), text


def test_replacing_an_unused_seed_states_it_and_needs_the_typed_code():
    vault, backup = _vault(), _vault().export_seed()
    old = vault.seed_fingerprint()
    gates = _gates(vault)
    request = gates.request_seed_restore(backup)
    facts = _facts(request)
    assert request.action == "seed-restore" and request.allowed
    assert request.confirm_code == SEED_RESTORE_CODE and "replace" in request.prompt
    assert facts["current seed"] == (None, f"{old} is replaced: a backup of it no longer "
                                     "restores this profile")
    seed, _ = parse_backup(backup)
    assert seed is not None and identity_of(seed).did in facts["backup"][1]
    _no_backup_in(request, backup)
    with pytest.raises(GateRefused, match="type replace"):
        gates.confirm_seed_restore(request, "yes")
    assert vault.seed_fingerprint() == old  # a wrong code changes nothing
    assert gates.confirm_seed_restore(request, " Replace ") == seed.fingerprint()
    assert vault.export_seed() == backup
    with pytest.raises(GateRefused, match="no request"):  # answered once
        gates.confirm_seed_restore(request, "replace")


def test_a_seed_in_use_is_a_blocker_and_is_kept():
    vault = _vault()
    vault.derive_preimage("0x" + "ab" * 32, "00" * 8)  # a deal's secret derives from it
    backup, kept = _vault().export_seed(), vault.export_seed()
    gates = _gates(vault)
    request = gates.request_seed_restore(backup)
    assert not request.allowed
    assert _facts(request)["derived from it"] == (False, "the secrets of 1 deal")
    assert "already uses its master seed" in request.blockers[0]
    with pytest.raises(GateRefused, match="already uses its master seed"):
        gates.confirm_seed_restore(request, SEED_RESTORE_CODE)
    assert vault.export_seed() == kept


def test_a_restore_that_replaces_nothing_has_no_code_to_type():
    empty, backup = _vault(seeded=False), _vault().export_seed()
    gates = _gates(empty)
    request = gates.request_seed_restore(backup)
    assert request.allowed and request.confirm_code is None
    assert _facts(request)["current seed"][1].startswith("none held")
    gates.confirm_seed_restore(request)
    assert empty.export_seed() == backup
    same = gates.request_seed_restore(backup)  # the seed it holds: nothing changes
    assert same.confirm_code is None and _facts(same)["current seed"][0] is True


def test_a_confirmation_the_engine_did_not_state_gets_nothing():
    vault, backup = _vault(), _vault().export_seed()
    kept = vault.export_seed()
    gates = _gates(vault)
    stated = gates.request_seed_restore(backup)
    made_up = GateRequest(action="seed-restore", deal_id="", contract=None, facts=(),
                          token="f" * 16)
    for request in (made_up, GateRequest(**{**{s: getattr(stated, s) for s in
                                               stated.__slots__}, "blockers": ("x",)})):
        with pytest.raises(GateRefused, match="no request"):
            gates.confirm_seed_restore(request, SEED_RESTORE_CODE)
    newer = gates.request_seed_restore(_vault().export_seed())
    with pytest.raises(GateRefused, match="no request"):  # only the newest restore is held
        gates.confirm_seed_restore(stated, SEED_RESTORE_CODE)
    with pytest.raises(GateRefused, match="not a seed restore"):
        gates.confirm_seed_restore(gates.request_seed_backup(), SEED_RESTORE_CODE)
    assert vault.export_seed() == kept
    gates.confirm_seed_restore(newer, SEED_RESTORE_CODE)
    assert vault.export_seed() != kept


def test_a_backup_that_does_not_parse_states_no_request():
    gates = _gates(_vault())
    with pytest.raises(BackupTextInvalid, match=r"checksum|characters"):
        gates.request_seed_restore("tclk-seed1 " + "a" * 56)


async def test_an_open_wallet_never_replaces_its_seed(venue, tmp_path, clock):
    wallet = await Wallet.open("dana", venue_url=venue.url, data_dir=tmp_path,
                               vault=_vault(seeded=False), clock_ms=clock, follow=False)
    try:
        kept = wallet.vault.export_seed()
        request = wallet.request_seed_restore(_vault().export_seed())
        facts = _facts(request)
        assert facts["derived from it"][0] is False
        assert facts["derived from it"][1].startswith("the identity and ")
        assert facts["identity"] == (None, f"this profile is {wallet.did}")
        with pytest.raises(GateRefused, match="already uses its master seed"):
            wallet.confirm_seed_restore(request, SEED_RESTORE_CODE)
        assert wallet.vault.export_seed() == kept
        same = wallet.request_seed_restore(kept)
        assert wallet.confirm_seed_restore(same) == wallet.vault.seed_fingerprint()
    finally:
        await wallet.close()


async def test_the_registry_holds_no_backup_after_its_answer():
    from tclk_tui.engine.commands import execute
    from tclk_tui.engine.secrets.gates import VaultAlone

    owner = VaultAlone(_vault())
    backup = _vault().export_seed()
    answer = await execute(owner, "seed-restore", {"seed": backup})
    assert answer["performed"] is False and answer["gate"]["confirm"]["param"] == "replace"
    assert owner.gates._restoring == {}
    assert (await execute(owner, "seed-restore", {"seed": backup, "replace": True}))[
        "performed"] is True
    assert owner.gates._restoring == {} and owner.vault.export_seed() == backup
