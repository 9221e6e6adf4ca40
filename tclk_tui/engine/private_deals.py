"""Deal traffic that travels sealed instead of on the board (SPEC §2 and §8).

A private accept is the accept frame signed exactly as it would be for `tclk-offers`
(`tclk-offers|<nonce>|<line>`), delivered sealed to the offerer's mailbox instead of posted. The
record both sides fold carries that signature and, as its venue metadata, the seq and time of the
sealed line that carried it, so the contract id, the deal room and the fold are the same as for
a public accept; the offline proof of it is the evidence bundle, which keeps the record.

Letters handled here (each a JSON body, refused with a reason when it does not check out):
`accept` (a private accept of our offer), `secret` (the arbiter releases a deal's secret to us,
the payee), `share` (a juror releases its share to us, the payee), `deal-share` (a hash-lock
dealer hands a juror its share).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import Notice, NoticeLevel
from tclk_tui.engine.follow_policy import mailbox_want
from tclk_tui.engine.mailbox import Letter
from tclk_tui.engine.read_scheduler import Want
from tclk_tui.protocol.arbitration import combine_secret, combine_witness
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.hexutil import HEX32_RE
from tclk_tui.protocol.locks import point_lock_from_witness, verify_secret
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.panel import Panel, panel_of
from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record
from tclk_tui.technocore.budget import traffic
from tclk_tui.technocore.errors import VenueError

if TYPE_CHECKING:
    from tclk_tui.engine.deal import DealSession
    from tclk_tui.engine.wallet import Wallet

SETTING_PRIVATE_ACCEPT = "private-accept:"
SETTING_HELD_SHARE = "held-share:"
ADVERTISE_EVERY_S = 600.0


def _note(wallet: Wallet, level: NoticeLevel, text: str, deal_id: str | None = None) -> None:
    wallet.events.publish(Notice(level, text, deal_id=deal_id))


# -- private accept ---------------------------------------------------------------------------


async def deliver_accept(wallet: Wallet, offer: dict, line: str) -> TranscriptRecord:
    """Sign the accept for the board without posting it there; seal it to the offerer."""
    nonces = wallet.client.nonces
    if nonces is None:
        raise EngineError("a private accept is signed: this wallet's venue client has no identity")
    nonce = nonces.next(OFFER_ROOM)
    sig = wallet.identity.sign(OFFER_ROOM, nonce, line)
    carrier = await wallet.mail.send(offer["from"], {
        "kind": "accept", "nonce": str(nonce), "sig": sig, "line": line})
    record = TranscriptRecord(room=OFFER_ROOM, seq=carrier.seq,
                              timestamp_ms=carrier.timestamp_ms, sender=wallet.did,
                              nonce=str(nonce), signature=sig, line=line)
    _adopt_private_accept(wallet, record)
    return record


def _adopt_private_accept(wallet: Wallet, record: TranscriptRecord) -> bool:
    """Fold a private accept into the deal and the board, and keep it in the journal."""
    frame = try_decode_frame(record.line)
    if frame is None or frame["type"] != "accept":
        return False
    deal = wallet.book.get(frame["ref"])
    if deal is None:
        return False
    wallet.journal.set_object_setting(SETTING_PRIVATE_ACCEPT + frame["ref"], asdict(record))
    changed = wallet.board.ingest([record], now_ms=wallet.now_ms())
    if changed.added or changed.updated:
        wallet.events.publish(changed)
    if deal.ingest_board(record):
        wallet.book.sync_row(deal)
        if wallet.rooms.following:
            wallet.rooms.follow(deal.room)
    return True


def restore(wallet: Wallet) -> None:
    """Put the private accepts journaled earlier back into their deals (after a restart)."""
    for key, value in wallet.journal.settings().items():
        if not key.startswith(SETTING_PRIVATE_ACCEPT):
            continue
        try:
            record = TranscriptRecord(**json.loads(value))
        except (TypeError, ValueError):
            continue
        _adopt_private_accept(wallet, record)


def _letter_accept(wallet: Wallet, letter: Letter) -> str | None:
    body = letter.body
    if not all(isinstance(body.get(k), str) for k in ("nonce", "sig", "line")):
        return "a private accept without nonce, sig and line"
    record = TranscriptRecord(room=OFFER_ROOM, seq=letter.seq, timestamp_ms=letter.ts_ms,
                              sender=letter.sender, nonce=body["nonce"],
                              signature=body["sig"], line=body["line"])
    verdict = verify_transcript_record(record)
    if not verdict.ok:
        return f"a private accept whose signature does not verify: {verdict.reason}"
    frame = try_decode_frame(record.line)
    if frame is None or frame["type"] != "accept" or frame["from"] != letter.sender:
        return "a private accept that is not its sender's accept frame"
    deal = wallet.book.get(frame["ref"])
    if deal is None or deal.offer["from"] != wallet.did:
        return "a private accept for an offer that is not ours"
    _adopt_private_accept(wallet, record)
    if deal.state.contract != frame["contract"]:
        return "the private accept did not open the contract (another accept came first, or "\
            "its terms do not match the offer)"
    _note(wallet, "info", f"offer {deal.deal_id[:10]}…: accepted privately", deal.deal_id)
    return None


# -- secrets released to the payee -----------------------------------------------------------


def _payee_deal(wallet: Wallet, body: dict) -> tuple[DealSession, Panel]:
    offer_id = body.get("offer")
    if not isinstance(offer_id, str):
        raise EngineError("names no offer")
    deal = wallet.book.get(offer_id)
    if deal is None or deal.role != "payee" or deal.observer:
        raise EngineError("names no deal where this wallet is the payee")
    if deal.state.contract is None or body.get("contract") != deal.state.contract:
        raise EngineError("names another contract than the deal's")
    try:
        panel = panel_of(deal.offer)
    except TclkError as exc:
        raise EngineError(str(exc)) from None
    if panel is None:
        raise EngineError("is for a deal that names no arbiter or committee")
    return deal, panel


def _letter_secret(wallet: Wallet, letter: Letter) -> str | None:
    try:
        deal, panel = _payee_deal(wallet, letter.body)
    except EngineError as exc:
        return f"a released secret that {exc}"
    if panel.kind != "arbiter" or letter.sender != panel.dealer:
        return "a released secret from someone who is not the deal's arbiter"
    secret = letter.body.get("secret")
    if not isinstance(secret, str) or HEX32_RE.fullmatch(secret) is None or not verify_secret(
            deal.offer["lock"], deal.state.statement, secret):
        return "a released secret that does not open the deal's statement"
    wallet.keeper.receive_secret(deal.deal_id, secret)
    _note(wallet, "info", f"deal {deal.deal_id[:10]}…: the arbiter released the secret; it "
          "opens the statement (reveal through the gate to claim)", deal.deal_id)
    deal._announce(False)
    return None


def _share_opens(deal: DealSession, panel: Panel, juror: int, share: str,
                 lines: dict[str, str]) -> bool:
    """Does a point-lock share match the juror's published share point Y_i?"""
    if deal.offer["lock"] != "point":
        return True  # a hash-lock share has nothing public to check until all are in
    published = lines.get(panel.members[juror])
    try:
        return published is not None and point_lock_from_witness(share).statement == published
    except (TclkError, ValueError):
        return False


