"""No face can answer its own gate: a confirmation is checked against a request the engine
stated itself. A face on the control socket that sends back a made-up request with a code of
its own gets nothing: no secret, no seed, no claim; the engine's own request works, once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tclk_tui.daemon.client import DaemonClient
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import REFUSED, RpcError
from tclk_tui.engine.gates import GateRefused, GateRequest
from tests.engine.conftest import clock, pair  # noqa: F401 - the two-wallet fixtures
from tests.engine.helpers import Pair, arbitrated_deal, lock_as_payer, payer_offer_accepted


def _made_up(action: str, deal_id: str, contract: str | None, code: str) -> dict[str, Any]:
    """A request as a face could write it: allowed, no facts, its own code and token."""
    return {"type": "GateRequest", "action": action, "deal_id": deal_id, "contract": contract,
            "facts": [], "blockers": [], "late": False, "confirm_code": code,
            "created_ms": 0, "prompt": "", "token": "f" * 16}


async def test_a_face_on_the_socket_cannot_answer_its_own_gates(pair: Pair):  # noqa: F811
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    bob, folder = pair.bob, pair.data_dir / "bob"
    contract = deal_b.state.contract
    assert contract is not None
    code = contract[2:6]
    secret = bob.keeper.deal_secret(offer_id)
    assert secret

    def port(target: str, name: str, *args: Any, **extra: Any) -> Any:
        params = {"target": target, "name": name, "args": list(args),
                  "kwargs": extra.pop("kwargs", {}), **extra}
        with DaemonClient.for_profile(folder, timeout_s=60) as client:
            return client.call("port.call", params)

    async def refused(*call: Any, **extra: Any) -> str:
        with pytest.raises(RpcError) as info:
            await asyncio.to_thread(port, *call, **extra)
        assert info.value.code == REFUSED, info.value.message
        return info.value.message

    async with serve_wallet(bob, folder):
        why = await refused("wallet", "confirm_secret_reveal",
                            _made_up("secret-reveal", offer_id, contract, "abcd"), "abcd")
        assert "no request" in why and secret not in why
        await refused("wallet", "confirm_seed_backup",
                      _made_up("seed-backup", "", None, "backup"), "backup")
        await refused("deal", "confirm", _made_up("reveal", offer_id, contract, code),
                      deal=offer_id, kwargs={"typed_code": code})
        assert bob.deal(offer_id).state.status == "locked"  # nothing was claimed

        # The engine's own request, sent back as it came, works; and answers once.
        request = await asyncio.to_thread(port, "wallet", "request_secret_reveal", offer_id)
        shown = await asyncio.to_thread(port, "wallet", "confirm_secret_reveal", request, code)
        assert shown == secret
        await refused("wallet", "confirm_secret_reveal", request, code)
        # A request the engine stated, altered by the face, is not the one it stated.
        request = await asyncio.to_thread(port, "deal", "request_reveal", deal=offer_id)
        await refused("deal", "confirm", {**request, "blockers": [], "late": True},
                      deal=offer_id, kwargs={"typed_code": code, "acknowledge_late": True})
        assert bob.deal(offer_id).state.status == "locked"


async def test_an_arbiter_releases_only_on_a_request_it_stated(pair: Pair):  # noqa: F811
    carol = await pair.open("carol")
    offer_id, deal_a, _ = await arbitrated_deal(pair, [carol])
    desk = carol.referee
    await desk.refresh()
    contract = deal_a.state.contract
    assert contract is not None
    made_up = GateRequest(action="arbiter-release", deal_id=offer_id, contract=contract,
                          facts=(), confirm_code=contract[2:6], token="f" * 16)
    with pytest.raises(GateRefused, match="no request"):
        await desk.confirm_release(made_up, contract[2:6])
    assert desk.case(offer_id).decision != "released"
    request = desk.request_release(offer_id)
    released = await desk.confirm_release(request, contract[2:6])
    assert released.decision == "released"


async def test_a_face_on_the_socket_replaces_no_seed_without_the_engines_gate(
        pair: Pair, tmp_path):  # noqa: F811
    from tclk_tui.daemon.wire import METHOD_NOT_FOUND
    from tclk_tui.vault.backend import MemoryVaultBackend
    from tclk_tui.vault.seed import Vault

    bob, folder = pair.bob, pair.data_dir / "bob"
    kept = bob.vault.export_seed()
    other = Vault(MemoryVaultBackend(), profile="x")
    other.ensure_seed()

    def port(name: str, *args: Any) -> Any:
        with DaemonClient.for_profile(folder, timeout_s=60) as client:
            return client.call("port.call", {"target": "wallet", "name": name,
                                             "args": list(args)})

    async with serve_wallet(bob, folder):
        with pytest.raises(RpcError) as info:  # the old ungated door is gone
            await asyncio.to_thread(port, "restore_seed", other.export_seed())
        assert info.value.code == METHOD_NOT_FOUND
        with pytest.raises(RpcError) as info:
            await asyncio.to_thread(port, "confirm_seed_restore",
                                    _made_up("seed-restore", "", None, "replace"), "replace")
        assert info.value.code == REFUSED and "no request" in info.value.message
        with pytest.raises(RpcError) as info:  # the registry's kinds: a vault's refusal
            await asyncio.to_thread(port, "request_seed_restore", "tclk-seed1 not one")
        assert info.value.data["kind"] == "vault" and info.value.data["exception"] == \
            "VaultError"
        request = await asyncio.to_thread(port, "request_seed_restore", other.export_seed())
        assert request["action"] == "seed-restore" and request["blockers"]
        assert other.export_seed() not in repr(request)
        with pytest.raises(RpcError) as info:  # stated, but the seed is in use: kept
            await asyncio.to_thread(port, "confirm_seed_restore", request, "replace")
        assert "already uses its master seed" in info.value.message
    assert bob.vault.export_seed() == kept
