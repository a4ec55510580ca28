"""Issue 27, item 11: `watchdeck surveys list` for scripts, and `apply`'s local checks match the server's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.surveys.conftest import survey_writes
from tests.surveys.test_survey_files import watchdeck


def test_list_prints_id_name_type_and_status_of_every_survey(sandbox: Any, tmp_path: Path) -> None:
    done = watchdeck(sandbox, "list", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    header, *lines = done.stdout.splitlines()
    assert header == "id\tname\ttype\tstatus"
    listed = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/?limit=1000",
                       headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False).json()
    assert len(lines) == listed["count"]
    first = listed["results"][0]
    row = next(line.split("\t") for line in lines if line.startswith(first["id"]))
    assert row[2] == first["type"] and row[3] in ("draft", "scheduled", "running", "complete", "archived")


def test_a_banner_survey_is_refused_locally_with_exit_1(sandbox: Any, tmp_path: Path) -> None:
    """The real service's Survey.type choices are popover, widget, external_survey and api (posthog/models/surveys)."""
    (tmp_path / "banner.json").write_text(json.dumps({"name": "Banner", "type": "banner", "questions": [
        {"type": "open", "question": "Anything else?"}]}))
    dry = watchdeck(sandbox, "apply", "banner.json", "--dry-run", tmp_path=tmp_path)
    assert dry.returncode == 1, dry.stderr
    assert "type: must be one of popover, widget, external_survey, api" in dry.stderr
    assert survey_writes(sandbox) == []


def test_a_refusal_by_the_server_is_exit_1_in_one_sentence(sandbox: Any, tmp_path: Path) -> None:
    (tmp_path / "new.json").write_text(json.dumps({"name": "Refused", "type": "popover", "questions": [
        {"type": "open", "question": "Anything else?"}]}))
    httpx.post(f"{sandbox.base_url}/_sandbox/faults",
               json={"kind": "status", "status": 400, "path": "/surveys/$", "count": 1}, verify=False)
    done = watchdeck(sandbox, "apply", "new.json", tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "refused" in done.stderr and not done.stderr.rstrip().endswith(".."), done.stderr
