"""The contract every vault backend meets, as one base class its tests inherit (keyring's own
habit, `keyring/testing/backend.py`).

A backend's test module subclasses `VaultBackendContract` and provides the `backend` fixture
(a fresh, empty store) and `reopen(backend)` (a second object over the same store, as a new
process would open it). Every test here then runs against that backend: a new backend is done
when its subclass passes. The class name does not start with `Test`, so pytest collects it only
through its subclasses.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tclk_tui.vault import InvalidEntryName, Vault, VaultBackend
from tclk_tui.vault.secret import SecretValue

SECRET = bytes.fromhex("c3" * 32)
EVERY_BYTE = bytes(range(256))


class VaultBackendContract:
    """Named secret blobs: `put` durable on return, `get` of a missing name is None, `delete` of
    a missing name a no-op, `names()` lists every stored name (sorted) and nothing of the
    backend's own bookkeeping, and no name or value is echoed where it does not belong."""

    @pytest.fixture
    def backend(self) -> Any:  # pragma: no cover - every subclass provides one
        raise NotImplementedError

    def reopen(self, backend: Any) -> VaultBackend:  # pragma: no cover
        raise NotImplementedError

    # -- the protocol ---------------------------------------------------------------------------

    def test_it_is_a_vault_backend(self, backend: Any) -> None:
        assert isinstance(backend, VaultBackend)

    def test_an_empty_store_has_no_names_and_no_values(self, backend: Any) -> None:
        assert backend.names() == []
        assert backend.get("master-seed") is None

    def test_a_value_comes_back_byte_for_byte(self, backend: Any) -> None:
        backend.put("master-seed", SECRET)
        backend.put("deal/0xab/1/preimage", EVERY_BYTE)
        backend.put("empty", b"")
        assert backend.get("master-seed") == SECRET
        assert backend.get("deal/0xab/1/preimage") == EVERY_BYTE
        assert backend.get("empty") == b""

    @pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, SecretValue])
    def test_a_value_may_be_given_in_any_bytes_like_wrapper(self, backend: Any, wrap) -> None:
        backend.put("k", wrap(SECRET))
        value = backend.get("k")
        assert type(value) is bytes and value == SECRET

    def test_a_str_value_is_refused_and_nothing_is_stored(self, backend: Any) -> None:
        with pytest.raises(TypeError):
            backend.put("k", SECRET.hex())
        assert backend.get("k") is None and backend.names() == []

    def test_a_put_replaces_the_value(self, backend: Any) -> None:
        backend.put("k", b"first")
        backend.put("k", b"second")
        assert backend.get("k") == b"second"
        assert backend.names() == ["k"]

    def test_delete_removes_the_value_and_its_name_and_deleting_nothing_is_a_no_op(
            self, backend: Any) -> None:
        backend.put("a", b"1")
        backend.put("b", b"2")
        backend.delete("a")
        backend.delete("a")
        backend.delete("never-there")
        assert backend.get("a") is None
        assert backend.names() == ["b"]

    def test_names_are_sorted_and_hold_no_bookkeeping(self, backend: Any) -> None:
        for name in ("zeta", "alpha", "deal/x/1/preimage", "Mid:1"):
            backend.put(name, b"v")
        names = backend.names()
        assert names == sorted(names) == sorted(["zeta", "alpha", "deal/x/1/preimage", "Mid:1"])
        assert not any(name.startswith("__") for name in names)

    @pytest.mark.parametrize("name", ["", "__index__", "a b", "a\nb", "\x1b[2J", "x" * 201,
                                      "../etc", 7, None])
    def test_an_unlawful_name_is_refused_everywhere_without_being_echoed(
            self, backend: Any, name: object) -> None:
        for call in (lambda: backend.put(name, b"v"), lambda: backend.get(name),
                     lambda: backend.delete(name)):
            with pytest.raises(InvalidEntryName) as info:
                call()
            if isinstance(name, str) and len(name) > 1:
                assert name not in str(info.value)
        assert backend.names() == []

    def test_a_put_is_durable_for_the_next_opener(self, backend: Any) -> None:
        backend.put("master-seed", SECRET)
        backend.put("gone", b"x")
        backend.delete("gone")
        again = self.reopen(backend)
        assert again.get("master-seed") == SECRET
        assert again.names() == ["master-seed"]

    def test_no_value_reaches_the_repr_or_the_description(self, backend: Any) -> None:
        backend.put("master-seed", SECRET)
        shown = repr(backend) + str(backend) + backend.describe()
        assert SECRET.hex() not in shown and "c3c3c3" not in shown
        assert "master-seed" not in repr(backend)

    def test_concurrent_writers_lose_no_name(self, backend: Any) -> None:
        errors: list[BaseException] = []

        def write(prefix: str) -> None:
            try:
                for i in range(8):
                    backend.put(f"{prefix}/{i}", f"{prefix}{i}".encode())
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(p,)) for p in ("a", "b", "c")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert backend.names() == sorted(f"{p}/{i}" for p in "abc" for i in range(8))
        assert backend.get("b/5") == b"b5"

    # -- the vault on top -----------------------------------------------------------------------

    def test_a_vault_over_it_derives_the_same_secrets_after_a_reopen(self, backend: Any) -> None:
        vault = Vault(backend)
        vault.create_seed()
        preimage = vault.derive_preimage("0x" + "22" * 32, "0011223344556677")
        again = Vault(self.reopen(backend))
        assert again.has_seed()
        assert again.derive_preimage("0x" + "22" * 32, "0011223344556677") == preimage
