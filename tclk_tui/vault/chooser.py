"""Choosing where a profile's secrets live, and explaining the choice.

Order for `prefer="auto"`: an existing vault file wins (the operator chose it once, and switching
silently to an empty keyring would make the master seed look lost); otherwise a usable OS
keyring; otherwise a new encrypted file if a passphrase source was given; otherwise refusal.
There is no plaintext fallback at any point. `doctor()` runs the same decision without asking
for a passphrase or reading any secret, and says why.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import keyring.backend

from tclk_tui.vault.backend import check_profile
from tclk_tui.vault.errors import (
    NowhereSafe,
    PassphraseMissing,
    VaultError,
    VaultUnavailable,
)
from tclk_tui.vault.file_backend import FileVaultBackend, FileVaultInfo, PassphraseSource
from tclk_tui.vault.file_format import DEFAULT_KDF, KdfParams
from tclk_tui.vault.keyring_backend import DEFAULT_TIMEOUT_S, KeyringVaultBackend
from tclk_tui.vault.seed import Vault

Prefer = Literal["auto", "keyring", "file"]
BackendKind = Literal["keyring", "file"]

VAULT_SUFFIX = ".vault"


def vault_file_path(profile: str, data_dir: str | os.PathLike[str]) -> Path:
    """Where the encrypted vault file of `profile` lives under the engine's data directory."""
    return Path(data_dir) / f"{check_profile(profile)}{VAULT_SUFFIX}"


@dataclass(frozen=True)
class KeyringProbe:
    """What the OS keyring looks like to this profile; no secret is read to find out."""

    backend: str | None
    usable: bool
    detail: str
    has_entries: bool | None = None
    error: VaultError | None = field(default=None, compare=False, repr=False)


def probe_keyring(kb: KeyringVaultBackend) -> KeyringProbe:
    try:
        verdict = kb.assess()
    except VaultError as exc:
        return KeyringProbe(None, False, str(exc), error=exc)
    if not verdict.usable:
        return KeyringProbe(
            verdict.name, False, verdict.reason, error=VaultUnavailable(verdict.reason)
        )
    try:
        has = kb.has_entries()
    except VaultError as exc:
        return KeyringProbe(verdict.name, False, str(exc), error=exc)
    return KeyringProbe(verdict.name, True, verdict.reason, has)


@dataclass(frozen=True)
class _Decision:
    active: BackendKind | None
    reason: str


def _decide(
    prefer: Prefer,
    file_info: FileVaultInfo,
    has_passphrase: bool,
    keyring_probe: KeyringProbe | None,
) -> _Decision:
    if prefer == "file":
        if not has_passphrase:
            return _Decision(None, "file vault requested but no passphrase source was given")
        return _Decision("file", "file vault requested")
    if prefer == "keyring":
        assert keyring_probe is not None
        if keyring_probe.usable:
            return _Decision("keyring", "OS keyring requested")
        return _Decision(None, f"OS keyring requested but unusable: {keyring_probe.detail}")
    if file_info.exists:
        return _Decision("file", f"a vault file already exists at {file_info.path}")
    assert keyring_probe is not None
    if keyring_probe.usable:
        return _Decision("keyring", f"the OS keyring is usable ({keyring_probe.detail})")
    if has_passphrase:
        return _Decision(
            "file", f"the OS keyring is unusable ({keyring_probe.detail}); using an encrypted file"
        )
    return _Decision(
        None,
        f"no safe place for secrets: the OS keyring is unusable ({keyring_probe.detail}), and "
        "the encrypted file vault needs a passphrase source (a prompt, or the name of an "
        "environment variable holding it). Secrets are never stored in plain text",
    )


def _check_prefer(prefer: str) -> Prefer:
    if prefer not in ("auto", "keyring", "file"):
        raise ValueError(f"prefer must be 'auto', 'keyring' or 'file', not {prefer!r}")
    return prefer  # type: ignore[return-value]


