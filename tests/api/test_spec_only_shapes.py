"""Answers the sandbox cannot produce, because it answers as the real service does.

The spec says backfill, pause, unpause and retry answer "200, no body" and
that logs answer "200, no body"; the real service (and so the sandbox) sends a
body. A mock transport serves the spec's form here, and only that (plus a
redirect, which the sandbox never sends).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.ids import uid
from tui.api.client import ApiClient
from tui.api.errors import ApiError, BadResponse

E, R, S = uid("export"), uid("run"), uid("survey")


def _empty_200(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200)


async def test_no_body_answers_of_the_spec() -> None:
    seen: list[tuple[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path))
        return httpx.Response(200)

    async with ApiClient("http://spec.example", "k", "1", transport=httpx.MockTransport(handler)) as api:
        end = datetime(2026, 3, 2, tzinfo=UTC)
        backfill = await api.batch_exports.backfill(E, end - timedelta(hours=1), end)
        paused = await api.batch_exports.pause(E)
        resumed = await api.batch_exports.unpause(E)
        retried = await api.batch_exports.retry_run(E, R)
        summary = await api.surveys.summarize_responses(S)
    assert backfill.backfill_id is None and retried.backfill_id is None
    assert paused.paused is True and resumed.paused is False  # what the operation did, when the server is silent
    assert summary.content is None
    base = f"/api/environments/1/batch_exports/{E}/"
    assert seen == [("POST", base + "backfill/"), ("POST", base + "pause/"), ("POST", base + "unpause/"),
                    ("POST", base + f"runs/{R}/retry/"), ("POST", f"/api/projects/1/surveys/{S}/summarize_responses/")]


async def test_logs_without_a_results_list_is_a_bad_response() -> None:
    async with ApiClient("http://spec.example", "k", "1", transport=httpx.MockTransport(_empty_200)) as api:
        with pytest.raises(BadResponse):
            await api.batch_exports.logs(E)


async def test_older_logs_envelope_and_bare_list_are_read() -> None:
    entry = {"timestamp": "2026-03-02T10:00:01Z", "level": "ERROR", "message": "boom"}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(f"/runs/{R}/logs/"):
            return httpx.Response(200, json=[entry])
        return httpx.Response(200, json={"count": 1, "next": None, "previous": None, "results": [entry, 5]})

    async with ApiClient("http://spec.example", "k", "1", transport=httpx.MockTransport(handler)) as api:
        logs = await api.batch_exports.logs(E)
        run_logs = await api.batch_exports.run_logs(E, R)
    assert [e.message for e in logs] == ["boom"]  # the malformed entry fails alone
    assert [e.level for e in run_logs] == ["ERROR"]


async def test_redirect_is_not_followed_and_says_where() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(301, headers={"location": "https://us.posthog.com/api/projects/1/surveys/"})

    async with ApiClient("https://app.posthog.com", "k", "1", transport=httpx.MockTransport(handler)) as api:
        with pytest.raises(ApiError) as caught:
            await api.surveys.list()
    assert caught.value.status == 301 and "us.posthog.com" in str(caught.value)
    assert seen == ["https://app.posthog.com/api/projects/1/surveys/"]  # the key never went to the other host
