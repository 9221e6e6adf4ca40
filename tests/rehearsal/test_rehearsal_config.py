"""/config, /.well-known/agent.json and the other documents: never rate limited."""

from __future__ import annotations

import httpx
import pytest

from tclk_tui.rehearsal.server import VenueConfig
from tests.rehearsal.support import Clock, VenueFactory, http

pytestmark = pytest.mark.published_rates  # these read /config's public numbers themselves

DEFAULT_SETTINGS = {
    "rate_read": 120,
    "rate_write": 30,
    "rate_rooms_per_day": 20,
    "max_rooms": 5120,
    "max_notes_per_ns": 5120,
    "max_notes_total": 163840,
    "max_wait": 10.0,
    "wait_poll": 0.5,
    "max_waiters_total": 64,
    "max_waiters_per_ip": 4,
    "dupe_filter_seconds": 60.0,
    "dupe_min_length": 16,
    "dupe_max_copies": 5,
    "ephemeral_ttl_seconds": 900.0,
    "stillborn_seconds": 86400.0,
    "fsync": True,
    "rooms_cache_seconds": 3,
    "note_stats_cache_seconds": 30,
    "edge_cache_seconds": 1,
    "static_cache_seconds": 300,
}


async def test_config_publishes_every_knob_with_the_public_defaults(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/config")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["cache-control"] == (
        "public, max-age=0, s-maxage=300, stale-while-revalidate=60"
    )
    document = response.json()
    assert list(document) == [
        "service",
        "version",
        "env_prefix",
        "settings",
        "units",
        "withheld",
        "note",
    ]
    assert document["env_prefix"] == "CHAT_"
    assert document["settings"] == DEFAULT_SETTINGS
    assert set(document["withheld"]) == {
        "CHAT_ROOT",
        "CHAT_STATS_TOKEN",
        "CHAT_STATS_CACHE_SECONDS",
        "CHAT_CLIENT_IP_HEADER",
        "CHAT_CORS_ORIGINS",
        "CHAT_SECURITY_CONTACT",
        "CHAT_DEBUG",
        "CHAT_PUBLIC_URL",
        "WEB_CONCURRENCY",
    }


async def test_config_reflects_this_venues_settings(venue_factory: VenueFactory) -> None:
    running = await venue_factory(VenueConfig(dupe_filter_seconds=0, max_waiters_per_ip=1))
    async with http(running.url) as client:
        settings = (await client.get("/config")).json()["settings"]
    assert (settings["dupe_filter_seconds"], settings["max_waiters_per_ip"]) == (0, 1)


async def test_agent_json_carries_the_limits(client: httpx.AsyncClient) -> None:
    limits = (await client.get("/.well-known/agent.json")).json()["limits"]
    assert limits["reads_per_minute_per_ip"] == 120
    assert limits["writes_per_minute_per_ip"] == 30
    assert limits["message_chars"] == 4096
    assert limits["note_chars"] == 8192
    assert limits["long_poll_seconds"] == 10.0
    assert limits["duplicate_filter_seconds"] == 60.0
    assert limits["notes_per_namespace"] == 5120


async def test_documents_answer_while_reads_are_throttled(venue_factory: VenueFactory) -> None:
    running = await venue_factory(VenueConfig(rate_limits=True, rate_read=1, clock=Clock()))
    async with http(running.url) as client:
        await client.get("/r/lobby")
        assert (await client.get("/r/lobby")).status_code == 429
        for path in ("/", "/llms.txt", "/config", "/.well-known/agent.json", "/openapi.json"):
            assert (await client.get(path)).status_code == 200, path
        assert (await client.get("/healthz")).text == "ok\n"


async def test_responses_are_compressed_on_request(client: httpx.AsyncClient) -> None:
    for i in range(40):
        await client.get(f"/r/lobby/say/bob/message%20{i}")
    response = await client.get("/r/lobby/export", headers={"accept-encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in response.headers["vary"].lower()
    assert response.text.count("\n") == 40
