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
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from tclk_tui.engine.errors import EngineError, JournalUnwritable, journaling
from tclk_tui.engine.events import Notice, NoticeLevel
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.sync.follow_policy import mailbox_want
from tclk_tui.engine.sync.mailbox import Letter
from tclk_tui.engine.sync.read_scheduler import Want
from tclk_tui.protocol.arbitration import combine_secret, combine_witness
from tclk_tui.protocol.builders import make_cancel
from tclk_tui.protocol.codec import encode_frame, try_decode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.hexutil import HEX32_RE
from tclk_tui.protocol.locks import point_lock_from_witness, verify_secret
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.panel import Panel, panel_of
from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record
from tclk_tui.technocore.budget import traffic
from tclk_tui.technocore.e2e import E2EError, decrypt_line, encrypt_line
from tclk_tui.technocore.errors import VenueError
from tclk_tui.vault.seed import derive_bytes

if TYPE_CHECKING:
    from tclk_tui.engine.deal import DealSession
    from tclk_tui.engine.wallet import Wallet
    from tclk_tui.store.settings import SettingStore
    from tclk_tui.vault.seed import Vault

SETTING_PRIVATE_ACCEPT = "private-accept:"
SETTING_HELD_SHARE = "held-share:"  # in the vault: the dealer's own share (its mint)
SETTING_SEALED_SHARE = "held-share-sealed:"  # in the journal: a share dealt to us, sealed
SHARE_KEY_DOMAIN = "tclk-tui/v1/held-share"
POLL_S = 60.0  # the catch-up poll; new lines in our mailboxes are followed as they land
ADVERTISE_EVERY_S = 600.0


def _note(wallet: Wallet, level: NoticeLevel, text: str, deal_id: str | None = None) -> None:
    wallet.events.publish(Notice(level, text, deal_id=deal_id))


# -- private accept ---------------------------------------------------------------------------


class PrivateAccept:
    """An accept signed for the board (`tclk-offers|<nonce>|<line>`) and sealed to the
    offerer's mailbox instead of posted: the letter is journaled with the deal first."""

    def __init__(self, wallet: Wallet) -> None:
        self._wallet = wallet

    def sign(self, line: str) -> dict:
        nonces = self._wallet.client.nonces
        if nonces is None:
            raise EngineError("a private accept is signed: this wallet's venue client has no "
                              "identity")
        nonce = nonces.next(OFFER_ROOM)
        return {"kind": "accept", "nonce": str(nonce), "line": line,
                "sig": self._wallet.identity.sign(OFFER_ROOM, nonce, line)}

    async def send(self, offer: Mapping[str, Any], letter: dict) -> TranscriptRecord:
        return await send_accept(self._wallet, offer["from"], letter)


async def send_accept(wallet: Wallet, offerer: str, letter: dict) -> TranscriptRecord:
    """Seal a signed accept letter to the offerer and bind our deal to it."""
    carrier = await wallet.mail.send(offerer, letter)
    record = TranscriptRecord(room=OFFER_ROOM, seq=carrier.seq,
                              timestamp_ms=carrier.timestamp_ms, sender=wallet.did,
                              nonce=letter["nonce"], signature=letter["sig"], line=letter["line"])
    _adopt_private_accept(wallet, record)
    return record


async def send_pending(wallet: Wallet) -> None:
    """After a restart: a private accept journaled but not known to have reached the offerer
    is sealed again, the very same signed letter (the offerer binds it once)."""
    for deal in wallet.book:
        if (deal.accept_private and deal.offer["from"] == wallet.did
                and deal.state.status == "accepted"):
            await _confirm_bound(wallet, deal)  # a crash may have come between
            continue
        letter = deal.letter
        if (letter is None or deal.accept_record is not None
                or deal.state.status != "proposed" or deal.offer["from"] == wallet.did):
            continue
        try:
            await send_accept(wallet, deal.offer["from"], letter)
        except (EngineError, VenueError) as exc:
            _note(wallet, "warning", f"offer {deal.deal_id[:10]}…: the private accept kept "
                  f"from before the restart could not be sent again: {exc}", deal.deal_id)
            continue
        _note(wallet, "info", f"offer {deal.deal_id[:10]}…: the private accept kept from before "
              "the restart was sent again", deal.deal_id)


