"""A write by any viewer makes every viewer's cached answers about its project stale, at once.

The reader's answers are fresh in the shared store (a TTL of a minute); after the
write its next reads must reach the server. The control case (no write) shows
the same reads are answered from the store, so each case can fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import pytest

from tests.cache.conftest import NOW, sent
from tests.cache.test_shared_answers import Viewer, viewer  # noqa: F401 (the fixture)
from tui.api.cache import open_shared_cache
from tui.api.client import ApiClient
from tui.api.errors import NotFound
from tui.api.models.batch_exports import BatchExport
from tui.api.models.surveys import Survey
from tui.cli import surveys as surveys_cmd
from tui.config import Settings
from tui.config.paths import cache_dir
from tui.sandbox.runner import SandboxHandle

Write = Callable[[ApiClient, list[BatchExport], list[Survey]], Awaitable[object]]


async def _nothing(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> None:
    return None


async def _pause(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.batch_exports.pause(next(e for e in exports if not e.paused).id)


async def _unpause(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.batch_exports.unpause(next(e for e in exports if e.paused).id)


async def _backfill(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.batch_exports.backfill(exports[0].id, NOW - timedelta(hours=3), NOW - timedelta(hours=2))


async def _retry(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    export = next(e for e in exports if e.latest_runs)
    return await writer.batch_exports.retry_run(export.id, export.latest_runs[0].id)


async def _edit(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.batch_exports.update(exports[0].id, {"name": "renamed by another viewer"})


async def _delete(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.batch_exports.delete(exports[0].id)


async def _survey_create(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.surveys.create({"name": "made by another viewer", "type": "popover", "questions": [
        {"type": "open", "question": "Anything else?"}]})


async def _survey_edit(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.surveys.update(surveys[0].id, {"name": "renamed by another viewer"})


async def _survey_delete(writer: ApiClient, exports: list[BatchExport], surveys: list[Survey]) -> object:
    return await writer.surveys.delete(surveys[0].id)


WRITES: dict[str, tuple[Write, int]] = {  # name: (write, GETs the reader's second round must send)
    "nothing": (_nothing, 0),
    "pause": (_pause, 3),
    "unpause": (_unpause, 3),
    "backfill": (_backfill, 3),
    "retry": (_retry, 3),
    "edit": (_edit, 3),
    "delete": (_delete, 3),
    "survey create": (_survey_create, 3),
    "survey edit": (_survey_edit, 3),
    "survey delete": (_survey_delete, 3),
}


async def _read_everything(reader: ApiClient, export_id: str) -> tuple[list[BatchExport], list[Survey]]:
    exports = (await reader.batch_exports.list()).results
    surveys = (await reader.surveys.list()).results
    with contextlib.suppress(NotFound):  # the export was deleted: the server said so, which is the point
        await reader.batch_exports.runs(export_id)
    return exports, surveys


@pytest.mark.parametrize("name", list(WRITES))
async def test_a_write_by_another_viewer_makes_the_readers_answers_stale(
        name: str, sandbox: SandboxHandle, viewer: Viewer) -> None:  # noqa: F811 (the fixture)
    write, expected = WRITES[name]
    reader, writer = viewer(sandbox), viewer(sandbox)
    first_id = (await writer.batch_exports.list()).results[0].id
    exports, surveys = await _read_everything(reader, first_id)
    before = len(sent(sandbox))
    await write(writer, exports, surveys)
    after_write = len(sent(sandbox))
    changed_exports, changed_surveys = await _read_everything(reader, first_id)
    assert len(sent(sandbox)) - after_write == expected
    if name == "edit":
        assert any(e.name == "renamed by another viewer" for e in changed_exports)
    if name == "survey delete":
        assert surveys[0].id not in {s.id for s in changed_surveys}
    assert before <= after_write


def test_surveys_apply_makes_every_viewers_survey_answers_stale(sandbox: SandboxHandle, tmp_path: Path) -> None:
    """``watchdeck surveys apply`` writes like the dashboard does: the viewers' stored survey list goes stale."""
    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                        cache=True)

    async def read_surveys() -> list[Survey]:
        cache = open_shared_cache(None, cache_dir())
        cache.ttl = 60.0
        try:
            async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, cache=cache) as viewer:
                return (await viewer.surveys.list()).results
        finally:
            await cache.aclose()

    def survey_lists() -> int:
        return len([r for r in sent(sandbox) if r["path"].endswith("/surveys/")])

    first = asyncio.run(read_surveys())
    asyncio.run(read_surveys())
    assert survey_lists() == 1, "control: the second viewer's read is the stored answer"
    file_text = io.StringIO()
    assert surveys_cmd.get(settings, first[0].id, out=file_text) == surveys_cmd.EXIT_OK
    doc = json.loads(file_text.getvalue())
    doc["name"] = "Renamed in git"
    (tmp_path / "s.json").write_text(json.dumps(doc), encoding="utf-8")
    errors = io.StringIO()
    assert surveys_cmd.apply(settings, tmp_path / "s.json", out=io.StringIO(), err=errors) == surveys_cmd.EXIT_OK
    assert errors.getvalue() == ""
    after = asyncio.run(read_surveys())
    assert survey_lists() == 2, "the viewers' stored list went stale with the write"
    assert any(s.name == "Renamed in git" for s in after)
