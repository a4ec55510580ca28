"""The runs pane's state and the project labels (tui.state.runs_pane), without an app."""

from __future__ import annotations

from datetime import UTC, datetime

from tui.api.models.batch_exports import BatchExportRun
from tui.state.runs_pane import ProjectLabels, RunsPane, runs_window_start


def run(run_id: str) -> BatchExportRun:
    return BatchExportRun.model_validate({"id": run_id, "status": "Completed"})


def test_the_window_starts_seven_days_back_on_a_whole_hour() -> None:
    now = datetime(2026, 11, 25, 18, 47, 12, 5, tzinfo=UTC)
    assert runs_window_start(now) == datetime(2026, 11, 18, 18, 0, tzinfo=UTC)
    assert runs_window_start(now.replace(minute=2)) == runs_window_start(now), "one URL for the whole hour"


def test_older_pages_follow_the_boards_runs_without_repeating_one() -> None:
    pane = RunsPane()
    board_runs = [run("r3"), run("r2")]
    assert pane.shown("1:e1", board_runs) == board_runs and pane.pages("1:e1") is None
    pages = pane.pages_after_window("1:e1", "https://x/runs/?cursor=a")
    assert pages.next_url == "https://x/runs/?cursor=a" and pages.can_load_more
    assert pages.add_page([run("r2"), run("r1")], None) == 2
    assert [r.id for r in pane.shown("1:e1", board_runs)] == ["r3", "r2", "r1"]
    assert pane.pages_after_window("1:e1", "https://x/other") is pages and pages.next_url is None, \
        "a later window's page does not reset the pages read"
    assert pane.shown("1:e2", board_runs) == board_runs


def test_the_cache_is_skipped_once_after_ctrl_r() -> None:
    pane = RunsPane()
    assert pane.take_bypass() is False
    pane.bypass_next = True
    assert (pane.take_bypass(), pane.take_bypass()) == (True, False)


def test_project_labels_name_sections_by_id_until_known() -> None:
    labels = ProjectLabels()
    assert labels.title(["1", "2"]) == "" and labels.section("2") == "project 2"
    labels.know("2", "Acme · staging")
    labels.know("1", "Acme · production")
    assert labels.title(["1", "2"]) == "Acme · production | Acme · staging"
    assert labels.section("2") == "Acme · staging"
