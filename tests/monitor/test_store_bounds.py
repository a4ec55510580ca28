"""Issue 45: every store a wall screen keeps for days has a bound reached within minutes, or a small one: the runs
panes' pages, the runs pages kept per export, the read ranges, the last complete answers of exports deleted since."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from tests.incident.runs import NOW, run
from tests.monitor.conftest import sandbox_call
from tui.api.client import ApiClient
from tui.api.models.batch_exports import BatchExportRun
from tui.sandbox.runner import SandboxHandle
from tui.state.export_board import RUNS_EXPORTS_KEPT, RUNS_KEPT, ExportBoard
from tui.state.io.export_source import ExportsSource
from tui.state.io.journal import ActionJournal
from tui.state.run_history import SPANS_KEPT, RunHistory
from tui.state.run_list import OLDER_RUNS_KEPT, RunPages
from tui.state.runs_pane import PAGES_EXPORTS_KEPT, RunsPane


def runs_of(prefix: str, count: int) -> list[BatchExportRun]:
    return [run(f"{prefix}-{n}", n, "Completed") for n in range(count)]


def test_runs_pages_are_kept_for_the_last_few_exports_read() -> None:
    board = ExportBoard()
    for n in range(RUNS_EXPORTS_KEPT + 6):
        board.store_runs(f"1:e{n}", runs_of(f"e{n}", RUNS_KEPT + 5))
    kept = [f"1:e{n}" for n in range(RUNS_EXPORTS_KEPT + 6) if board.known_run_ids(f"1:e{n}")]
    assert kept == [f"1:e{n}" for n in range(6, RUNS_EXPORTS_KEPT + 6)]
    assert len(board.known_run_ids(kept[-1])) == RUNS_KEPT


def test_older_pages_stop_at_their_bound_and_are_kept_for_the_last_few_exports() -> None:
    pages = RunPages()
    pages.first_page([], "next")
    total = 0
    for _ in range(OLDER_RUNS_KEPT // 100 + 5):
        if pages.can_load_more:
            total += pages.add_page(runs_of(f"p{total}", 100), "next")
    assert len(pages.runs) == OLDER_RUNS_KEPT == total and pages.exhausted
    pane = RunsPane()
    for n in range(PAGES_EXPORTS_KEPT + 3):
        pane.pages_after_window(f"1:e{n}", "next")
    assert [n for n in range(PAGES_EXPORTS_KEPT + 3) if pane.pages(f"1:e{n}")] == list(range(3, PAGES_EXPORTS_KEPT + 3))


def test_read_ranges_with_gaps_keep_only_the_newest() -> None:
    history = RunHistory()
    for n in range(SPANS_KEPT * 3):
        at = NOW - timedelta(hours=2 * n)
        history.add("1:e", [], (at - timedelta(minutes=30), at))
    spans = history.spans("1:e")
    assert len(spans) == SPANS_KEPT and spans[-1][1] == NOW, "the newest ranges stay; the oldest are read again"


async def test_the_last_complete_answer_of_a_deleted_export_is_forgotten(sandbox: SandboxHandle) -> None:
    async with ApiClient(sandbox.base_url, sandbox.api_key, "1") as client:
        source = ExportsSource([client])
        first = await source.fetch()
        gone = first.exports[0].export.id
        headers = {"Authorization": f"Bearer {sandbox.api_key}"}
        response = sandbox_call("DELETE", f"{sandbox.base_url}/api/projects/1/batch_exports/{gone}/", headers=headers)
        assert response.status_code == 204, response.text
        second = await source.fetch()
    assert gone not in {w.export.id for w in second.exports}
    kept = source.learned().last_complete
    assert f"1:{gone}" not in kept and len(kept) == len(second.exports)


def test_the_journal_is_read_from_its_end(tmp_path: Path) -> None:
    journal = ActionJournal(tmp_path / "journal.jsonl")
    assert journal.tail() == []
    journal.path.write_text("".join(json.dumps({"n": n, "pad": "x" * 300}) + "\n" for n in range(20_000)))
    assert [entry["n"] for entry in journal.tail(5)] == [19_995, 19_996, 19_997, 19_998, 19_999]
    assert [entry["n"] for entry in journal.tail()] == list(range(19_800, 20_000))
    journal.path.write_text('{"n": 1}\n{"n": 2}\n')
    assert [entry["n"] for entry in journal.tail()] == [1, 2], "a short journal: every entry, the first too"
