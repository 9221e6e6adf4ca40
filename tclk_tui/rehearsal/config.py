"""The knobs of a rehearsal venue, with the defaults the public manual and /config publish.

Every limit the wallet has to live with is a field here so a test can shrink it (a 4 KiB ring
to force a gap, one waiter slot to see `wait_held: false`) without monkeypatching. The venue
reads the config at call time, so a test may also flip a field on a running venue.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MIB = 1 << 20
SERVICE_NAME = "agent-chat"
SERVICE_VERSION = "0.14.5+rehearsal"

# Published beside /config's settings, as the public service does: what it leaves out and why.
WITHHELD = {
    "CHAT_ROOT": "a host path; where the data lives is not the caller's business",
    "CHAT_STATS_TOKEN": "a credential",
    "CHAT_STATS_CACHE_SECONDS": "only meaningful to the holder of the stats token",
    "CHAT_CLIENT_IP_HEADER": "names the proxy in front of this origin",
    "CHAT_CORS_ORIGINS": "names the origins this deployment trusts",
    "CHAT_SECURITY_CONTACT": "published at /.well-known/security.txt instead",
    "CHAT_DEBUG": "an operator diagnostic, not a limit",
    "CHAT_PUBLIC_URL": "the origin you already reached",
    "WEB_CONCURRENCY": "a host detail",
}


@dataclass
class VenueConfig:
    """Limits of one venue. Defaults are the public service's (manual and /config defaults)."""

    # Sizes (characters are Python code points, counted after the single-line sweep).
    max_text_chars: int = 4096
    max_value_chars: int = 8192
    max_body_bytes: int = 256 << 10
    max_headers: int = 48
    max_header_bytes: int = 8192
    body_deadline_seconds: float = 10.0

    # Reads.
    default_limit: int = 50
    max_limit: int = 200
    read_budget_bytes: int = MIB

    # Long-poll.
    max_wait: float = 10.0
    wait_poll: float = 0.5  # published for fidelity; this venue wakes waiters on append instead
    max_waiters_total: int = 64
    max_waiters_per_ip: int = 4

    # Signed lane: how far back the last nonce of a key is looked up. The manual says the newest
    # 1 MiB of the room; None looks over the whole retained ring (the newest store's behaviour).
    nonce_window_bytes: int | None = MIB

    # Ring: past ring_bytes a room is cut back to its newest ring_keep_bytes.
    ring_bytes: int = 10 * MIB
    ring_keep_bytes: int = 5 * MIB
    ring_keep_lines: int = (10 * MIB) // 128

    ephemeral_ttl_seconds: float = 900.0

    # Duplicate filter (422). A window of 0 turns it off.
    dupe_filter_seconds: float = 60.0
    dupe_max_copies: int = 5
    dupe_min_length: int = 16
    dupe_max_keys: int = 4096

    # Rate limits: implemented with the documented bodies, but off unless asked for, so tests
    # that do not exercise them stay deterministic.
    rate_limits: bool = False
    rate_read: int = 120
    rate_write: int = 30
    rate_rooms_per_day: int = 20
    client_ip_header: str = ""

    # Capacity and reaping (lazy, on writes).
    max_rooms: int = 5120
    room_bytes_total: int = 5 << 30
    max_notes_total: int = 163840
    max_notes_per_ns: int = 5120
    idle_seconds: float = 7 * 86400.0
    stillborn_seconds: float = 86400.0
    reap_every_seconds: float = 300.0

    # Persistence and HTTP behaviour.
    fsync: bool = True
    compress: bool = True
    edge_cache_seconds: int = 1
    static_cache_seconds: int = 300
    rooms_cache_seconds: int = 3
    note_stats_cache_seconds: int = 30
    topic_preview_chars: int = 120
    limit_concurrency: int | None = 128

    # Wall clock in epoch seconds: timestamps, TTLs, windows and buckets all read it, so a test
    # can pin or advance time. Long-poll deadlines use the event loop's own clock.
    clock: Callable[[], float] = field(default=time.time, repr=False, compare=False)

    def settings(self) -> dict[str, Any]:
        """The `settings` object of /config, keyed as the public service keys it."""
        return {
            "rate_read": self.rate_read,
            "rate_write": self.rate_write,
            "rate_rooms_per_day": self.rate_rooms_per_day,
            "max_rooms": self.max_rooms,
            "max_notes_per_ns": self.max_notes_per_ns,
            "max_notes_total": self.max_notes_total,
            "max_wait": self.max_wait,
            "wait_poll": self.wait_poll,
            "max_waiters_total": self.max_waiters_total,
            "max_waiters_per_ip": self.max_waiters_per_ip,
            "dupe_filter_seconds": self.dupe_filter_seconds,
            "dupe_min_length": self.dupe_min_length,
            "dupe_max_copies": self.dupe_max_copies,
            "ephemeral_ttl_seconds": self.ephemeral_ttl_seconds,
            "stillborn_seconds": self.stillborn_seconds,
            "fsync": self.fsync,
            "rooms_cache_seconds": self.rooms_cache_seconds,
            "note_stats_cache_seconds": self.note_stats_cache_seconds,
            "edge_cache_seconds": self.edge_cache_seconds,
            "static_cache_seconds": self.static_cache_seconds,
        }

    def config_document(self) -> dict[str, Any]:
        """The whole /config body."""
        enforced = "enforced" if self.rate_limits else "published but not enforced"
        return {
            "service": SERVICE_NAME,
            "version": SERVICE_VERSION,
            "env_prefix": "CHAT_",
            "settings": self.settings(),
            "units": {
                "rate_read": "requests per minute per client",
                "rate_write": "requests per minute per client",
                "rate_rooms_per_day": "new rooms per day per client",
                "max_wait": "seconds",
                "wait_poll": "seconds",
                "dupe_filter_seconds": "seconds",
                "dupe_min_length": "characters",
                "ephemeral_ttl_seconds": "seconds",
                "stillborn_seconds": "seconds",
                "rooms_cache_seconds": "seconds",
                "note_stats_cache_seconds": "seconds",
                "edge_cache_seconds": "seconds",
                "static_cache_seconds": "seconds",
            },
            "withheld": dict(WITHHELD),
            "note": (
                "each key is the environment variable that moves it, lowercased and without "
                f"the CHAT_ prefix. This is a local rehearsal venue: rate limits are {enforced}."
            ),
        }

    def agent_limits(self) -> dict[str, Any]:
        """`limits` of /.well-known/agent.json."""
        return {
            "reads_per_minute_per_ip": self.rate_read,
            "writes_per_minute_per_ip": self.rate_write,
            "new_rooms_per_day_per_ip": self.rate_rooms_per_day,
            "message_chars": self.max_text_chars,
            "note_chars": self.max_value_chars,
            "rooms": self.max_rooms,
            "notes": self.max_notes_total,
            "notes_per_namespace": self.max_notes_per_ns,
            "room_ring_bytes": self.ring_bytes,
            "room_bytes_total": self.room_bytes_total,
            "retention_seconds": int(self.idle_seconds),
            "ephemeral_ttl_seconds": self.ephemeral_ttl_seconds,
            "long_poll_seconds": self.max_wait,
            "duplicate_filter_seconds": self.dupe_filter_seconds,
        }
