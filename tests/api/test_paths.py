"""A server's id never chooses a request path: every operation's path, as the sandbox received it.

Every read and write the client makes is sent with ids of the service's shape (the exact paths arrive) and with
hostile ids in each id's place (refused: ``UnexpectedId``, and nothing reaches the server). A ``next`` link
gives a page's query only, never its path.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.api.helpers import Sandbox, Wire
from tests.ids import uid
from tui.api.client import ApiClient
from tui.api.errors import ApiError, UnexpectedId

E, R, B, S = uid("export"), uid("run"), uid("backfill"), uid("survey")
END = datetime(2026, 3, 2, 11, tzinfo=UTC)
HOSTILE = ["..", "/", "%2e%2e", "?", "#", "", "http://evil/x", f"../batch_exports/{E}", f"{E}/../../{E}",
           f"{E}?x=1", f"{E}#x", f" {E}", E.upper().replace("-", "")]

Call = Callable[[ApiClient, dict[str, str]], Awaitable[Any]]

# Every operation that takes an id: (its name, the call with ids from ``i``, the requests it makes for unknown ids
# of the right shape as (method, path after /api/), the ids it takes).
OPERATIONS: list[tuple[str, Call, list[tuple[str, str]], tuple[str, ...]]] = [
    ("survey get", lambda a, i: a.surveys.get(i["s"]), [("GET", "projects/{p}/surveys/{s}/")], ("p", "s")),
    ("survey update", lambda a, i: a.surveys.update(i["s"], {"name": "n"}),
     [("PATCH", "projects/{p}/surveys/{s}/")], ("p", "s")),
    ("survey delete", lambda a, i: a.surveys.delete(i["s"]), [("DELETE", "projects/{p}/surveys/{s}/")], ("p", "s")),
    ("survey activity", lambda a, i: a.surveys.activity(i["s"]),
     [("GET", "projects/{p}/surveys/{s}/activity/")], ("p", "s")),
    ("survey stats", lambda a, i: a.surveys.stats(i["s"]), [("GET", "projects/{p}/surveys/{s}/stats/")], ("p", "s")),
    ("survey summary", lambda a, i: a.surveys.summarize_responses(i["s"]),
     [("POST", "projects/{p}/surveys/{s}/summarize_responses/")], ("p", "s")),
    ("survey list", lambda a, i: a.surveys.list(), [("GET", "projects/{p}/surveys/")], ("p",)),
    ("all activity", lambda a, i: a.surveys.activity(None, max_items=1),
     [("GET", "projects/{p}/surveys/activity/")], ("p",)),
    ("responses count", lambda a, i: a.surveys.responses_count(),
     [("GET", "projects/{p}/surveys/responses_count/")], ("p",)),
    ("project", lambda a, i: a.projects.get(i["p"]), [("GET", "projects/{p}/")], ("p",)),
    ("export list", lambda a, i: a.batch_exports.list(), [("GET", "environments/{p}/batch_exports/")], ("p",)),
    ("export get", lambda a, i: a.batch_exports.get(i["e"]),
     [("GET", "environments/{p}/batch_exports/{e}/")], ("p", "e")),
    ("export update", lambda a, i: a.batch_exports.update(i["e"], {"name": "n"}),
     [("PATCH", "environments/{p}/batch_exports/{e}/")], ("p", "e")),
    ("export delete", lambda a, i: a.batch_exports.delete(i["e"]),
     [("DELETE", "environments/{p}/batch_exports/{e}/")], ("p", "e")),
    ("pause", lambda a, i: a.batch_exports.pause(i["e"]),
     [("POST", "environments/{p}/batch_exports/{e}/pause/")], ("p", "e")),
    ("unpause", lambda a, i: a.batch_exports.unpause(i["e"]),
     [("POST", "environments/{p}/batch_exports/{e}/unpause/")], ("p", "e")),
    ("runs", lambda a, i: a.batch_exports.runs(i["e"]),
     [("GET", "environments/{p}/batch_exports/{e}/runs/")], ("p", "e")),
    ("backfill", lambda a, i: a.batch_exports.backfill(i["e"], END - timedelta(hours=1), END),
     [("POST", "environments/{p}/batch_exports/{e}/backfill/"),
      ("POST", "environments/{p}/batch_exports/{e}/backfills/")], ("p", "e")),
    ("backfills", lambda a, i: a.batch_exports.backfills(i["e"]),
     [("GET", "environments/{p}/batch_exports/{e}/backfills/")], ("p", "e")),
    ("cancel backfill", lambda a, i: a.batch_exports.cancel_backfill(i["e"], i["b"]),
     [("POST", "environments/{p}/batch_exports/{e}/backfills/{b}/cancel/")], ("p", "e", "b")),
    ("retry run", lambda a, i: a.batch_exports.retry_run(i["e"], i["r"]),
     [("POST", "environments/{p}/batch_exports/{e}/runs/{r}/retry/")], ("p", "e", "r")),
    ("cancel run", lambda a, i: a.batch_exports.cancel_run(i["e"], i["r"]),
     [("POST", "environments/{p}/batch_exports/{e}/runs/{r}/cancel/")], ("p", "e", "r")),
    ("export logs", lambda a, i: a.batch_exports.logs(i["e"]),
     [("GET", "environments/{p}/batch_exports/{e}/logs/")], ("p", "e")),
    ("run logs", lambda a, i: a.batch_exports.run_logs(i["e"], i["r"]),
     [("GET", "environments/{p}/batch_exports/{e}/runs/{r}/logs/")], ("p", "e", "r")),
]
NAMES = [name for name, *_ in OPERATIONS]


async def _run(api: ApiClient, call: Call, ids: dict[str, str]) -> None:
    try:
        await call(api, ids)
    except UnexpectedId:
        raise
    except ApiError:
        pass  # unknown ids: the server's 404 (or another refusal) is not what is checked here


def _sent(sandbox: Sandbox, wire: Wire) -> list[tuple[str, str]]:
    received = [(r["method"], r["path"]) for r in sandbox.requests()]
    on_wire = [(r.method, r.url.raw_path.decode().partition("?")[0]) for r in wire.sent]
    assert received == on_wire, "the server received the paths as they were sent, nothing re-encoded"
    return received


@pytest.mark.parametrize("name", NAMES)
async def test_ids_of_the_service_shape_go_to_exactly_their_path(name: str, sandbox: Sandbox, wire: Wire,
                                                                 api: ApiClient) -> None:
    _, call, expected, _ = OPERATIONS[NAMES.index(name)]
    ids = {"p": sandbox.project_id, "e": E, "r": R, "b": B, "s": S}
    await _run(api, call, ids)
    assert _sent(sandbox, wire) == [(method, "/api/" + path.format(**ids)) for method, path in expected]


@pytest.mark.parametrize("name", NAMES)
async def test_a_hostile_id_in_any_place_is_refused_and_nothing_is_sent(name: str, sandbox: Sandbox, wire: Wire,
                                                                        api: ApiClient) -> None:
    _, call, _, takes = OPERATIONS[NAMES.index(name)]
    good = {"p": sandbox.project_id, "e": E, "r": R, "b": B, "s": S}
    for place in takes:
        for hostile in HOSTILE:
            ids = {**good, place: hostile}
            client = api if place != "p" else ApiClient(sandbox.base_url, sandbox.api_key, hostile, transport=wire)
            with pytest.raises(UnexpectedId) as refused:
                await _run(client, call, ids)
            if client is not api:
                await client.aclose()
            assert "Nothing was sent" in str(refused.value) and refused.value.short == "unexpected id"
            assert all(0x20 <= ord(ch) < 0x7F or ch == "…" for ch in str(refused.value))
    assert _sent(sandbox, wire) == []


async def test_a_next_link_gives_the_query_never_the_path(sandbox: Sandbox, wire: Wire, api: ApiClient) -> None:
    """A hostile ``next`` (another host, another object's path) still asks the same list, at its own path."""
    surveys = f"/api/projects/{sandbox.project_id}/surveys/"
    page = {"count": 2, "previous": None, "results": [],
            "next": f"http://evil.example/api/environments/1/batch_exports/{E}/?limit=1&offset=1"}
    sandbox.fault(kind="body", path=r"/surveys/$", body=json.dumps(page), count=1)
    pages = 0
    async for _ in api.surveys.iterate(page_size=1):
        pages += 1
        if pages == 2:
            break
    assert [(r["method"], r["path"], r["query"]) for r in sandbox.requests()] == [
        ("GET", surveys, "limit=1&offset=0"), ("GET", surveys, "limit=1&offset=1")]
    assert {r.url.host for r in wire.sent} == {"127.0.0.1"}

    sandbox.clean()
    hostile = f"http://evil.example/api/environments/1/batch_exports/{E}/../../../x/?cursor=abc"
    for follow in (api.batch_exports.runs, api.batch_exports.backfills):
        with pytest.raises(ApiError):  # no such export: what matters is where the request went
            await follow(E, next_url=hostile)
    runs = f"/api/environments/{sandbox.project_id}/batch_exports/{E}/"
    assert [(r["path"], r["query"]) for r in sandbox.requests()] == [
        (runs + "runs/", "cursor=abc"), (runs + "backfills/", "cursor=abc")]


async def test_a_watched_export_id_of_another_shape_is_a_note_not_a_failed_poll(sandbox: Sandbox, wire: Wire,
                                                                               api: ApiClient) -> None:
    """An id in the profile's exports that is no export id: never asked for; the poll shows the rest and says so."""
    from tui.state.io.export_source import ExportsSource

    snapshot = await ExportsSource([api], extra_ids=[f"../batch_exports/{E}"]).fetch()
    assert snapshot.exports, "the project's exports still show"
    assert [n for n in snapshot.notes if "not asked for" in n] == [
        f"watched export not asked for: Refused an id of an unexpected shape: export ids are UUIDs, "
        f"not '../batch_exports/{E}'. Nothing was sent."]
    assert _sent(sandbox, wire) == [("GET", f"/api/environments/{sandbox.project_id}/batch_exports/")]


def test_an_item_with_an_id_of_another_shape_is_a_bad_item_of_its_page() -> None:
    """Reported with the page's other bad items (a malformed one here); the good items still read."""
    from tui.api.models.batch_exports import BatchExport
    from tui.api.models.common import parse_page

    run = {"id": R, "status": "Completed"}
    page = parse_page({"count": 5, "next": None, "results": [
        {"id": E, "latest_runs": [run]},
        {"id": f"../batch_exports/{E}"},
        {"id": uid("two"), "latest_runs": [{**run, "id": "../x"}]},
        {"id": uid("three"), "paused": "maybe"},
        {"id": 7},
    ]}, BatchExport)
    assert [e.id for e in page.results] == [E]
    assert [(error.index, error.message.split(":")[0]) for error in page.errors] == [
        (1, "id"), (2, "latest_runs.0.id"), (3, "paused"), (4, "id")]
    assert "export ids are UUIDs" in page.errors[0].message


async def test_an_older_server_answers_a_workflow_id_but_names_the_backfill_by_its_uuid(older: Sandbox) -> None:
    """posthog/batch_exports/models.py: BatchExportBackfill is a UUIDModel; only the older create's answer is its
    Temporal workflow id. The list names it by its UUID, which the client can cancel it by."""
    async with ApiClient(older.base_url, older.api_key, older.project_id) as api:
        export = next(e for e in (await api.batch_exports.list()).results if e.interval == "hour" and not e.paused
                      and e.end_at is None)
        end = datetime(2026, 3, 2, 10, tzinfo=UTC)
        result = await api.batch_exports.backfill(export.id, end - timedelta(hours=3), end)
        assert result.backfill_id == f"{export.id}-Backfill-{(end - timedelta(hours=3)).isoformat()}-{end.isoformat()}"
        page = await api.batch_exports.backfills(export.id)
        assert page.errors == [] and page.results
        newest = page.results[0]
        assert newest.start_at == end - timedelta(hours=3) and len(newest.id) == 36
        assert (await api.batch_exports.cancel_backfill(export.id, newest.id)).cancelled is not False
