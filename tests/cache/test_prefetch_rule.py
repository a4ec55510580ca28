"""The start-up prefetch cannot look in the shared store: it is not sent while other viewers share the cache."""

from __future__ import annotations

from pathlib import Path

from tui.__main__ import start_first_poll
from tui.api.cache import open_shared_cache
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle
from tui.state.shared import SharedViewers


def _settings(handle: SandboxHandle, **values: object) -> Settings:
    fields: dict[str, object] = {"base_url": handle.base_url, "api_key": handle.api_key,
                                 "project_ids": [handle.project_id], "cache": True, **values}
    return Settings(**fields)  # type: ignore[arg-type]


async def test_prefetch_only_when_no_other_viewer_of_the_key_is_live(sandbox: SandboxHandle, user_dirs: Path) -> None:
    assert set(start_first_poll(_settings(sandbox))) == {sandbox.project_id}  # alone: first paint comes first

    cache = open_shared_cache()
    try:
        stranger = SharedViewers(cache, sandbox.base_url, "someone-elses-key")
        await stranger.sync(10.0)
        assert set(start_first_poll(_settings(sandbox))) == {sandbox.project_id}

        other = SharedViewers(cache, sandbox.base_url, sandbox.api_key)
        await other.sync(10.0)
        assert start_first_poll(_settings(sandbox)) == {}
        assert set(start_first_poll(_settings(sandbox, cache=False))) == {sandbox.project_id}
    finally:
        await cache.aclose()


def test_no_prefetch_with_a_redis_cache(sandbox: SandboxHandle) -> None:
    assert start_first_poll(_settings(sandbox, cache_url="redis://127.0.0.1:1/0")) == {}
