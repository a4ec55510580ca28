"""Surveys as files: ``watchdeck surveys get`` / ``apply`` run as commands against the sandbox over loopback.

The command runs by its entry point in the test's process; hostile files go to a process of its own."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.surveys.conftest import survey_writes
from tui.cli.main import main
from tui.state.survey_file import SurveyFileError, check, loads, validate, with_errors

ROOT = Path(__file__).resolve().parents[2]


def _env(sandbox: Any, tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "WATCHDECK_API_KEY": sandbox.api_key,
            "WATCHDECK_CONFIG_DIR": str(tmp_path / "config"), "WATCHDECK_STATE_DIR": str(tmp_path / "state"),
            "WATCHDECK_DATA_DIR": str(tmp_path / "data"), "WATCHDECK_CACHE_DIR": str(tmp_path / "cache")}


def watchdeck(sandbox: Any, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``watchdeck surveys ARGS`` by the command's own entry (``tui.cli.main.main``, given its environment) in this
    process, in ``tmp_path``: its exit code and what it wrote to stdout and stderr (neither a terminal)."""
    argv = ["surveys", *args, "--base-url", sandbox.base_url, "--project", sandbox.project_id]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(tmp_path), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv, _env(sandbox, tmp_path))
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def watchdeck_process(sandbox: Any, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``python -m tui surveys ARGS`` in a process of its own: for input that must not take the tests down if a
    parser ever gave in to it (a blow-up in memory or depth), bounded by a timeout."""
    return subprocess.run([sys.executable, "-m", "tui", "surveys", *args, "--base-url", sandbox.base_url,
                           "--project", sandbox.project_id], capture_output=True, text=True,
                          env=_env(sandbox, tmp_path), cwd=tmp_path, timeout=60, check=False)


def _journal(tmp_path: Path) -> list[dict[str, Any]]:
    journal = tmp_path / "data" / "journal.jsonl"
    return [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []


def _first_survey_id(sandbox: Any, tmp_path: Path) -> str:
    response = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/",
                         headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False)
    return str(response.json()["results"][0]["id"])


def test_get_prints_the_file_and_apply_of_it_changes_nothing(sandbox: Any, tmp_path: Path) -> None:
    survey_id = _first_survey_id(sandbox, tmp_path)
    got = watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path)
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    assert doc["id"] == survey_id and isinstance(doc["questions"], list)
    (tmp_path / "s.json").write_text(got.stdout)
    applied = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert "No changes" in applied.stdout
    assert survey_writes(sandbox) == []


def test_apply_patches_only_the_changed_fields_and_prints_the_diff(sandbox: Any, tmp_path: Path) -> None:
    survey_id = _first_survey_id(sandbox, tmp_path)
    doc = json.loads(watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path).stdout)
    doc["name"] = "Renamed in git"
    (tmp_path / "s.json").write_text(json.dumps(doc, indent=2))
    dry = watchdeck(sandbox, "apply", "s.json", "--dry-run", tmp_path=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert '+  "name": "Renamed in git",' in dry.stdout and "Dry run: would change name." in dry.stdout
    assert survey_writes(sandbox) == []
    done = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    writes = survey_writes(sandbox)
    assert [(w["method"], w["body"]) for w in writes] == [("PATCH", {"name": "Renamed in git"})]
    assert [(e["action"], e["survey"], e["name"], e["result"]) for e in _journal(tmp_path)] == [
        ("survey edit", survey_id, "Renamed in git", "ok")], "the dry run is not journaled; the write is"


def test_apply_journals_a_write_the_server_refused(sandbox: Any, tmp_path: Path) -> None:
    (tmp_path / "new.json").write_text(json.dumps({"name": "Created while the server fails", "type": "popover",
                                                   "questions": [{"type": "open", "question": "Anything else?"}]}))
    httpx.post(f"{sandbox.base_url}/_sandbox/faults",
               json={"kind": "status", "status": 500, "path": "/surveys/$", "count": 1}, verify=False)
    done = watchdeck(sandbox, "apply", "new.json", tmp_path=tmp_path)
    assert done.returncode == 2 and [w["method"] for w in survey_writes(sandbox)] == ["POST"]
    [entry] = _journal(tmp_path)
    assert (entry["action"], entry.get("survey"), entry["name"]) == ("survey create", None,
                                                                 "Created while the server fails")
    assert entry["result"].startswith("failed: ") and "questions" in entry["detail"]["fields"]


def test_apply_without_an_id_creates(sandbox: Any, tmp_path: Path) -> None:
    (tmp_path / "new.json").write_text(json.dumps({"name": "From a file", "type": "popover", "questions": [
        {"type": "open", "question": "Anything else?"}]}))
    done = watchdeck(sandbox, "apply", "new.json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [w["method"] for w in survey_writes(sandbox)] == ["POST"]
    assert "Created survey 'From a file'" in done.stdout


def test_apply_refuses_a_file_that_breaks_the_rules_with_field_paths(sandbox: Any, tmp_path: Path) -> None:
    """A blank name and an unknown field are refused; a rating ``scale: 4`` is not (the real service's
    validate_questions checks no scale, and stores it): it is a note."""
    (tmp_path / "bad.json").write_text(json.dumps({"name": "", "questions": [
        {"type": "rating", "question": "Rate", "display": "number", "scale": 4}], "nmae": "typo"}))
    done = watchdeck(sandbox, "apply", "bad.json", tmp_path=tmp_path)
    assert done.returncode == 1
    assert "name:" in done.stderr and "nmae: unknown field" in done.stderr and "scale" not in done.stderr
    assert survey_writes(sandbox) == []
    (tmp_path / "bad.json").write_text(json.dumps({"name": f"Scale four {uuid.uuid4().hex[:8]}", "type": "popover",
                                                   "questions": [{"type": "rating", "question": "Rate",
                                                                  "display": "number", "scale": 4}]}))
    done = watchdeck(sandbox, "apply", "bad.json", "--dry-run", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ("note: questions[0].scale: the SDK draws scales 3, 5, 7, 10 (the service stores this one as it is)"
            in done.stdout.splitlines())


def test_yaml_files_round_trip(sandbox: Any, tmp_path: Path) -> None:
    survey_id = _first_survey_id(sandbox, tmp_path)
    got = watchdeck(sandbox, "get", survey_id, "--yaml", tmp_path=tmp_path)
    assert got.returncode == 0, got.stderr
    (tmp_path / "s.yaml").write_text(got.stdout)
    applied = watchdeck(sandbox, "apply", "s.yaml", tmp_path=tmp_path)
    assert applied.returncode == 0 and "No changes" in applied.stdout


def test_errors_go_to_the_top_as_comments_and_are_dropped_on_reading() -> None:
    text = with_errors('{\n  "name": ""\n}\n', {"name": "a name is required"})
    assert text.startswith("// watchdeck: fix these")
    assert "//   name: a name is required" in text
    doc = loads(text)
    with pytest.raises(SurveyFileError) as caught:
        validate({**doc, "id": None})
    assert "name" in caught.value.problems


def _survey_with_flag(sandbox: Any) -> str:
    response = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/", params={"limit": 200},
                         headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False)
    return next(str(s["id"]) for s in response.json()["results"] if s.get("linked_flag"))


def test_apply_refuses_what_the_real_service_refuses_in_its_words(sandbox: Any, tmp_path: Path) -> None:
    """products/surveys/backend/api/survey.py: validation rules (min above max) and translation language codes
    (newest) are refused before anything is sent, each at its field path, in the real service's words."""
    survey_id = _first_survey_id(sandbox, tmp_path)
    doc = json.loads(watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path).stdout)
    doc["questions"][0]["validation"] = [{"type": "min_length", "value": 50}, {"type": "max_length", "value": 10}]
    doc["questions"][0]["translations"] = {"english": {"question": "Same again"}}
    (tmp_path / "s.json").write_text(json.dumps(doc))
    done = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "questions[0].validation: Minimum length cannot be greater than maximum length" in done.stderr
    assert "questions[0].translations: Question 1 translation: 'english' is not a valid language code." in done.stderr
    assert survey_writes(sandbox) == []


