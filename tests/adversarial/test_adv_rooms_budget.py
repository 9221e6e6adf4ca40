"""A granted agent cannot spend the wallet's venue budgets: the replies it asks for go into
rooms it names, and each new room counts against the wallet's 20 new rooms a day."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from tclk_tui.agents.room import RoomServer, encode, mailbox_of
from tclk_tui.agents.room_caller import RoomCaller
from tclk_tui.rehearsal.server import VenueConfig
from tclk_tui.store.agent_ledger import NEW_REPLY_ROOMS_A_DAY
from tclk_tui.technocore.identity import Identity
from tests.agents.support import desk_for, manifest_text, write_manifest
from tests.agents.test_agents_strangers import IP_HEADER, client_from
from tests.engine.helpers import Clock, open_wallet


async def test_an_agent_naming_a_new_reply_room_each_call_leaves_the_wallet_its_rooms(
        venue_factory, tmp_path: Path):
    config = VenueConfig(rate_limits=True, client_ip_header=IP_HEADER)
    venue = await venue_factory(config=config)
    clock = Clock(int(venue.venue.config.clock() * 1000))
    wallet = await open_wallet(venue.url, tmp_path, "alice", clock=clock)
    agent = Identity.generate()
    try:
        write_manifest(wallet, tmp_path, "buyer", manifest_text(extra=f'did = "{agent.did}"\n'))
        server = RoomServer(desk_for(wallet, tmp_path, clock), wallet.client,
                            mailbox_of(wallet.journal), wallet.journal)
        task = asyncio.create_task(server.run())
        rooms = [f"mb-p-greedy-{i}" for i in range(21)]
        async with client_from(venue.url, "10.0.0.7", agent) as mine:
            for i, room in enumerate(rooms):
                await mine.post(server.mailbox, encode({
                    "jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "deals", "arguments": {},
                               "_meta": {"chat.technocore/reply": room}}}))
            # Into a room it was answered in before, it is still answered.
            async with RoomCaller(mine, rooms[0]) as caller:
                answer = await caller.call_tool(server.mailbox, "deals", {}, timeout_s=20)
            assert answer["structuredContent"] == {"deals": []}
        await server.drain()
        answered = [r for r in rooms if r in venue.venue.rooms]
        assert answered == rooms[:NEW_REPLY_ROOMS_A_DAY], answered
        assert server.room_refusals == len(rooms) - NEW_REPLY_ROOMS_A_DAY
        calls = [c.tool for c in wallet.journal.agents.calls()]
        assert len(calls) == NEW_REPLY_ROOMS_A_DAY + 1, calls  # the others never ran
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await server.close()
        # The wallet's own new-room budget still opens its next deal room.
        posted = await wallet.client.post("mb-p-next-deal-room", "the next deal's room")
        assert posted.seq == 1
    finally:
        await wallet.close()