def _letter_share(wallet: Wallet, letter: Letter) -> str | None:
    try:
        deal, panel = _payee_deal(wallet, letter.body)
    except EngineError as exc:
        return f"a juror's share that {exc}"
    if panel.kind != "committee":
        return "a juror's share for a deal with a single arbiter"
    juror = panel.index_of(letter.sender)
    if juror is None:
        return "a share from someone who is not on the deal's panel"
    share = letter.body.get("share")
    if not isinstance(share, str) or HEX32_RE.fullmatch(share) is None:
        return "a share that is not 32 bytes of hex"
    if not _share_opens(deal, panel, juror, share, wallet.board.panel_lines(deal.deal_id)):
        return (f"juror {juror + 1}'s share does not match the share point it published, so "
                "it would not combine to the statement")
    wallet.keeper.store_share(deal.deal_id, juror, share)
    progress = committee_progress(wallet, deal.deal_id)
    if progress["missing"]:
        _note(wallet, "info", f"deal {deal.deal_id[:10]}…: share {juror + 1} of "
              f"{len(panel.members)} in; waiting for {len(progress['missing'])} more",
              deal.deal_id)
    deal._announce(False)
    return None


def committee_progress(wallet: Wallet, deal_id: str) -> dict:
    """Which jurors' shares are in, which are missing, and whether they combined."""
    deal = wallet.deal(deal_id)
    panel = panel_of(deal.offer)
    if panel is None or panel.kind != "committee":
        raise EngineError("this deal names no committee")
    shares = wallet.keeper.shares(deal.deal_id)
    have = [panel.members[i] for i in sorted(shares) if i < len(panel.members)]
    missing = [m for i, m in enumerate(panel.members) if i not in shares]
    opened = wallet.keeper.received_secret(deal.deal_id) is not None
    problem = ""
    if not missing and not opened and deal.state.statement:
        values = [shares[i] for i in range(len(panel.members))]
        try:
            combined = (combine_witness(values) if deal.offer["lock"] == "point"
                        else combine_secret(values))
        except TclkError as exc:
            combined, problem = None, str(exc)
        if combined and verify_secret(deal.offer["lock"], deal.state.statement, combined):
            wallet.keeper.receive_secret(deal.deal_id, combined)
            opened = True
            _note(wallet, "info", f"deal {deal.deal_id[:10]}…: all {len(panel.members)} "
                  "shares in; they combine to the secret (reveal through the gate to claim)",
                  deal.deal_id)
        elif not problem:
            problem = "the shares are all in but do not combine to the statement"
    return {"jurors": list(panel.members), "have": have, "missing": missing,
            "opened": opened, "problem": problem}


