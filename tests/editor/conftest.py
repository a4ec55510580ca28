"""Fixtures of the survey editor tests: a sandbox served in-process, a data dir per test, a frozen clock.

Pilot tests drive the real :class:`WatchdeckApp` against the sandbox and assert on the exact bodies
the sandbox received; snapshot tests use a small harness app (same stylesheets) that opens the editor
on a survey built locally, so they never depend on the network or on the screens underneath.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from textual.app import App

from tui.api.client import ApiClient
from tui.api.models.surveys import Survey
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.app import create_app
from tui.sandbox.auth import DEMO_KEY
from tui.sandbox.options import SandboxOptions
from tui.screens.editor import SurveyEditorScreen
from tui.state.server_time import ServerClock

FROZEN_AT = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Drafts go to a fresh directory per test (tui.config.paths.data_dir honours WATCHDECK_DATA_DIR)."""
    directory = tmp_path / "data"
    monkeypatch.setenv("WATCHDECK_DATA_DIR", str(directory))
    return directory


@pytest.fixture(autouse=True)
def fast_drafts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 1 s draft debounce, shortened so tests do not sleep."""
    monkeypatch.setattr("tui.screens.editor.DRAFT_DELAY", 0.05)


class InProcessSandbox:
    """The sandbox's app served in-process through ``httpx.ASGITransport``: the editor's requests and answers are
    the sandbox's own, without a server thread and socket (the socket is not what these tests check)."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.base_url = "http://sandbox"
        self.api_key = DEMO_KEY
        self.project_id = "1"

    def client(self) -> ApiClient:
        return ApiClient(self.base_url, self.api_key, self.project_id, transport=httpx.ASGITransport(app=self.app))

    def requests(self) -> list[dict[str, Any]]:
        return self.app.state.sandbox.requests.list()  # type: ignore[no-any-return]


@pytest.fixture
def sandbox() -> Iterator[InProcessSandbox]:
    app = create_app(SandboxOptions(seed=7, simulate=False), FrozenClock(FROZEN_AT))
    yield InProcessSandbox(app)
    app.state.sandbox.db.close()


def make_app(h: InProcessSandbox) -> WatchdeckApp:
    settings = Settings(base_url=h.base_url, api_key=h.api_key, project_ids=[h.project_id])
    return WatchdeckApp(settings, clock=FrozenClock(FROZEN_AT), start_mode="surveys", api=h.client())


def body_of(request: dict[str, Any]) -> Any:
    body = request.get("body")
    if isinstance(body, bytes | str) and body:
        return json.loads(body)
    return body


def survey_writes(h: Any, since: int = 0) -> list[dict[str, Any]]:
    """POST/PATCH/PUT requests on surveys the sandbox received after request number ``since``."""
    return [r for r in h.requests()[since:]
            if r["method"] in ("POST", "PATCH", "PUT") and "/surveys/" in r["path"]]


async def create_survey(h: Any, fields: dict[str, Any]) -> Survey:
    """Seed a survey through the client (so it is stored exactly as the server keeps it)."""
    async with h.client() as client:
        return await client.surveys.create(fields)


async def fetch_raw(h: Any, survey_id: str) -> dict[str, Any]:
    """The survey exactly as the server sends it (the test may parse JSON; screens never do)."""
    async with h.client() as client:
        data = await client.request("GET", f"/api/projects/{h.project_id}/surveys/{survey_id}/")
    assert isinstance(data, dict)
    return data


class EditorHarness(App[None]):
    """Opens the editor on a local survey: what the snapshots show, without a server."""

    CSS_PATH = WatchdeckApp.CSS_PATH

    def __init__(self, survey: Survey | None, select: int | None = None) -> None:
        super().__init__()
        self.clock = FrozenClock(FROZEN_AT)
        self.server_clock = ServerClock(self.clock)
        self.settings = Settings(base_url="http://127.0.0.1:9", api_key="unused", project_ids=["1"])
        self.api = ApiClient(self.settings.base_url, "unused", "1")
        self._survey = survey
        self._select = select

    async def on_mount(self) -> None:
        await self.push_screen(SurveyEditorScreen(self._survey, read=False))  # a local survey: not on a server

    async def on_unmount(self) -> None:
        await self.api.aclose()
