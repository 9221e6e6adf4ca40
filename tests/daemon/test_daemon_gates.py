"""No face can answer its own gate. A face on the control socket reaches the engine only by the
registry's commands (`door.run`, `door.state`) and read-only views (`door.view`): it sends
params, never a request object, so a made-up request has nowhere to go; a confirmation is the
command's own param, which the engine checks against the request it states itself."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tclk_tui.daemon.client import DaemonClient
from tclk_tui.daemon.service import serve_wallet
from tclk_tui.daemon.wire import INVALID_PARAMS, METHOD_NOT_FOUND, REFUSED, RpcError
from tclk_tui.engine.gates import GateRefused, GateRequest
from tests.engine.conftest import clock, pair  # noqa: F401 - the two-wallet fixtures
from tests.engine.helpers import Pair, arbitrated_deal, lock_as_payer, payer_offer_accepted


def _made_up(action: str, deal_id: str, contract: str | None, code: str) -> dict[str, Any]:
    """A request as a face could write it: allowed, no facts, its own code and token."""
    return {"type": "GateRequest", "action": action, "deal_id": deal_id, "contract": contract,
            "facts": [], "blockers": [], "late": False, "confirm_code": code,
            "created_ms": 0, "prompt": "", "token": "f" * 16}


def _call(folder: Any, method: str, params: dict[str, Any]) -> Any:
    with DaemonClient.for_profile(folder, timeout_s=60) as client:
        return client.call(method, params)


async def _refused(folder: Any, method: str, params: dict[str, Any]) -> RpcError:
    with pytest.raises(RpcError) as info:
        await asyncio.to_thread(_call, folder, method, params)
    return info.value


async def test_a_face_on_the_socket_cannot_answer_its_own_gates(pair: Pair):  # noqa: F811
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    bob, folder = pair.bob, pair.data_dir / "bob"
    contract = deal_b.state.contract
    assert contract is not None
    code = contract[2:6]
    secret = bob.keeper.deal_secret(offer_id)
    assert secret

    async with serve_wallet(bob, folder):
        # The old ports are gone, and no view confirms anything.
        for method, params in (
                ("port.call", {"target": "wallet", "name": "confirm_secret_reveal",
                               "args": [_made_up("secret-reveal", offer_id, contract, code),
                                        code]}),
                ("door.view", {"name": "confirm_secret_reveal",
                               "args": [_made_up("secret-reveal", offer_id, contract, code)]}),
                ("door.view", {"name": "deal", "args": [offer_id]})):
            assert (await _refused(folder, method, params)).code == METHOD_NOT_FOUND
        # A request sent along is a param no command takes.
        error = await _refused(folder, "door.run", {"name": "reveal", "params": {
            "deal": offer_id, "confirm": code,
            "request": _made_up("reveal", offer_id, contract, code)}})
        assert error.code == INVALID_PARAMS and error.data["kind"] == "usage"
        # A wrong code shows nothing; the engine's own request, stated again, shows the
        # secret to the one who typed its code.
        error = await _refused(folder, "door.run", {"name": "secret-reveal", "params": {
            "deal": offer_id, "confirm": "ffff" if code != "ffff" else "eeee"}})
        assert error.data.get("wrong_code") and secret not in repr(error.data)
        stated = await asyncio.to_thread(_call, folder, "door.state", {
            "name": "secret-reveal", "params": {"deal": offer_id}})
        assert stated["type"] == "GateRequest" and secret not in repr(stated)
        shown = await asyncio.to_thread(_call, folder, "door.run", {
            "name": "secret-reveal", "params": {"deal": offer_id, "confirm": code}})
        assert shown == {"deal": offer_id, "secret": secret}
        assert bob.deal(offer_id).state.status == "locked"  # nothing was claimed


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
    from tclk_tui.vault.backend import MemoryVaultBackend
    from tclk_tui.vault.seed import Vault

    bob, folder = pair.bob, pair.data_dir / "bob"
    kept = bob.vault.export_seed()
    other = Vault(MemoryVaultBackend(), profile="x")
    other.ensure_seed()

    async with serve_wallet(bob, folder):
        for name in ("restore_seed", "confirm_seed_restore", "request_seed_restore"):
            error = await _refused(folder, "door.view", {"name": name,
                                                         "args": [other.export_seed()]})
            assert error.code == METHOD_NOT_FOUND
        error = await _refused(folder, "door.state", {  # the registry's kinds: the vault's
            "name": "seed-restore", "params": {"seed": "tclk-seed1 not one"}})
        assert error.data["kind"] == "vault"
        request = await asyncio.to_thread(_call, folder, "door.state", {
            "name": "seed-restore", "params": {"seed": other.export_seed()}})
        assert request["action"] == "seed-restore" and request["blockers"]
        assert other.export_seed() not in repr(request)
        error = await _refused(folder, "door.run", {  # stated, but the seed is in use: kept
            "name": "seed-restore", "params": {"seed": other.export_seed(), "replace": True}})
        assert error.code == REFUSED and "already uses its master seed" in error.message
    assert bob.vault.export_seed() == kept