def _adopt_private_accept(wallet: Wallet, record: TranscriptRecord, *,
                          bound_before_board: bool = False) -> str | None:
    """Offer a private accept to its deal: it binds the deal only if no accept has (the deal
    journals it then); None once it is the deal's accept, else why it was refused. A refused
    one is journaled nowhere."""
    frame = try_decode_frame(record.line)
    if frame is None or frame["type"] != "accept":
        return "not an accept frame"
    deal = wallet.book.get(frame["ref"])
    if deal is None:
        return "names no deal of this wallet"
    bound_before = deal.accept_record is not None
    why = deal.ingest_private(record, bound_before_board=bound_before_board)
    if why is not None:
        return why
    _show_on_board(wallet, deal.offer_record, record)
    if not bound_before:
        wallet.book.sync_row(deal)
        if wallet.rooms.following:
            wallet.rooms.follow(deal.room)
    return None


def _show_on_board(wallet: Wallet, offer: TranscriptRecord, accept: TranscriptRecord) -> None:
    """This wallet's board shows the offer as accepted (others see it withdrawn)."""
    changed = wallet.board.ingest([offer, accept], now_ms=wallet.now_ms())
    if changed.added or changed.updated:
        wallet.events.publish(changed)


def restore(wallet: Wallet) -> None:
    """Put the private accepts of restored deals back on this wallet's board (after a
    restart, before the board's journal is replayed: the offer's withdrawal comes after)."""
    for deal in wallet.book:
        if deal.accept_private and deal.accept_record is not None:
            _show_on_board(wallet, deal.offer_record, deal.accept_record)


def restore_legacy(wallet: Wallet) -> None:
    """Private accepts journaled as settings, before a deal's row kept its accept: each
    binds its deal only if the board's journal bound none first."""
    for key, value in wallet.journal.settings.all().items():
        if not key.startswith(SETTING_PRIVATE_ACCEPT):
            continue
        try:
            record = TranscriptRecord(**json.loads(value))
        except (TypeError, ValueError):
            continue
        _adopt_private_accept(wallet, record)


BOUND_NOTE = "bound: the accept this contract was made from"


async def _confirm_bound(wallet: Wallet, deal: DealSession) -> None:
    """Say in the deal room, signed, that this wallet bound the deal's private accept: the
    acceptor cannot see a public accept that may have bound the offer first, and locks
    nothing until it reads this (see DealSession.unconfirmed_accept)."""
    if any(r.sender == wallet.did for r in deal.room_records):
        return
    try:
        await deal.heartbeat(BOUND_NOTE)
    except (GateRefused, EngineError, VenueError) as exc:
        _note(wallet, "warning", f"offer {deal.deal_id[:10]}…: could not confirm the private "
              f"accept in the deal room: {exc}; it is sent again when the wallet next opens",
              deal.deal_id)


WITHDRAWN_REASON = "withdrawn: accepted privately"


def _withdrawn_by_us(wallet: Wallet, deal: DealSession) -> bool:
    """Our own signed withdrawal of this offer is on the board: we bound a private accept."""
    for record in deal.board_records:
        frame = try_decode_frame(record.line) if record.sender == wallet.did else None
        if (frame is not None and frame["type"] == "cancel"
                and frame.get("reason") == WITHDRAWN_REASON
                and verify_transcript_record(record).ok):
            return True
    return False


async def _we_spoke_in(wallet: Wallet, contract: str) -> bool:
    """This wallet's own signed line is in the contract's deal room (its "bound" heartbeat at
    least): only the accept we bound made that contract, since nobody else signs as us."""
    export = await wallet.client.export(deal_room(contract))
    return any(record.sender == wallet.did for record in export.verified)


