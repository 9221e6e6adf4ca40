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


def test_deep_json_is_refused_even_when_a_library_raised_the_recursion_limit():
    """py_ecc raises the limit to 10**6; json.loads would then overflow the C stack."""
    import sys

    from tclk_tui.technocore.records import loads_strict

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(10**6)
    try:
        with pytest.raises(ValueError, match="nested too deeply"):
            loads_strict(DEEP)
        with pytest.raises(TclkError, match="nested too deeply"):
            parse_transcript_export("tclk-offers", DEEP)
    finally:
        sys.setrecursionlimit(old)


def test_brackets_inside_strings_do_not_count():
    from tclk_tui.protocol.jsondepth import too_deep

    assert not too_deep('["' + "[" * 5000 + '"]')
    assert too_deep("[" * 600 + "]" * 600)
    assert not too_deep("[" * 500 + "]" * 500)
