"""This wallet's private channel: its DID note, its signed mailbox, sealed deliveries both ways.

The static X25519 key and the mailbox name derive from the master seed (one backup restores
them) under a rotation counter, which is also the `e2e:` record's nonce: rotating re-derives
both and re-issues the record with a higher nonce. Old keys stay cached in the vault so a
delivery sealed to them still opens.

A delivery is one signed `e2e1` line in the peer's `mb-p-` mailbox sealing a fresh room key and
a fresh `p-` room, then the message as `<nonce>.<ct>` lines in that room. A message is JSON; a
long one is split before sealing into pieces `<msg id> <i>/<n> <text>`. Room keys are secrets:
the vault holds them, the journal only names the rooms. The highest `e2e:` nonce used for each
peer is journaled, so a replayed older record is refused after a restart too.

Anything read here is stranger-written: a line that does not open, a piece from someone other
than the key's sender, a message that is not JSON, each becomes a Notice with its reason and
nothing else.
"""

from __future__ import annotations

import json
import secrets as _secrets
from collections.abc import Callable
from dataclasses import dataclass

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import EventBus, Notice
from tclk_tui.engine.ports import Publisher
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
PIECE_BYTES = 1900  # leaves room for the piece header inside one sealed line


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
        self._pieces: dict[tuple[str, str], dict[int, str]] = {}

    def __repr__(self) -> str:
        return f"PrivateMail(mailbox={self.mailbox!r})"

    # -- our keys ----------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        return int(self._journal.get_setting(SETTING_GENERATION, "1") or "1")

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
        self._journal.set_setting(SETTING_GENERATION, str(generation))
        await self.publish_note(rails)
        return generation

    # -- sending -----------------------------------------------------------------------------

    async def peer_record(self, peer_did: str) -> E2ERecord:
        """The peer's e2e: record to seal to (highest verifying nonce, never below one used)."""
        try:
            note = await self._client.read_did_note(peer_did)
        except VenueError as exc:
            raise EngineError(f"cannot read the peer's DID note: {exc}") from None
        seen = self._journal.get_setting(SETTING_SEEN + peer_did)
        try:
            return choose_record(peer_did, note.value if note is not None else None,
                                 seen_nonce=int(seen) if seen else None)
        except E2EError as exc:
            raise EngineError(f"cannot seal to {peer_did[:16]}…: {exc}") from None

    async def send(self, peer_did: str, body: dict) -> TranscriptRecord:
        """Seal a fresh channel to the peer's verified e2e: record and write `body` into it;
        returns the room record of the message's last line."""
        record = await self.peer_record(peer_did)
        self._journal.set_setting(SETTING_SEEN + peer_did, str(record.nonce))
        channel = new_channel()
        self._remember_channel(channel, peer_did, outgoing=True)
        await self._publisher.publish(record.mailbox, seal_channel(record.x25519, channel))
        text = json.dumps(body, separators=(",", ":"), sort_keys=True)
        message_id = _secrets.token_hex(4)
        pieces = split_plain(text, PIECE_BYTES)
        for index, piece in enumerate(pieces, start=1):
            line = f"{message_id} {index}/{len(pieces)} {piece}"
            carrier = await self._publisher.publish(channel.room, encrypt_line(channel.key, line))
        return carrier

    # -- receiving ---------------------------------------------------------------------------

    def _channels(self) -> dict[str, dict]:
        return self._journal.object_setting(SETTING_CHANNELS)

    def _remember_channel(self, channel: Channel, peer: str, *, outgoing: bool) -> None:
        self._vault.backend.put(CHANNEL_ENTRY + channel.room, channel.key)
        channels = self._channels()
        channels[channel.room] = {"peer": peer, "out": outgoing}
        self._journal.set_object_setting(SETTING_CHANNELS, channels)

    def rooms_to_follow(self) -> list[str]:
        """Every mailbox of ours (old generations still receive) and each incoming sealed
        channel whose message is not complete yet: the rooms `poll` reads."""
        mailboxes = [self._mailbox_of(g) for g in range(1, self.generation + 1)]
        return mailboxes + [room for room, meta in self._channels().items()
                            if not meta.get("out") and not meta.get("done")]

    def channel_open(self, room: str) -> bool:
        """Whether `room` is an incoming channel of ours whose message is not complete."""
        meta = self._channels().get(room)
        return meta is not None and not meta.get("out") and not meta.get("done")

    def cursor(self, room: str) -> int:
        """The seq `poll` has read up to in one of our rooms."""
        return self._cursor(room)

    def _mailbox_of(self, generation: int) -> str:
        seed_bits = derive_bytes(self._vault.master_seed(), MAILBOX_DOMAIN, str(generation))
        return "mb-p-" + seed_bits[:16].hex()

    def _cursor(self, room: str) -> int:
        return int(self._journal.get_setting(SETTING_CURSOR + room, "0") or "0")

    def _move(self, room: str, seq: int) -> None:
        if seq > self._cursor(room):
            self._journal.set_setting(SETTING_CURSOR + room, str(seq))

    async def _read_new(self, room: str) -> list[VenueRecord]:
        since = self._cursor(room)
        view = await self._client.read(room, since=since, limit=200)
        return [r for r in view.records if r.seq > since]

    def _notice(self, text: str) -> None:
        self._events.publish(Notice("warning", text))

    async def poll(self) -> list[Letter]:
        """Open new deliveries in every mailbox of ours, then read every incoming channel."""
        letters: list[Letter] = []
        for generation in range(1, self.generation + 1):
            await self._open_deliveries(generation)
        for room, meta in self._channels().items():
            if meta.get("out") or meta.get("done"):
                continue  # one sealed channel carries one message: once read, it is done
            letters += await self._read_channel(room, meta["peer"])
        return letters

    async def _open_deliveries(self, generation: int) -> None:
        mailbox = self._mailbox_of(generation)
        try:
            records = await self._read_new(mailbox)
        except VenueError as exc:
            self._notice(f"mailbox unreadable: {exc}")
            return
        static = self._static(generation)
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
            if channel.room not in self._channels():
                self._remember_channel(channel, record.sender, outgoing=False)

    async def _read_channel(self, room: str, peer: str) -> list[Letter]:
        key = self._vault.backend.get(CHANNEL_ENTRY + room)
        if key is None:
            return []
        try:
            records = await self._read_new(room)
        except VenueError as exc:
            self._notice(f"private room unreadable: {exc}")
            return []
        letters = []
        for record in records:
            self._move(room, record.seq)
            if record.sender != peer or not record.verified:
                continue  # K authenticates the text; the signature says it is the sealer's
            try:
                line = decrypt_line(bytes(key), record.text)
            except E2EError as exc:
                self._notice(f"private line #{record.seq} from {peer[:16]}…: {exc}")
                continue
            letter = self._assemble(room, peer, record, line)
            if letter is not None:
                letters.append(letter)
                self._mark_done(room)
        return letters

    def _mark_done(self, room: str) -> None:
        channels = self._channels()
        if room in channels:
            channels[room]["done"] = True
            self._journal.set_setting(SETTING_CHANNELS, json.dumps(channels, sort_keys=True))

    def _assemble(self, room: str, peer: str, record: VenueRecord, line: str) -> Letter | None:
        message_id, _, rest = line.partition(" ")
        position, _, piece = rest.partition(" ")
        index_text, _, count_text = position.partition("/")
        if not (index_text.isdigit() and count_text.isdigit()) or not \
                1 <= int(index_text) <= int(count_text) <= 64:
            self._notice(f"private line #{record.seq} from {peer[:16]}…: not a message piece")
            return None
        parts = self._pieces.setdefault((room, message_id), {})
        parts[int(index_text)] = piece
        if len(parts) < int(count_text):
            return None
        del self._pieces[(room, message_id)]
        text = "".join(parts[i] for i in range(1, int(count_text) + 1))
        try:
            body = json.loads(text)
        except json.JSONDecodeError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("kind"), str):
            self._notice(f"private message from {peer[:16]}… is not a JSON message")
            return None
        return Letter(sender=peer, room=room, seq=record.seq, ts_ms=record.timestamp_ms or 0,
                      body=body)


__all__ = ["Letter", "PrivateMail"]