async def _withdraw(wallet: Wallet, deal: DealSession) -> None:
    """Our offer is bound to a private accept nobody else can see: withdraw it from the board
    with a signed cancel, so no later public acceptor's wallet takes itself for the party.
    The deal does not move (a contract exists; a board cancel cannot touch it)."""
    frame = make_cancel(from_=wallet.did, contract=deal.deal_id, reason=WITHDRAWN_REASON)
    await wallet.outbox.publish(OFFER_ROOM, encode_frame(frame), deal_id=deal.deal_id)


async def _letter_accept(wallet: Wallet, letter: Letter) -> str | None:
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
    if deal.accept_record is None:
        # A public accept already on the board comes first: read it before this one binds.
        await wallet.rooms.sync_board()
    bound_before = deal.accept_record is not None
    # A wallet restored from its seed reads its own withdrawal on the board before the letter
    # it withdrew for: the accept whose deal room holds our signed line is the one we bound
    # (folded ahead of the withdrawal); any other is refused as the withdrawal says.
    restored = not bound_before and _withdrawn_by_us(wallet, deal)
    ours = restored and await _we_spoke_in(wallet, frame["contract"])  # VenueError: kept
    why = _adopt_private_accept(wallet, record, bound_before_board=ours)
    if why is not None:
        return f"a private accept: {why}"
    if restored:
        _note(wallet, "info", f"offer {deal.deal_id[:10]}…: found again the private accept of "
              f"{letter.sender[:16]}… this wallet bound before its restore", deal.deal_id)
    elif not bound_before:
        _note(wallet, "info", f"offer {deal.deal_id[:10]}…: accepted privately by "
              f"{letter.sender[:16]}…; the offer is withdrawn from the board", deal.deal_id)
        await _withdraw(wallet, deal)
        await _confirm_bound(wallet, deal)
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


async def _letter_secret(wallet: Wallet, letter: Letter) -> str | None:
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


async def _letter_share(wallet: Wallet, letter: Letter) -> str | None:
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


async def _letter_deal_share(wallet: Wallet, letter: Letter) -> str | None:
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
    with journaling("the dealt share", happened=False):
        keep_dealt_share(wallet.vault, wallet.journal.settings, offer_id, share)
    return None


def _share_key(vault: Vault, offer_id: str) -> bytes:
    return derive_bytes(vault.master_seed(), SHARE_KEY_DOMAIN, offer_id)


def keep_dealt_share(vault: Vault, settings: SettingStore, offer_id: str, share: str) -> None:
    """A share a dealer sealed to us, kept in the journal sealed under a key derived from the
    master seed: the dealer may be anyone who posted an offer naming this wallet, and nothing
    a stranger sends writes the vault."""
    settings.set(SETTING_SEALED_SHARE + offer_id, encrypt_line(_share_key(vault, offer_id), share))


def dealt_share(vault: Vault, settings: SettingStore, offer_id: str) -> str | None:
    """The share a dealer sealed to us for `offer_id` (see keep_dealt_share), or None."""
    sealed = settings.get(SETTING_SEALED_SHARE + offer_id)
    if sealed is None:
        return None
    try:
        share = decrypt_line(_share_key(vault, offer_id), sealed)
    except E2EError:
        return None
    return share if HEX32_RE.fullmatch(share) else None


# Each handler returns the reason it refused a letter, or None once it acted on it.
HANDLERS: dict[str, Callable[[Wallet, Letter], Awaitable[str | None]]] = {
    "accept": _letter_accept, "secret": _letter_secret, "share": _letter_share,
    "deal-share": _letter_deal_share}