def open_vault(
    profile: str,
    data_dir: str | os.PathLike[str],
    prefer: Prefer = "auto",
    passphrase: PassphraseSource | None = None,
    *,
    passphrase_env: str | None = None,
    kdf: KdfParams = DEFAULT_KDF,
    keyring_backend: keyring.backend.KeyringBackend | None = None,
    keyring_timeout_s: float = DEFAULT_TIMEOUT_S,
    unlock: bool = True,
    strong_new_passphrase: bool = False,
) -> Vault:
    """Open the vault of `profile`, choosing its backend as the module docstring says.

    With `unlock=True` a file vault asks for its passphrase now, so a wrong passphrase surfaces
    at startup rather than at the first secret a deal needs. Raises VaultUnavailable when there
    is nowhere safe to keep secrets (NowhereSafe when a passphrase would have made a file
    vault possible), PassphraseMissing when the choice needs a passphrase it has no source for,
    VaultLocked for a keyring it cannot unlock, WrongPassphrase for a wrong passphrase, and
    WeakPassphrase when `strong_new_passphrase` holds a new file to `strength.RULE`.
    """
    profile = check_profile(profile)
    prefer = _check_prefer(prefer)
    path = vault_file_path(profile, data_dir)
    file_backend = FileVaultBackend(
        path, passphrase=passphrase, passphrase_env=passphrase_env, kdf=kdf,
        strong_new_passphrase=strong_new_passphrase,
    )
    file_info = file_backend.info()
    has_passphrase = file_backend.has_passphrase_source()
    kb = KeyringVaultBackend(profile, keyring_backend=keyring_backend, timeout_s=keyring_timeout_s)
    probe = None
    if prefer == "keyring" or (prefer == "auto" and not file_info.exists):
        probe = probe_keyring(kb)
    decision = _decide(prefer, file_info, has_passphrase, probe)
    if decision.active == "keyring":
        return Vault(kb, profile=profile)
    if decision.active == "file":
        if not has_passphrase:
            raise PassphraseMissing(
                f"{decision.reason}, and opening it needs a passphrase source (a prompt, or the "
                "name of an environment variable holding it)"
            )
        if unlock:
            file_backend.unlock()
        return Vault(file_backend, profile=profile)
    if prefer == "keyring" and probe is not None and probe.error is not None:
        # The keyring's own typed failure (locked, timed out, unavailable) tells the caller more.
        raise probe.error
    if prefer == "file":
        raise PassphraseMissing(decision.reason)
    if prefer == "auto":  # auto refuses only when there is no keyring and no passphrase
        raise NowhereSafe(decision.reason)
    raise VaultUnavailable(decision.reason)


@dataclass(frozen=True)
class DoctorReport:
    """Where a profile's secrets would live and why; printed by `tclk-tui vault doctor`."""

    profile: str
    prefer: str
    active: BackendKind | None
    reason: str
    keyring_backend: str | None
    keyring_usable: bool
    keyring_detail: str
    keyring_has_entries: bool | None
    file_path: str
    file_exists: bool
    file_detail: str
    passphrase_source: str
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["warnings"] = list(self.warnings)
        return data

    def lines(self) -> list[str]:
        entries = {True: "yes", False: "no", None: "unknown"}[self.keyring_has_entries]
        out = [
            f"profile          {self.profile}",
            f"preference       {self.prefer}",
            f"active backend   {self.active or 'NONE (refusing to store secrets)'}",
            f"why              {self.reason}",
            f"keyring backend  {self.keyring_backend or 'unknown'}",
            f"keyring usable   {'yes' if self.keyring_usable else 'no'}: {self.keyring_detail}",
            f"keyring entries  {entries}",
            f"vault file       {self.file_detail}",
            f"passphrase from  {self.passphrase_source}",
        ]
        out.extend(f"warning          {w}" for w in self.warnings)
        return out


def doctor(
    profile: str,
    data_dir: str | os.PathLike[str],
    prefer: Prefer = "auto",
    passphrase: PassphraseSource | None = None,
    *,
    passphrase_env: str | None = None,
    keyring_backend: keyring.backend.KeyringBackend | None = None,
    keyring_timeout_s: float = DEFAULT_TIMEOUT_S,
) -> DoctorReport:
    """Diagnose the vault of `profile` without asking for a passphrase or reading a secret."""
    profile = check_profile(profile)
    prefer = _check_prefer(prefer)
    file_backend = FileVaultBackend(
        vault_file_path(profile, data_dir), passphrase=passphrase, passphrase_env=passphrase_env
    )
    info = file_backend.info()
    kb = KeyringVaultBackend(profile, keyring_backend=keyring_backend, timeout_s=keyring_timeout_s)
    probe = probe_keyring(kb)
    decision = _decide(prefer, info, file_backend.has_passphrase_source(), probe)
    warnings: list[str] = []
    if info.exists and probe.has_entries:
        warnings.append(
            f"both a vault file and keyring entries (service '{kb.service}') exist for this "
            "profile; 'auto' uses the file and ignores the keyring entries"
        )
    if info.problem:
        warnings.append(f"vault file: {info.problem}")
    if passphrase is None and passphrase_env is not None:
        warnings.append(
            "the passphrase comes from an environment variable, which other processes of the "
            "same user can read; prefer a prompt for long sessions"
        )
    return DoctorReport(
        profile=profile,
        prefer=prefer,
        active=decision.active,
        reason=decision.reason,
        keyring_backend=probe.backend,
        keyring_usable=probe.usable,
        keyring_detail=probe.detail,
        keyring_has_entries=probe.has_entries,
        file_path=info.path,
        file_exists=info.exists,
        file_detail=info.describe(),
        passphrase_source=file_backend.passphrase_source_description(),
        warnings=tuple(warnings),
    )


__all__ = [
    "DoctorReport",
    "KeyringProbe",
    "Prefer",
    "check_profile",
    "doctor",
    "open_vault",
    "probe_keyring",
    "vault_file_path",
]