def test_apply_of_a_variant_condition_sends_its_flag_along(sandbox: Any, tmp_path: Path) -> None:
    """validate(): linkedFlagVariant is judged against the linked_flag_id of the same request, so the PATCH of the
    conditions carries the survey's flag; a file whose survey has no flag is refused before sending."""
    survey_id = _survey_with_flag(sandbox)
    doc = json.loads(watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path).stdout)
    doc["conditions"] = {"linkedFlagVariant": "any"}
    (tmp_path / "s.json").write_text(json.dumps(doc))
    done = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    [write] = survey_writes(sandbox)
    assert write["method"] == "PATCH" and write["body"] == {"conditions": {"linkedFlagVariant": "any"},
                                                             "linked_flag_id": doc["linked_flag_id"]}
    (tmp_path / "new.json").write_text(json.dumps({"name": "Variant, no flag", "type": "popover", "questions": [
        {"type": "open", "question": "Hi?"}], "conditions": {"linkedFlagVariant": "any"}}))
    refused = watchdeck(sandbox, "apply", "new.json", tmp_path=tmp_path)
    assert refused.returncode == 1
    assert "conditions: linkedFlagVariant can only be used when a linked_flag_id is specified" in refused.stderr
    assert len(survey_writes(sandbox)) == 1


BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(8)]
    + ["name: *i", "questions: []"]) + "\n"


@pytest.mark.parametrize(("name", "text", "said"), [
    ("laughs.yaml", BILLION_LAUGHS, "expands to more than a survey can hold"),
    ("deep.json", "[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
    ("deep.yaml", "a: " + "[" * 5_000 + "]" * 5_000 + "\n", "nested deeper than 64 levels"),
    ("deeper.json", json.dumps({"name": "x", "appearance": json.loads("[" * 70 + "]" * 70)}),
     "nested deeper than 64 levels"),
], ids=["billion-laughs", "deep-json", "deep-yaml", "json-past-the-limit"])
def test_apply_refuses_a_hostile_file_as_bad_input(sandbox: Any, tmp_path: Path, name: str, text: str,
                                                  said: str) -> None:
    """Aliases that expand to a billion values, and nesting past the parser's depth, are bad input (exit 1).

    The YAML files run in a process of their own (a parser in Python that gave in to them would blow up in memory
    or depth); JSON is read by the standard library's C parser, which refuses depth past the interpreter's limit
    itself, so those run by the command's own entry in this process."""
    (tmp_path / name).write_text(text)
    run = watchdeck if name.endswith(".json") else watchdeck_process
    done = run(sandbox, "apply", name, tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert survey_writes(sandbox) == []


def test_json_nesting_is_counted_before_parsing_and_brackets_in_strings_are_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nesting is counted before the file is parsed (the parser would recurse as deep first, near the interpreter's
    limit, where a collector's finalizer fails): brackets in a string, an escaped quote before them, are not
    counted, and a string that never ends ends the count."""
    name = 'say \\"' + "[" * 100 + "{" * 100
    assert loads(json.dumps({"name": name, "questions": []})) == {"name": name, "questions": []}

    def parse(text: str) -> Any:
        raise AssertionError("too deep a file was given to the parser")

    monkeypatch.setattr(json, "loads", parse)
    for depth in (65, 100_000):
        with pytest.raises(SurveyFileError) as refused:
            loads('{"name": "x", "appearance": ' + "[" * depth + "]" * depth + "}")
        assert refused.value.problems == {"(file)": "nested deeper than 64 levels"}
    monkeypatch.undo()
    with pytest.raises(SurveyFileError) as unended:
        loads('{"name": "' + "[" * 100_000)
    assert unended.value.problems["(file)"].startswith("not valid JSON")


def test_yaml_nesting_is_counted_before_the_document_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nesting is counted from the parser's events, in flow style (brackets) and block style (indents) alike,
    before the document is built (which recurses once per level)."""
    import yaml

    def block(depth: int) -> str:
        return "".join(f"{'  ' * level}a:\n" for level in range(depth - 1)) + f"{'  ' * (depth - 1)}a: 1\n"

    at_the_limit = "name: x\nappearance: " + "[" * 63 + "]" * 63 + "\n"
    assert loads(at_the_limit, "yaml")["appearance"] is not None
    assert loads(block(64), "yaml") is not None

    def build(text: str) -> Any:
        raise AssertionError("too deep a file was given to the builder")

    monkeypatch.setattr(yaml, "safe_load", build)
    for text in ("name: x\nappearance: " + "[" * 64 + "]" * 64 + "\n", "a: " + "[" * 100_000 + "]" * 100_000,
                 block(65), block(2_000)):
        with pytest.raises(SurveyFileError) as refused:
            loads(text, "yaml")
        assert refused.value.problems == {"(file)": "nested deeper than 64 levels"}
    with pytest.raises(SurveyFileError) as broken:
        loads("a: [1, 2\n", "yaml")
    assert broken.value.problems["(file)"].startswith("not valid YAML")


def test_get_to_a_terminal_escapes_control_and_bidi_characters(sandbox: Any, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """To a terminal the C1 and bidi characters of a survey's text are written as ``\\uXXXX``; to a file as is."""
    import io

    from tui.cli.surveys import get
    from tui.config import Settings

    for name in ("STATE", "DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    hostile = "Name \x9b2J \x9d0;t\x9c \u202eevil 全角"
    created = httpx.post(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/",
                         headers={"Authorization": f"Bearer {sandbox.api_key}"},
                         json={"name": hostile, "type": "popover", "questions": [{"type": "open", "question": "Q"}]},
                         verify=False)
    assert created.status_code == 201, created.text

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                        cache=False)
    shown, to_file = Terminal(), io.StringIO()
    assert get(settings, created.json()["id"], out=shown) == 0
    assert get(settings, created.json()["id"], out=to_file) == 0
    assert not any(ch in shown.getvalue() for ch in "\x9b\x9d\x9c\u202e")
    assert "\\u009b2J" in shown.getvalue() and "全角" in shown.getvalue()
    assert json.loads(to_file.getvalue())["name"] == hostile


def _all_surveys(sandbox: Any) -> list[dict[str, Any]]:
    response = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/", params={"limit": 500},
                         headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False)
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def test_get_then_apply_is_no_change_for_every_seeded_survey(sandbox: Any, tmp_path: Path) -> None:
    """Each survey the sandbox seeds, written by ``get`` and applied back: "No changes", exit 0, nothing sent. The
    file holds every field the server does, ``form_content`` and an empty ``conditions.url`` included."""
    surveys = _all_surveys(sandbox)
    assert len(surveys) >= 10
    assert any((s.get("conditions") or {}).get("url") == "" for s in surveys), "the seed has an empty URL"
    for survey in surveys:
        got = watchdeck(sandbox, "get", survey["id"], tmp_path=tmp_path)
        assert got.returncode == 0, got.stderr
        doc = json.loads(got.stdout)
        assert "form_content" in doc
        if isinstance(survey.get("conditions"), dict) and "url" in survey["conditions"]:
            assert doc["conditions"]["url"] == survey["conditions"]["url"], survey["name"]
        (tmp_path / "s.json").write_text(got.stdout)
        applied = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
        assert (applied.returncode, applied.stderr) == (0, ""), survey["name"]
        assert applied.stdout.splitlines()[-1] == "No changes: the server's survey is the same as the file.", (
            survey["name"], applied.stdout)
    assert survey_writes(sandbox) == []


def test_a_value_stored_through_the_api_does_not_stop_a_name_change(sandbox: Any, tmp_path: Path) -> None:
    """A ``startswith`` URL match type stored through the API (the real service stores any: validate_conditions
    checks only that conditions is an object): ``get``, a new name, ``apply`` in a process of its own: exit 0, the
    value noted and kept, only the name sent."""
    survey_id = next(s["id"] for s in _all_surveys(sandbox) if s.get("conditions"))
    url = f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/{survey_id}/"
    headers = {"Authorization": f"Bearer {sandbox.api_key}"}
    conditions = {**httpx.get(url, headers=headers, verify=False).json()["conditions"], "urlMatchType": "startswith"}
    assert httpx.patch(url, json={"conditions": conditions}, headers=headers, verify=False).status_code == 200
    before = len(survey_writes(sandbox))
    got = watchdeck_process(sandbox, "get", survey_id, tmp_path=tmp_path)
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    doc["name"] = f"Renamed {uuid.uuid4().hex[:8]}"
    (tmp_path / "s.json").write_text(json.dumps(doc))
    applied = watchdeck_process(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert "note: conditions.urlMatchType: the SDK knows" in applied.stdout
    [write] = survey_writes(sandbox)[before:]
    assert write["body"] == {"name": doc["name"]}
    assert httpx.get(url, headers=headers, verify=False).json()["conditions"]["urlMatchType"] == "startswith"


def test_a_held_value_that_breaks_a_rule_is_kept_with_a_note() -> None:
    """A problem in a field the server already holds as the file has it (a negative popup delay stored by an older
    server) is a note, never a refusal; the same value typed into the file as a change is refused."""
    held = {"name": "Held", "appearance": {"surveyPopupDelaySeconds": -1}}
    body, notes = check({"id": "s1", **held, "name": "Renamed"}, {}, held)
    assert body["appearance"] == {"surveyPopupDelaySeconds": -1}
    assert notes == {"appearance.surveyPopupDelaySeconds":
                     "kept as the server holds it, though it breaks a rule: must be a number, 0 or more"}
    with pytest.raises(SurveyFileError) as refused:
        check({"id": "s1", **held}, {}, {"name": "Held", "appearance": {}})
    assert list(refused.value.problems) == ["appearance.surveyPopupDelaySeconds"]
