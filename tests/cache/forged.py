"""What someone who can write to the shared Redis, but does not hold the API key, puts there.

Written straight with the redis client, as such a writer would: the request
counter in the layout the issue found (``watchdeck:requests:<owner>:<bucket>``)
and, in the signed scheme's own slots, entries that must all be ignored: a bare
number, ``10**400`` as a string, garbage bytes, an entry of the right shape with
a made-up MAC, and one signed with another API key.
"""

from __future__ import annotations

import time

from tui.api.cache_context import key_id
from tui.api.shared_state import VIEWERS_SLOT, derive_key, seal
from tui.state.io.shared import BUCKET_SECONDS, requests_slot

BILLION = b"1000000000"
HUGE = str(10**400).encode()
#: Buckets written around now: the minute the readers add up, and (the scheme's slots) the minutes the test runs for.
BUCKETS_BEFORE, BUCKETS_AFTER = 6, 60


def forged_entries(name: str, count: bytes) -> dict[str, bytes]:
    """Entries for the slot ``name`` that look like a writer's but do not check."""
    return {
        "a" * 32: count,
        "b" * 32: HUGE,
        "c" * 32: b"\xff\xfe\x00 not an entry \x9b",
        "d" * 32: b"w1." + count + b"." + b"0" * 64,
        "e" * 32: seal(derive_key("someone-elses-key", "state"), name, "e" * 32, int(count)),
    }


async def forge(url: str, base_url: str, api_key: str, count: bytes) -> list[str]:
    """Forged request counts and viewers of this key (the old layout and the scheme's slots); the keys written."""
    from redis.asyncio import Redis

    owner = key_id(base_url, api_key)
    now = int(time.time() // BUCKET_SECONDS)
    client: Redis = Redis.from_url(url)
    written = []
    try:
        for bucket in range(now - BUCKETS_BEFORE, now + BUCKETS_AFTER):
            if bucket < now:  # the buckets of the minute just past, which the readers add up and nobody writes
                old = f"watchdeck:requests:{owner}:{bucket}"
                await client.set(old, count, ex=3600)
                written.append(old)
            name = f"{owner}:{requests_slot(bucket)}"
            await client.hset(f"watchdeck:state:{name}", mapping=forged_entries(name, count))  # type: ignore[arg-type]
            written.append(f"watchdeck:state:{name}")
        viewers = f"{owner}:{VIEWERS_SLOT}"
        await client.hset(f"watchdeck:state:{viewers}", mapping=forged_entries(viewers, count))  # type: ignore[arg-type]
        written.append(f"watchdeck:state:{viewers}")
    finally:
        await client.aclose()
    return written


async def delete(url: str, keys: list[str]) -> None:
    from redis.asyncio import Redis

    client: Redis = Redis.from_url(url)
    try:
        await client.delete(*keys)
    finally:
        await client.aclose()
