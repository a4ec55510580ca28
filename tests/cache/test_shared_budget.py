"""The rate-limit budget and the staleness shown, when viewers share a cache."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Static

from tests.cache.conftest import sent
from tests.pilot import settle
from tui.api.cache import SharedCache, open_shared_cache
from tui.app import WatchdeckApp
from tui.clock import SystemClock
from tui.config import Settings
from tui.config.paths import cache_dir
from tui.sandbox.runner import SandboxHandle
from tui.state.budget import shared_stretch
from tui.state.io.poller import Poller
from tui.state.io.shared import BUCKET_SECONDS, COUNT_KEEP_SECONDS, SharedViewers, requests_slot


async def sent_by_others(cache: SharedCache, api_key: str, base_url: str, requests: int) -> None:
    """Another process of ``api_key`` counts ``requests`` in this bucket (its own signed entry)."""
    bucket = int(time.time() // BUCKET_SECONDS)
    await cache.state(base_url, api_key).add(requests_slot(bucket), requests, keep=COUNT_KEEP_SECONDS)


def test_viewers_stretch_only_when_together_they_would_exceed_the_limit() -> None:
    # 80 a minute is the hour's limit spread evenly; 80 % of it is what the viewers plan by.
    assert shared_stretch(1.0, 60) == 1.0
    assert shared_stretch(1.0, 128) == 2.0
    # Already stretched twice and sending 64 a minute: the same stretch holds (no oscillation).
    assert shared_stretch(2.0, 64) == 2.0
    # Once they send less than the budget even unstretched, back to the asked interval.
    assert shared_stretch(2.0, 20) == 1.0


def test_the_staleness_shown_is_the_age_of_the_answer() -> None:
    now = [100.0]

    async def fetch() -> str:
        return "answer"

    poller: Poller[str] = Poller(fetch, 10.0, monotonic=lambda: now[0], age_of=lambda value: 3.0)
    import asyncio

    asyncio.run(poller.run_once())
    assert poller.age() == 3.0
    assert poller.next_delay() == 7.0  # one interval after the answer was fetched, in step with who fetched it


async def test_the_monitor_stretches_when_the_keys_viewers_together_send_too_much(
        sandbox: SandboxHandle, user_dirs: Path) -> None:
    others = open_shared_cache(None, cache_dir())
    try:
        # Other viewers of this key sent 256 requests in the last minute: four times the budget.
        await sent_by_others(others, sandbox.api_key, sandbox.base_url, 256)
        settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                            poll_seconds=10.0, bell=False, cache=True)
        app = WatchdeckApp(settings, clock=SystemClock())
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            status = str(app.screen.query_one("#monitor-status", Static).render())
            # 4x the budget (and a request or two of this viewer's own): every ~40 s instead of 10.
            assert "stretched from 10s" in status
            assert 40.0 <= app.screen.poller.interval <= 45.0  # type: ignore[attr-defined]
            assert app.shared.combined_last_minute >= 256
            assert len([r for r in sent(sandbox) if r["path"].endswith("/batch_exports/")]) == 1
    finally:
        await others.aclose()


async def test_a_viewer_of_another_key_does_not_stretch_this_one(sandbox: SandboxHandle, user_dirs: Path) -> None:
    others = open_shared_cache(None, cache_dir())
    try:
        await sent_by_others(others, "someone-elses-key", sandbox.base_url, 256)
        view = SharedViewers(open_shared_cache(None, cache_dir()), sandbox.base_url, sandbox.api_key)
        await view.sync(10.0)
        assert view.stretch == 1.0 and view.interval(10.0, 10.0) == 10.0
        assert view.cache is not None
        await view.cache.aclose()
    finally:
        await others.aclose()
