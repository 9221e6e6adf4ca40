"""Deeply nested JSON where a file or a keyring should hold a flat one: the typed error, never
RecursionError."""

from __future__ import annotations

import pytest

from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.transcript import parse_transcript_export
from tclk_tui.vault import KeyringVaultBackend, VaultCorrupt
from tclk_tui.vault.file_format import decode_entries
from tclk_tui.vault.keyring_backend import INDEX_ENTRY
from tests.vault.inproc_keyrings import DictKeyring

DEEP = "[" * 200_000 + "]" * 200_000


def test_a_deeply_nested_keyring_index_is_corrupt_not_a_recursion_error():
    kr = DictKeyring()
    kr.entries[("tclk-tui:alice", INDEX_ENTRY)] = DEEP
    with pytest.raises(VaultCorrupt, match="index"):
        KeyringVaultBackend("alice", keyring_backend=kr, timeout_s=5.0).names()


def test_a_deeply_nested_export_line_is_a_tclk_error():
    with pytest.raises(TclkError, match="line 2 is nested too deeply"):
        parse_transcript_export("tclk-offers", "\n" + DEEP + "\n")


def test_deeply_nested_vault_contents_are_a_problem_not_a_crash():
    entries, problem = decode_entries(DEEP.encode())
    assert entries is None and problem