async def poll_letters(wallet: Wallet) -> int:
    """Read the mailbox and private rooms once and act on every letter; returns how many.

    Each letter is handed to its handler alone: whatever it holds, a refusal is a notice and
    never costs the next letter; only then is it marked done."""
    letters = await wallet.mail.poll()
    for letter in letters:
        try:
            reason = await _handle(wallet, letter)
        except asyncio.CancelledError:
            raise  # not done: the next poll reads it again
        except (JournalUnwritable, VenueError) as exc:  # not done either: kept for when
            # there is room on the disk, or the venue answers the read the letter needs
            _note(wallet, "warning", f"from {letter.sender[:16]}…: kept unread: {exc}")
            continue
        except Exception as exc:  # fail closed: a stranger's letter never breaks the poll
            reason = f"a private message that could not be handled ({type(exc).__name__})"
        if reason:
            _note(wallet, "warning", f"from {letter.sender[:16]}…: refused {reason}")
        wallet.mail.done(letter)
    return len(letters)


async def _handle(wallet: Wallet, letter: Letter) -> str | None:
    kind = letter.body.get("kind", "")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        return f"a private message of unknown kind {str(kind)[:20]!r}"
    try:
        return await handler(wallet, letter)
    except (JournalUnwritable, VenueError):
        raise
    except (EngineError, TclkError, ValueError, KeyError, TypeError) as exc:
        return f"a private message that could not be handled: {str(exc)[:200]}"


def expected_senders(wallet: Wallet) -> dict[str, int]:
    """Whose letters this wallet waits for, each with its rank: 0 for the referees of its
    deals (a released secret, a share) and its counterparties, 1 for the panels of the cases
    naming it (a dealt share), which anyone can make themselves by posting an offer."""
    out: set[str] = set()
    for deal in wallet.book:
        if deal.state.terminal:
            continue
        other = deal.counterparty()
        if other:
            out.add(other)
        try:
            panel = panel_of(deal.offer)
        except TclkError:
            panel = None
        if panel is not None:
            out.update(panel.members)
    ranks = dict.fromkeys(wallet.referee.panel_members(), 1)
    ranks.update(dict.fromkeys(out, 0))
    ranks.pop(wallet.did, None)
    return ranks


def follow_mail(wallet: Wallet) -> None:
    """Hand our mailboxes and the channels of expected senders to the read scheduler: a new
    line in one of them opens the letters (`poll_letters`); a channel once handed over (or
    aged out) is dropped. Strangers' channels are read in turn by each poll, a few at a time."""
    mail, reads = wallet.mail, wallet.reads

    async def on_events(events: list) -> None:
        if any(getattr(event, "records", None) for event in events):
            await poll_letters(wallet)
            follow_mail(wallet)

    def mailbox(quiet_s: float) -> Want:
        return mailbox_want(wallet.book)

    def channel(room: str) -> Callable[[float], Want]:
        # A channel carries one letter, written right after its seal: read it eagerly
        # until the letter is handed over, then never again.
        return lambda quiet_s: Want.HOT if mail.channel_open(room) else Want.DROP

    for room in mail.mailboxes():
        reads.add(room, handler=on_events, want=mailbox, since=mail.cursor(room),
                  suppress_echoes=True)
    for room in mail.expected_channels():
        reads.add(room, handler=on_events, want=channel(room), since=mail.cursor(room),
                  suppress_echoes=True)


async def run(wallet: Wallet) -> None:
    """Follow the mail, keep the DID note current (an optional write, paced as such), and
    poll once in a while as well: a stranger's channel is read only by a poll, in turn."""
    follow_mail(wallet)
    since_advert = ADVERTISE_EVERY_S
    while not wallet.background.closed:
        try:
            if since_advert >= ADVERTISE_EVERY_S:
                with traffic("optional"):
                    await wallet.advertise()
                since_advert = 0.0
            with traffic("follow"):
                await poll_letters(wallet)
            follow_mail(wallet)
        except (VenueError, EngineError) as exc:
            _note(wallet, "warning", f"private mail: {exc}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never die silently
            _note(wallet, "error", f"private mail failed: {exc}")
        await asyncio.sleep(POLL_S)
        since_advert += POLL_S
