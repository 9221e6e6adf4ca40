"""This wallet's private channel: its DID note, its signed mailbox, sealed deliveries both ways.

The static X25519 key and the mailbox name derive from the master seed (one backup restores
them) under a rotation counter, which is also the `e2e:` record's nonce: rotating re-derives
both and re-issues the record with a higher nonce. Old keys stay cached in the vault so a
delivery sealed to them still opens.

A delivery is one signed `e2e1` line in the peer's `mb-p-` mailbox sealing a fresh room key and
a fresh `p-` room, then the message as `<nonce>.<ct>` lines in that room. A message is JSON; a
long one is split before sealing into pieces `<msg id> <i>/<n> <text>`. The keys of channels we
open live in the vault; an incoming channel's key is opened again, at each read, from its
sealed mailbox line (which the journal keeps: ciphertext only our static key opens), so
nothing a stranger sends writes the vault. The highest `e2e:` nonce used for each peer is
journaled, so a replayed older record is refused after a restart too.

Anything read here is stranger-written: a line that does not open, a piece from someone other
than the key's sender, a message that is not JSON (or nested too deep, or too large), each
becomes a Notice with its reason and nothing else. A channel stays unread until its letter is
handed over (`done`); strangers' unread channels are bounded per sender and in all, aged out,
and read a few per poll, so a poll's reads never grow with what strangers sent.
"""

from __future__ import annotations

import json
import secrets as _secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tclk_tui.engine.errors import EngineError, JournalUnwritable, journaling
from tclk_tui.engine.events import EventBus, Notice
from tclk_tui.engine.ports import Publisher
from tclk_tui.protocol.jsondepth import too_deep
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.store.journal import Journal
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.e2e import (
    Channel,
    E2EError,
    E2ERecord,
    choose_record,
    decrypt_line,
    encrypt_line,
    is_sealed_line,
    make_record,
    new_channel,
    open_channel,
    seal_channel,
    split_plain,
    x25519_public,
)
from tclk_tui.technocore.errors import VenueError
from tclk_tui.technocore.identity import Identity
from tclk_tui.technocore.records import VenueRecord
from tclk_tui.vault.seed import Vault, derive_bytes

X25519_DOMAIN = "tclk-tui/v1/e2e-x25519"
MAILBOX_DOMAIN = "tclk-tui/v1/mailbox"
KEY_ENTRY = "e2e-x25519/"
CHANNEL_ENTRY = "e2e-channel/"
SETTING_GENERATION = "e2e-generation"
SETTING_SEEN = "e2e-seen:"
SETTING_CHANNELS = "e2e-channels"
SETTING_CURSOR = "e2e-cursor:"
SETTING_FINISHED = "e2e-finished"
PIECE_BYTES = 1900  # leaves room for the piece header inside one sealed line
MAX_PIECES = 8  # a letter is a few hundred bytes; nothing this wallet sends needs more
MAX_UNREAD_PER_SENDER = 4  # channels opened and not yet handed over, per sealer
MAX_UNREAD_EXPECTED = 64  # the same for a party or referee of this wallet's deals
MAX_STRANGER_CHANNELS = 64  # unread channels of any other sender, in all
STRANGER_READS_PER_POLL = 4  # of those, read in turn, a few per poll
EXPECTED_READS_PER_POLL = 8  # expected senders' channels read per poll, new ones first
UNREAD_TTL_MS = 3_600_000  # a letter completes within seconds: an hour is junk
MAIL_RECORD = "the sealed mail's own record (read marks, channels)"
MAX_FINISHED = 512  # handed-over channel rooms remembered, so a replayed delivery is not reread


@dataclass(frozen=True, slots=True)
class Letter:
    """One private message opened from a channel: who sealed it, where, and its JSON body."""

    sender: str
    room: str
    seq: int
    ts_ms: int
    body: dict

    def __repr__(self) -> str:
        # A body may carry a released secret or a share.
        return f"Letter(sender={self.sender!r}, room={self.room!r}, seq={self.seq})"


