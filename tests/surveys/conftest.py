"""Fixtures of the survey browser tests: a frozen sandbox over loopback and the app pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tui.api.client import ApiClient
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxOptions, start_sandbox

FROZEN_AT = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Drafts, journals, config and the response cache go to a temporary directory: never the user's, never shared
    by tests."""
    for name in ("DATA", "STATE", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    return tmp_path


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(FROZEN_AT)


def sandbox_options(clock: FrozenClock, **overrides: Any) -> SandboxOptions:
    options: dict[str, Any] = dict(seed=7, simulate=False, clock=clock, summary_delay=(0.0, 0.0))
    options.update(overrides)
    return SandboxOptions(**options)


@pytest.fixture
def sandbox(clock: FrozenClock) -> Iterator[Any]:
    with start_sandbox(sandbox_options(clock)) as handle:
        yield handle


def make_app(handle: Any, clock: FrozenClock, *, read_only: bool = False, project_id: str | None = None,
             api_key: str | None = None, base_url: str | None = None, retries: int | None = None) -> WatchdeckApp:
    """The survey browser on the sandbox; ``retries``: how often its client retries a failed request (its default
    otherwise), e.g. 0 where the server is gone: each retry of a refused request only adds its back-off."""
    settings = Settings(base_url=base_url or handle.base_url, api_key=api_key or handle.api_key,
                        project_ids=[project_id or handle.project_id], read_only=read_only)
    api = None if retries is None else ApiClient(settings.base_url, settings.api_key.get_secret_value(),
                                                 settings.project_id, max_retries=retries)
    return WatchdeckApp(settings, clock=clock, start_mode="surveys", api=api)


def pictured(app: WatchdeckApp) -> WatchdeckApp:
    """The app with its elapsed time stopped, for a picture: the header says "updated 0s ago" however long the
    session takes on a busy machine."""
    app.monotonic = lambda: 1000.0
    return app


def survey_writes(handle: Any) -> list[dict[str, Any]]:
    """Requests that changed something (POST/PATCH/DELETE) under the surveys path, in order."""
    return [r for r in handle.requests()
            if r["method"] in ("POST", "PATCH", "DELETE", "PUT") and "/surveys/" in r["path"]]


def requests_to(handle: Any, method: str, path_suffix: str) -> list[dict[str, Any]]:
    return [r for r in handle.requests() if r["method"] == method and r["path"].endswith(path_suffix)]