def committee_overview(wallet: Wallet) -> list[dict]:
    """Every deal of ours as payee whose offer names a committee, with its share progress."""
    out = []
    for deal in wallet.book:
        try:
            panel = panel_of(deal.offer)
        except TclkError:
            continue
        if panel is None or panel.kind != "committee" or deal.role != "payee" or deal.observer:
            continue
        out.append({"deal": deal.deal_id, "status": deal.state.status,
                    **committee_progress(wallet, deal.deal_id)})
    return out


def _letter_deal_share(wallet: Wallet, letter: Letter) -> str | None:
    """A hash-lock dealer hands this juror its share: keep it in the vault until release."""
    offer_id, share = letter.body.get("offer"), letter.body.get("share")
    if not isinstance(offer_id, str) or (offer := wallet.board.offer_frame(offer_id)) is None:
        return "a dealt share for an offer not on the board"
    try:
        panel = panel_of(offer)
    except TclkError as exc:
        return f"a dealt share for an offer with a malformed panel: {exc}"
    if panel is None or panel.kind != "committee" or letter.sender != panel.dealer:
        return "a dealt share from someone who is not the offer's dealer"
    if panel.index_of(wallet.did) is None:
        return "a dealt share for a panel this wallet is not on"
    if not isinstance(share, str) or HEX32_RE.fullmatch(share) is None:
        return "a dealt share that is not 32 bytes of hex"
    wallet.vault.backend.put(SETTING_HELD_SHARE + offer_id, bytes.fromhex(share[2:]))
    return None


# Each handler returns the reason it refused a letter, or None once it acted on it.
HANDLERS: dict[str, Callable[[Wallet, Letter], str | None]] = {
    "accept": _letter_accept, "secret": _letter_secret, "share": _letter_share,
    "deal-share": _letter_deal_share}


async def poll_letters(wallet: Wallet) -> int:
    """Read the mailbox and private rooms once and act on every letter; returns how many."""
    letters = await wallet.mail.poll()
    for letter in letters:
        handler = HANDLERS.get(letter.body.get("kind", ""))
        reason: str | None
        if handler is None:
            reason = f"a private message of unknown kind {str(letter.body.get('kind'))[:20]!r}"
        else:
            try:
                reason = handler(wallet, letter)
            except (EngineError, TclkError, ValueError, KeyError, TypeError) as exc:
                reason = f"a private message that could not be handled: {exc}"
        if reason:
            _note(wallet, "warning", f"from {letter.sender[:16]}…: refused {reason}")
    return len(letters)


def follow_mail(wallet: Wallet) -> None:
    """Hand our mailboxes and open sealed channels to the read scheduler: a new line in one
    of them opens the letters (`poll_letters`); a channel whose message is read is dropped."""
    mail, reads = wallet.mail, wallet.reads
    mailboxes = set(mail.rooms_to_follow()[:mail.generation])

    async def on_events(events: list) -> None:
        if any(getattr(event, "records", None) for event in events):
            await poll_letters(wallet)
            follow_mail(wallet)

    def mailbox(quiet_s: float) -> Want:
        return mailbox_want(wallet.book)

    def channel(room: str) -> Callable[[float], Want]:
        # A channel carries one message, written right after its seal: read it eagerly
        # until the message is complete, then never again.
        return lambda quiet_s: Want.HOT if mail.channel_open(room) else Want.DROP

    for room in mail.rooms_to_follow():
        reads.add(room, handler=on_events, want=mailbox if room in mailboxes else channel(room),
                  since=mail.cursor(room), suppress_echoes=True)


async def run(wallet: Wallet) -> None:
    """Follow the mail, and keep the DID note current (an optional write, paced as such)."""
    follow_mail(wallet)
    while not wallet.background.closed:
        try:
            with traffic("optional"):
                await wallet.advertise()
        except (VenueError, EngineError) as exc:
            _note(wallet, "warning", f"private mail: {exc}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never die silently
            _note(wallet, "error", f"private mail failed: {exc}")
        await asyncio.sleep(ADVERTISE_EVERY_S)