class PrivateMail:
    def __init__(self, *, identity: Identity, vault: Vault, journal: Journal, client: VenueClient,
                 publisher: Publisher, events: EventBus, now_ms: Callable[[], int]) -> None:
        self._identity = identity
        self._vault = vault
        self._journal = journal
        self._client = client
        self._publisher = publisher
        self._events = events
        self._now_ms = now_ms
        # DIDs whose letters this wallet waits for, by rank (0: its deals' referees and
        # counterparties; 1: panels naming it, which anyone can post): their channels are read
        # first and never make room for strangers'. Set by the wallet.
        self.expected: Callable[[], Mapping[str, int]] = dict
        self._turn = 0  # where the next poll's turn through strangers' channels starts
        self._known_turn = 0  # the same through expected senders' channels read before

    def __repr__(self) -> str:
        return f"PrivateMail(mailbox={self.mailbox!r})"

    # -- our keys ----------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        return int(self._journal.settings.get(SETTING_GENERATION, "1") or "1")

    def _static(self, generation: int) -> bytes:
        name = f"{KEY_ENTRY}{generation}"
        cached = self._vault.backend.get(name)
        if cached is None:
            cached = derive_bytes(self._vault.master_seed(), X25519_DOMAIN, str(generation))
            self._vault.backend.put(name, cached)
        return bytes(cached)

    @property
    def x25519_public(self) -> bytes:
        return x25519_public(self._static(self.generation))

    @property
    def mailbox(self) -> str:
        seed_bits = derive_bytes(self._vault.master_seed(), MAILBOX_DOMAIN, str(self.generation))
        return "mb-p-" + seed_bits[:16].hex()

    def record(self) -> str:
        return make_record(self._identity, self.x25519_public, self.mailbox, self.generation)

    async def publish_note(self, rails: list[str]) -> None:
        """Publish (or keep current) the DID note: `tclk1:` rails and the signed e2e: record.

        The bare `mailbox:` hint is left as it is: it names the agents' JSON-RPC mailbox when
        the wallet serves agents, and sealed deliveries go only to the record's own mailbox."""
        await self._client.publish_did_note(rails=rails, e2e=self.record())

    async def rotate(self, rails: list[str]) -> int:
        """Move to a new static key and mailbox; re-issue the record with a higher nonce."""
        generation = self.generation + 1
        self._static(generation)  # durable in the vault before the record naming it is out
        self._journal.settings.set(SETTING_GENERATION, str(generation))
        await self.publish_note(rails)
        return generation

    # -- sending -----------------------------------------------------------------------------

    async def peer_record(self, peer_did: str) -> E2ERecord:
        """The peer's e2e: record to seal to (highest verifying nonce, never below one used)."""
        try:
            note = await self._client.read_did_note(peer_did)
        except VenueError as exc:
            raise EngineError(f"cannot read the peer's DID note: {exc}") from None
        seen = self._journal.settings.get(SETTING_SEEN + peer_did)
        try:
            return choose_record(peer_did, note.value if note is not None else None,
                                 seen_nonce=int(seen) if seen else None)
        except E2EError as exc:
            raise EngineError(f"cannot seal to {peer_did[:16]}…: {exc}") from None

    async def send(self, peer_did: str, body: dict) -> TranscriptRecord:
        """Seal a fresh channel to the peer's verified e2e: record and write `body` into it;
        returns the room record of the message's last line."""
        record = await self.peer_record(peer_did)
        with journaling("the letter", happened=False):
            self._journal.settings.set(SETTING_SEEN + peer_did, str(record.nonce))
        channel = new_channel()
        with journaling("the letter", happened=False, store="the vault"):
            self._keep_outgoing(channel)
        text = json.dumps(body, separators=(",", ":"), sort_keys=True)
        message_id = _secrets.token_hex(4)
        pieces = split_plain(text, PIECE_BYTES)
        lines = [(record.mailbox, seal_channel(record.x25519, channel))]
        lines += [(channel.room, encrypt_line(channel.key, f"{message_id} {i}/{len(pieces)} {p}"))
                  for i, p in enumerate(pieces, start=1)]
        for index, (room, line) in enumerate(lines):
            try:
                carrier = await self._publisher.publish(room, line)
            except JournalUnwritable as exc:
                if index == len(lines) - 1 or not exc.happened:
                    raise
                # A line before the letter's last is out: the letter itself is not.
                raise JournalUnwritable(str(exc), happened=False, why=exc.why) from None
        return carrier

    # -- receiving ---------------------------------------------------------------------------

    def _channels(self) -> dict[str, dict]:
        """Incoming channels not yet handed over, by room: the sealer's DID, the sealed
        mailbox line (ciphertext to our static key: the room key is opened again from it at
        each read, so nothing a stranger sends writes the vault), where it was delivered, and
        when this wallet first saw it."""
        return self._journal.settings.get_object(SETTING_CHANNELS)

    def _keep_outgoing(self, channel: Channel) -> None:
        """Our own outgoing channel's key, in the vault (we made it: nothing a stranger
        chose); incoming channels are kept by `_keep_incoming`."""
        self._vault.backend.put(CHANNEL_ENTRY + channel.room, channel.key)

    def mailboxes(self) -> list[str]:
        """Every mailbox of ours: old generations still receive."""
        return [self._mailbox_of(g) for g in range(1, self.generation + 1)]

    def expected_channels(self) -> list[str]:
        """The incoming channels not yet handed over whose senders this wallet expects: the
        ones worth following (a stranger's are read in turn by `poll`, a few at a time)."""
        expected = self.expected()
        return [room for room, meta in self._ordered(self._channels())
                if meta["peer"] in expected]

    def channel_open(self, room: str) -> bool:
        """Whether `room` is an incoming channel of ours not yet handed over."""
        return room in self._channels()

    def cursor(self, room: str) -> int:
        """The seq `poll` has read up to in one of our rooms."""
        return self._cursor(room)

    def _mailbox_of(self, generation: int) -> str:
        seed_bits = derive_bytes(self._vault.master_seed(), MAILBOX_DOMAIN, str(generation))
        return "mb-p-" + seed_bits[:16].hex()

    def _cursor(self, room: str) -> int:
        return int(self._journal.settings.get(SETTING_CURSOR + room, "0") or "0")

    def _move(self, room: str, seq: int) -> None:
        if seq > self._cursor(room):
            with journaling(MAIL_RECORD, happened=False):
                self._journal.settings.set(SETTING_CURSOR + room, str(seq))

    async def _read_new(self, room: str) -> list[VenueRecord]:
        since = self._cursor(room)
        view = await self._client.read(room, since=since, limit=200)
        if view.first_seq is not None and view.first_seq > since + 1:
            # More than a page came since: a read answers the newest ones, and a stranger's
            # flood would push a delivery out of it; the ring still holds what came between.
            return [r for r in (await self._client.export(room)).records if r.seq > since]
        return [r for r in view.records if r.seq > since]

    def _notice(self, text: str) -> None:
        self._events.publish(Notice("warning", text))

    def unread(self) -> list[tuple[str, str]]:
        """(room, sender) of every incoming channel not yet handed over, oldest first."""
        return [(room, meta["peer"]) for room, meta in self._ordered(self._channels())]

    @staticmethod
    def _ordered(channels: dict[str, dict]) -> list[tuple[str, dict]]:
        # In the order their deliveries reached our mailboxes (one room's order), never by
        # the channels' own seqs: each counts in its own room.
        return sorted(channels.items(), key=lambda kv: tuple(kv[1].get("at") or (0, 0)))

    async def poll(self) -> list[Letter]:
        """Open new deliveries in every mailbox of ours, then read incoming channels: at most
        `EXPECTED_READS_PER_POLL` from expected senders (`expected`: channels never read
        before first, by rank, then the others in turn) and at most `STRANGER_READS_PER_POLL`
        of the others in turn, so a poll's reads never grow with what anyone sent (naming
        this wallet on a panel makes anyone expected).

        A letter stays unread until `done` says it was handed over: a poll that is cut short
        (a crash, a cancelled task) loses nothing."""
        self._age_out()
        expected = self.expected()
        for generation in range(1, self.generation + 1):
            await self._open_deliveries(generation, expected)
        ordered = self._ordered(self._channels())
        known = [(room, meta) for room, meta in ordered if meta["peer"] in expected]
        others = [(room, meta) for room, meta in ordered if meta["peer"] not in expected]
        fresh = sorted((c for c in known if not c[1].get("tried")),
                       key=lambda c: expected[c[1]["peer"]])
        fresh = fresh[:EXPECTED_READS_PER_POLL]
        tried, self._known_turn = _in_turn([c for c in known if c[1].get("tried")],
                                           self._known_turn,
                                           EXPECTED_READS_PER_POLL - len(fresh))
        known = fresh + tried
        others, self._turn = _in_turn(others, self._turn, STRANGER_READS_PER_POLL)
        letters: list[Letter] = []
        for room, meta in [*known, *others]:
            letter = await self._read_channel(room, meta)
            if letter is not None:
                letters.append(letter)
        return letters

    def done(self, letter: Letter) -> None:
        """The letter was handed over (acted on or refused): its channel is finished."""
        self._forget(letter.room)

    def _forget(self, room: str) -> None:
        channels = self._channels()
        if channels.pop(room, None) is not None:
            with journaling(MAIL_RECORD, happened=False):
                self._journal.settings.set_object(SETTING_CHANNELS, channels)
        finished = self._finished()
        if room not in finished:
            finished = [*finished, room][-MAX_FINISHED:]
            with journaling(MAIL_RECORD, happened=False):
                self._journal.settings.set(SETTING_FINISHED, json.dumps(finished))

    def _finished(self) -> list[str]:
        try:
            rooms = json.loads(self._journal.settings.get(SETTING_FINISHED, "[]") or "[]")
        except json.JSONDecodeError:
            return []
        return [r for r in rooms if isinstance(r, str)] if isinstance(rooms, list) else []

    def _age_out(self) -> None:
        """Channels whose letter never completed within `UNREAD_TTL_MS` of being opened."""
        now, channels = self._now_ms(), self._channels()
        stale = [room for room, meta in channels.items()
                 if now - int(meta.get("seen_ms") or 0) >= UNREAD_TTL_MS]
        for room in stale:
            peer = str(channels[room].get("peer", ""))
            self._notice(f"private channel from {peer[:16]}… aged out unread: its letter "
                         f"never completed within {UNREAD_TTL_MS // 60_000} minutes")
            self._forget(room)

    async def _open_deliveries(self, generation: int, expected: Mapping[str, int]) -> None:
        mailbox = self._mailbox_of(generation)
        try:
            records = await self._read_new(mailbox)
        except VenueError as exc:
            self._notice(f"mailbox unreadable: {exc}")
            return
        static = self._static(generation)
        refused: dict[str, int] = {}
        for record in records:
            self._move(mailbox, record.seq)
            if not record.verified or record.sender is None or record.sender == self._identity.did:
                continue
            if not is_sealed_line(record.text):
                continue  # a poke or chatter: nothing to open
            try:
                channel = open_channel(record.text, static)
            except E2EError as exc:
                self._notice(f"mailbox #{record.seq} from {record.sender[:16]}…: {exc}")
                continue
            why = self._keep_incoming(channel.room, record, generation, expected)
            if why is not None:
                refused[why] = refused.get(why, 0) + 1
        for why, count in refused.items():
            self._notice(f"mailbox: {count} deliver{'y' if count == 1 else 'ies'} refused: {why}")

    def _keep_incoming(self, room: str, record: VenueRecord, generation: int,
                       expected: Mapping[str, int]) -> str | None:
        """Keep a stranger's channel within bounds; None once kept, else why it was not."""
        channels = self._channels()
        if room in channels or room in self._finished():
            return None
        sender = str(record.sender)
        mine = [r for r, m in channels.items() if m["peer"] == sender]
        # Only a party or referee of our deals (rank 0) holds more than a stranger: anyone
        # can post an offer naming this wallet and fifteen fresh DIDs on its panel.
        party = expected.get(sender) == 0
        limit = MAX_UNREAD_EXPECTED if party else MAX_UNREAD_PER_SENDER
        if len(mine) >= limit:
            return f"{sender[:16]}… already has {limit} unread channels (too many unread)"
        if not party:
            others = [r for r, m in self._ordered(channels) if expected.get(m["peer"]) != 0]
            for old in others[:max(0, len(others) - MAX_STRANGER_CHANNELS + 1)]:
                channels.pop(old)  # the oldest of those channels make room
        channels[room] = {"peer": sender, "sealed": record.text, "gen": generation,
                          "at": [generation, record.seq], "seen_ms": self._now_ms()}
        with journaling(MAIL_RECORD, happened=False):
            self._journal.settings.set_object(SETTING_CHANNELS, channels)
        return None

    async def _read_channel(self, room: str, meta: dict) -> Letter | None:
        """The channel's letter once all its pieces are in (None before), read whole each
        time from the venue: nothing of a letter is kept between polls."""
        peer = str(meta.get("peer", ""))
        if meta.get("out") or meta.get("done"):  # kept by an older version: nothing to read
            self._forget(room)
            return None
        try:
            if "sealed" in meta:
                key = open_channel(str(meta["sealed"]), self._static(int(meta.get("gen") or 1))).key
            else:  # opened by an older version, which kept the key in the vault
                key = bytes(self._vault.backend.get(CHANNEL_ENTRY + room) or b"")
                if not key:
                    raise E2EError("no key kept for this channel")
        except (E2EError, ValueError, TypeError):
            self._forget(room)
            return None
        try:
            view = await self._client.read(room, since=0, limit=200)
        except VenueError as exc:
            self._notice(f"private room unreadable: {exc}")
            return None
        pieces: dict[int, str] = {}
        message_id, count = None, 0
        for record in view.records:
            # K authenticates the text: a line that opens is the sealer's, signed or not
            # (pattern 4 writes these lines through either lane). Only the sealer and this
            # wallet know the room, so anything else in it ends the channel, with a notice.
            why = None
            if record.verified and record.sender != peer:
                why = f"a line signed by {str(record.sender)[:16]}…, not the sealer"
            else:
                try:
                    parsed = _piece(decrypt_line(key, record.text))
                except E2EError as exc:
                    parsed = f"unreadable: {exc}"
                if isinstance(parsed, str):
                    why = parsed
                else:
                    piece_id, index, total, text = parsed
                    if message_id is None:
                        message_id, count = piece_id, total
                    if (piece_id, total) != (message_id, count):
                        why = "a second message (one channel carries one)"
            if why is not None:
                self._notice(f"private line #{record.seq} from {peer[:16]}… refused: {why}; "
                             "the channel is closed")
                self._forget(room)
                return None
            pieces.setdefault(index, text)
            if len(pieces) == count:
                return self._letter(room, peer, record, "".join(pieces[i]
                                                                for i in range(1, count + 1)))
        self._tried(room)
        return None

    def _tried(self, room: str) -> None:
        """The channel was read and its letter is not complete yet: later polls read it in
        turn behind channels never read (a real letter is written whole, at once)."""
        channels = self._channels()
        if room in channels and not channels[room].get("tried"):
            channels[room]["tried"] = 1
            with journaling(MAIL_RECORD, happened=False):
                self._journal.settings.set_object(SETTING_CHANNELS, channels)

    def _letter(self, room: str, peer: str, record: VenueRecord, text: str) -> Letter | None:
        """The message as a Letter, or None (with a notice, the channel finished) when it is
        not a JSON object with a `kind`: junk never costs another letter."""
        why = None
        if too_deep(text):
            why = "nested too deep"
        else:
            try:
                body = json.loads(text)
            except (ValueError, RecursionError):
                body = None
            if not isinstance(body, dict) or not isinstance(body.get("kind"), str):
                why = "not a JSON message with a kind"
        if why is not None:
            self._notice(f"private message from {peer[:16]}… refused: {why}")
            self._forget(room)
            return None
        return Letter(sender=peer, room=room, seq=record.seq, ts_ms=record.timestamp_ms or 0,
                      body=body)


def _in_turn(items: list, turn: int, count: int) -> tuple[list, int]:
    """At most `count` of `items`, starting where the last turn stopped; the next turn."""
    if not items or count <= 0:
        return [], turn
    start = turn % len(items)
    taken = (items[start:] + items[:start])[:count]
    return taken, start + len(taken)


def _piece(line: str) -> tuple[str, int, int, str] | str:
    """`<msg id> <i>/<n> <text>` as (id, i, n, text), or why the line is not a piece."""
    message_id, _, rest = line.partition(" ")
    position, _, text = rest.partition(" ")
    index_text, _, count_text = position.partition("/")
    if not (message_id and index_text.isascii() and index_text.isdigit()
            and count_text.isascii() and count_text.isdigit()):
        return "not a message piece (<msg id> <i>/<n> <text>)"
    index, count = int(index_text), int(count_text)
    if not 1 <= index <= count:
        return "not a message piece (<msg id> <i>/<n> <text>)"
    if count > MAX_PIECES:
        return (f"a message of {count} pieces is too large (a letter is at most {MAX_PIECES} "
                f"pieces of {PIECE_BYTES} bytes)")
    return message_id, index, count, text


__all__ = ["Letter", "PrivateMail"]
