"""Strangers cost nothing: a request from a DID no manifest names is counted and dropped, never
answered into a room the stranger chose (which would spend the wallet's writes and its new-room
budget), never journaled. An agent's DID added to a manifest while the wallet runs is served."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import httpx

from tclk_tui.agents.desk import AgentDesk
from tclk_tui.agents.room import RoomServer, encode, mailbox_of
from tclk_tui.agents.room_caller import RoomCaller
from tclk_tui.agents.service import serving_agents
from tclk_tui.rehearsal.server import VenueConfig
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.identity import Identity
from tests.agents.support import desk_for, manifest_text, write_manifest
from tests.engine.helpers import Clock, open_wallet

IP_HEADER = "x-test-client-ip"


@contextlib.asynccontextmanager
async def client_from(venue_url: str, ip: str, identity: Identity | None):
    """A venue client the venue counts as another address (its own rate-limit buckets)."""
    async with httpx.AsyncClient(headers={IP_HEADER: ip}, timeout=15) as http, \
            VenueClient(venue_url, identity, http=http) as client:
        yield client


async def test_strangers_spend_nothing_of_the_wallet(venue_factory, tmp_path: Path):
    config = VenueConfig(rate_limits=True, client_ip_header=IP_HEADER)
    venue = await venue_factory(config=config)
    clock = Clock(int(venue.venue.config.clock() * 1000))
    wallet = await open_wallet(venue.url, tmp_path, "alice", clock=clock)
    agent, stranger = Identity.generate(), Identity.generate()
    try:
        write_manifest(wallet, tmp_path, "buyer", manifest_text(extra=f'did = "{agent.did}"\n'))
        desk: AgentDesk = desk_for(wallet, tmp_path, clock)
        server = RoomServer(desk, wallet.client, mailbox_of(wallet.journal), wallet.journal)
        task = asyncio.create_task(server.run())
        rooms = [f"mb-p-stranger-{i}" for i in range(21)]
        async with client_from(venue.url, "10.0.0.66", stranger) as them, \
                client_from(venue.url, "10.0.0.7", agent) as mine:
            for i, room in enumerate(rooms):
                await them.post(server.mailbox, encode({
                    "jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "deals", "arguments": {},
                               "_meta": {"chat.technocore/reply": room}}}))
            # The agent the manifest names is answered, after every stranger line was read.
            async with RoomCaller(mine, "mb-p-agent-replies") as caller:
                answer = await caller.call_tool(server.mailbox, "deals", {}, timeout_s=20)
            assert answer["structuredContent"] == {"deals": []}
        await server.drain()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await server.close()
        assert [r for r in rooms if r in venue.venue.rooms] == []  # no room made for them
        assert all(wallet.journal.nonces.load(wallet.did, r) is None for r in rooms)
        assert [c.agent for c in wallet.journal.agents.calls()] == ["buyer"]
        assert server.strangers == 21
        # The wallet's own new-room budget is whole: its next deal room opens at once.
        posted = await wallet.client.post("mb-p-next-deal-room", "the next deal's room")
        assert posted.seq == 1
    finally:
        await wallet.close()


async def test_an_agent_added_while_the_wallet_runs_is_served_at_once(desks):
    me = Identity.generate()
    wallet = desks.pair.bob
    desks.manifest("bob", "seller", manifest_text(tools=("deals",)))  # no did yet
    async with serving_agents(wallet, publish=False), \
            VenueClient(desks.pair.venue.url, me) as client, \
            RoomCaller(client, "mb-p-late-agent") as caller:
        desks.manifest("bob", "seller", manifest_text(tools=("deals",),
                                                      extra=f'did = "{me.did}"\n'))
        async with asyncio.timeout(10):
            while (mailbox := wallet.journal.get_setting("agents.mailbox")) is None:
                await asyncio.sleep(0.02)
        answer = await caller.request(mailbox, "tools/call",
                                      {"name": "deals", "arguments": {}}, timeout_s=10)
    assert answer["result"]["structuredContent"] == {"deals": []}
    assert json.dumps(answer).count("isError") == 1
