"""A board far larger than one request line may be, through the control socket: the CLI's JSON
and the attached app get all of it, as from an engine in their own process."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json

from tclk_tui import cli
from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.daemon.wire import MAX_LINE
from tclk_tui.engine.views import BoardQuery
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_table import OfferTable
from tests.daemon.big_board import inject_offers, inject_signed
from tests.daemon.conftest import PASS_ENV, DaemonProcess
from tests.daemon.test_daemon_attach import SIZE, settle

OFFERS = 3000  # some 2.5 MiB of board through the socket, 1.2 MiB of the CLI's JSON


def _cli_json(daemon: DaemonProcess, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["--home", str(daemon.home), "--profile", daemon.profile, "--venue",
                         daemon.venue_url, "--vault", "file", "--passphrase-env", PASS_ENV,
                         "--json", *args])
    return code, out.getvalue()


async def test_a_board_of_megabytes_reaches_the_cli_and_the_attached_app(venue, home):
    offers = inject_offers(venue.venue, OFFERS)
    ids = [offer_id for offer_id, _signer in offers]
    daemon = DaemonProcess(venue.url, home, "alice")
    await daemon.start()
    try:
        code, out = await asyncio.to_thread(_cli_json, daemon, "board")
        assert code == 0, out
        assert len(out) > MAX_LINE  # longer than any request line may be
        answer = json.loads(out)
        assert answer["total"] == OFFERS
        assert [row["offer"] for row in answer["offers"]] == ids  # soonest to expire first

        remote = RemoteDoor.attach(daemon.profile_dir)
        assert remote is not None
        remote.start()
        try:
            app = TclkApp(remote)
            async with app.run_test(size=SIZE) as pilot:
                table = app.query_one(OfferTable)
                await settle(pilot, lambda: table.row_count == OFFERS, "the whole board")
                assert [table.row_at(i).offer_id for i in range(OFFERS)] == ids
                assert remote.lost is None  # the events connection survived the large ones

                # A row that changes after this face holds it is fetched again, not reused.
                first, signer = offers[0]
                inject_signed(venue.venue, signer, encode_frame(
                    {"type": "cancel", "from": signer.did, "contract": first}), 2**40)
                await settle(pilot, lambda: table.row_at(0).status == "cancelled",
                             "the cancel, as an update of the row shown")
                everything = remote.board.query(BoardQuery(status=None))
                assert [row.offer_id for row in everything] == ids
                assert everything[0].status == "cancelled"
                app.board.requery_board()
                assert table.row_count == OFFERS - 1
            assert app.return_code in (None, 0)
        finally:
            await remote.close()
    finally:
        await daemon.stop()
