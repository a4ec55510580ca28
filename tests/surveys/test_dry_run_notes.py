"""``watchdeck surveys apply --dry-run`` says, before sending, what the service will store other than what the file
holds (its HTML cleaning, "stored as: …") and which nested keys it does not know, with the closest known key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.surveys.conftest import survey_writes
from tests.surveys.test_survey_files import _first_survey_id, watchdeck


def test_dry_run_says_stored_as_and_did_you_mean_and_sends_nothing(sandbox: Any, tmp_path: Path) -> None:
    survey_id = _first_survey_id(sandbox, tmp_path)
    got = watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path)
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    doc["questions"][0]["question"] = "Would you use <Feature X> if it cost < $5 & took >2 min?"
    doc["conditions"] = {**(doc.get("conditions") or {}), "urlMatchTyp": "exact"}
    (tmp_path / "s.json").write_text(json.dumps(doc))
    before = len(survey_writes(sandbox))
    done = watchdeck(sandbox, "apply", "s.json", "--dry-run", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if line.startswith("note: ")]
    assert notes == [
        'note: questions[0].question: the service cleans HTML here; stored as: '
        '"Would you use  if it cost &lt; $5 &amp; took &gt;2 min?"',
        "note: conditions.urlMatchTyp: not a key the service knows; did you mean urlMatchType?"], done.stdout
    assert done.stdout.rstrip().endswith("Nothing was sent.")
    assert len(survey_writes(sandbox)) == before
