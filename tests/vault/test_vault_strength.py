"""A new vault file's passphrase meets one stated rule; an existing vault opens whatever made it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tclk_tui.vault import (
    FileVaultBackend,
    KdfParams,
    NowhereSafe,
    PassphraseMissing,
    VaultUnavailable,
    WeakPassphrase,
    open_vault,
)
from tclk_tui.vault.strength import LONG_LENGTH, MIN_LENGTH, RULE, passphrase_problem

KDF = KdfParams.minimum()


@pytest.mark.parametrize("weak", [
    "", "pw", "correct", "Sh0rt!", "abcdefghijklmnop", "ABCDEFGHIJKLMNOP", "123456789012345",
    "aAaAaAaAaAaAaAaA", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abababababababababababababab",
])
def test_short_one_kind_or_repetitive_passphrases_are_refused(weak):
    assert passphrase_problem(weak) == RULE


@pytest.mark.parametrize("strong", [
    "correct horse battery staple", "first secret", "Tr0ubadour-and-3", "horsebatterystaplecorrect",
    "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e", b"bytes are fine too",
])
def test_long_or_mixed_passphrases_pass(strong):
    assert passphrase_problem(strong) is None


def test_the_rule_is_a_sentence_an_operator_can_follow():
    assert f"at least {MIN_LENGTH} characters" in RULE
    assert f"at least {LONG_LENGTH} of any kind" in RULE


@given(st.text(max_size=40))
def test_the_refusal_never_quotes_the_passphrase(text):
    problem = passphrase_problem(text)
    assert problem is None or problem == RULE  # one fixed sentence, nothing of the input


def test_a_new_file_refuses_a_weak_passphrase_and_creates_nothing(tmp_path):
    path = tmp_path / "p.vault"
    backend = FileVaultBackend(path, passphrase=lambda: "pw", kdf=KDF,
                               strong_new_passphrase=True)
    with pytest.raises(WeakPassphrase, match="at least 12 characters"):
        backend.unlock()
    with pytest.raises(WeakPassphrase):
        backend.put("a", b"1")
    assert not path.exists()


def test_the_rule_names_the_variable_a_weak_passphrase_came_from(tmp_path, monkeypatch):
    monkeypatch.setenv("TCLK_TEST_WEAK", "short")
    with pytest.raises(WeakPassphrase, match="passphrase in TCLK_TEST_WEAK is too weak") as err:
        open_vault("p", tmp_path, "file", passphrase_env="TCLK_TEST_WEAK", kdf=KDF,
                   strong_new_passphrase=True)
    assert "short" not in str(err.value).replace("too weak", "")
    assert not (tmp_path / "p.vault").exists()


def test_an_existing_vault_opens_with_the_passphrase_that_made_it(tmp_path):
    path = tmp_path / "p.vault"
    FileVaultBackend(path, passphrase=lambda: "pw", kdf=KDF).put("a", b"1")
    again = FileVaultBackend(path, passphrase=lambda: "pw", strong_new_passphrase=True)
    assert again.get("a") == b"1"


def test_a_strong_passphrase_creates_the_vault(tmp_path):
    path = tmp_path / "p.vault"
    FileVaultBackend(path, passphrase=lambda: "correct horse battery", kdf=KDF,
                     strong_new_passphrase=True).put("a", b"1")
    assert path.exists()


def test_a_missing_passphrase_is_its_own_type(tmp_path):
    """So a face can add how it takes a passphrase; the vault does not know the faces."""
    import keyring.backends.fail

    with pytest.raises(NowhereSafe) as err:
        open_vault("p", tmp_path, keyring_backend=keyring.backends.fail.Keyring())
    assert isinstance(err.value, VaultUnavailable) and isinstance(err.value, PassphraseMissing)
    with pytest.raises(PassphraseMissing):
        open_vault("p", tmp_path, "file")
    FileVaultBackend(tmp_path / "q.vault", passphrase=lambda: "pw", kdf=KDF).put("a", b"1")
    with pytest.raises(PassphraseMissing, match="TCLK_TEST_UNSET"):
        FileVaultBackend(tmp_path / "q.vault", passphrase_env="TCLK_TEST_UNSET").get("a")
