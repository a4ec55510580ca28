"""``watchdeck surveys get ID`` and ``watchdeck surveys apply FILE [--dry-run]``: surveys kept in a repository.

``get`` prints the survey as the file ``apply`` reads (JSON, or YAML with
``--yaml``). ``apply`` checks the file with the editor's rules (exit 1 with the
field paths when it breaks them in a field it changes), prints its notes (``note: path: …``: a text the
service will store cleaned of HTML, "stored as: …"; an unknown key; a value only watchdeck's own checks
question; a value the server already holds that breaks a rule, kept) and the diff against the server's
survey, and then creates it (no ``id`` in the file) or PATCHes the fields that differ.
``--dry-run`` stops after the diff. Exit 1 when the file breaks the rules or the server refuses it, 2 when the
server cannot be asked. ``watchdeck surveys list`` prints each survey's id, name, type and status.
Every write ``apply`` sends is journaled, failed or not, as the survey browser journals its own:
the next person on call reads one journal whichever way a survey was changed.
"""

from __future__ import annotations

import asyncio
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tui.api.cache_context import bypass_cache
from tui.api.client import ApiClient
from tui.api.errors import ApiError, UnreadableAnswer, ValidationFailed, WriteValidationError
from tui.config import Settings
from tui.state.io.journal import ActionJournal
from tui.state.journal_entry import JournalEntry, wall_clock
from tui.state.survey_file import SurveyFileError, document, dumps, loads, plan, yaml_available
from tui.text.clean import clean

if TYPE_CHECKING:
    from tui.api.cache import SharedCache

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_ERROR = 2


def file_format(path: Path, *, yaml: bool = False) -> str:
    return "yaml" if yaml or path.suffix.lower() in (".yaml", ".yml") else "json"


def _client(settings: Settings, cache: SharedCache | None = None) -> ApiClient:
    return ApiClient(settings.base_url, settings.api_key.get_secret_value(), settings.project_id, cache=cache)


def _shared_cache(settings: Settings, err: TextIO) -> SharedCache | None:
    """The dashboards' shared store, so that a write here makes their stored answers stale as theirs do.

    Without it a dashboard would show the survey as it was for most of a poll interval after ``apply``.
    A store this install cannot open (Redis without its package) is said in one line; the write still goes out.
    """
    if not settings.cache:
        return None
    from tui.api.cache import CacheUnavailable, open_shared_cache
    from tui.config.paths import cache_dir

    try:
        return open_shared_cache(settings.cache_url, cache_dir())
    except CacheUnavailable as error:
        err.write(f"watchdeck: shared cache off, dashboards may show the old survey for a moment: {error}\n")
        return None


def get(settings: Settings, survey_id: str, *, yaml: bool = False, out: TextIO | None = None,
        err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if yaml and not yaml_available():
        err.write("watchdeck: --yaml needs the PyYAML package (pip install pyyaml)\n")
        return EXIT_ERROR

    async def fetch() -> str:
        async with _client(settings) as client:
            return file_text(document(await client.surveys.get(survey_id)), "yaml" if yaml else "json")

    try:
        text = asyncio.run(fetch())
    except ApiError as error:
        err.write(f"watchdeck: {clean(str(error), limit=300)}\n")
        return EXIT_ERROR
    out.write(text)
    return EXIT_OK


def file_text(doc: dict[str, Any], fmt: str) -> str:
    """The survey's file: every value exactly as the server holds it (``apply`` of it changes nothing), and no control
    or bidi character raw, on a terminal or in a file a terminal shows later: JSON writes them as ``\\uXXXX``; YAML,
    where a plain scalar cannot hold an escape, is written in ASCII (escapes in quoted scalars) when it has one."""
    text = dumps(doc, fmt)
    if not _TERMINAL_UNSAFE.search(text):
        return text
    if fmt == "json":  # outside its strings JSON text has none of these characters: each is in a string
        return _TERMINAL_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    import yaml as pyyaml

    return str(pyyaml.safe_dump(dict(doc), sort_keys=False, allow_unicode=False))


_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def apply(settings: Settings, path: Path, *, dry_run: bool = False, out: TextIO | None = None,
          err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    fmt = file_format(path)
    if fmt == "yaml" and not yaml_available():
        err.write("watchdeck: a YAML file needs the PyYAML package (pip install pyyaml)\n")
        return EXIT_ERROR
    try:
        doc = loads(path.read_text(encoding="utf-8"), fmt)
    except OSError as error:
        err.write(f"watchdeck: cannot read {clean(str(path), limit=300)}: {error.strerror or error}\n")
        return EXIT_ERROR
    except SurveyFileError as error:
        return _invalid(path, error, err)

    async def run() -> int:
        cache = _shared_cache(settings, err)
        try:
            # Reads ask the server (a diff against another viewer's stored answer could undo a newer change);
            # the write bumps the store's generation for the project, as the dashboard's writes do.
            with bypass_cache():
                return await send(_client(settings, cache))
        finally:
            if cache is not None:
                await cache.aclose()

    async def send(api: ApiClient) -> int:
        async with api as client:
            survey_id = doc.get("id")
            current = await client.surveys.get(survey_id) if isinstance(survey_id, str) and survey_id else None
            todo = plan(doc, current)
            for line in todo.note_lines():
                out.write(clean(line, limit=600) + "\n")
            for line in todo.diff:
                out.write(clean(line, limit=4000) + "\n")
            if todo.empty:
                out.write("No changes: the server's survey is the same as the file.\n")
                return EXIT_OK
            what = "create the survey" if todo.creating else "change " + ", ".join(todo.send)
            if dry_run:
                out.write(f"Dry run: would {what}. Nothing was sent.\n")
                return EXIT_OK
            action = "create" if todo.creating else "edit"
            name = todo.send.get("name") if isinstance(todo.send.get("name"), str) else (
                current.name if current is not None else None)
            detail = {"fields": sorted(todo.send), "via": "surveys apply", "file": str(path)}
            try:
                saved = (await client.surveys.create(todo.send) if todo.creating
                         else await client.surveys.update(todo.survey_id or "", todo.send, todo.existing))
            except WriteValidationError as error:
                _journal(settings, action, todo.survey_id, name, f"refused before sending: {error}", detail)
                raise
            except ApiError as error:
                outcome = "unclear" if isinstance(error, UnreadableAnswer) else "failed"
                _journal(settings, action, todo.survey_id, name, f"{outcome}: {error}", detail)
                raise
            _journal(settings, action, saved.id, saved.name, "ok", detail)
            verb = "Created" if todo.creating else "Updated"
            out.write(f"{verb} survey {clean(saved.name, limit=200)!r} ({saved.id}).\n")
            return EXIT_OK

    try:
        return asyncio.run(run())
    except SurveyFileError as error:
        return _invalid(path, error, err)
    except WriteValidationError as error:
        return _invalid(path, SurveyFileError(error.problems), err)
    except ValidationFailed as error:  # the server was asked, and refused the file's content
        err.write(f"watchdeck: {clean(str(path), limit=300)}: {clean(str(error), limit=300)}\n")
        return EXIT_INVALID
    except ApiError as error:
        err.write(f"watchdeck: {clean(str(error), limit=300)}\n")
        return EXIT_ERROR


def list_surveys(settings: Settings, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Every survey of the project, one a line: id, name, type, status (tab-separated, for scripts)."""
    out, err = out or sys.stdout, err or sys.stderr

    async def fetch() -> list[str]:
        lines: list[str] = []
        now = datetime.now(UTC)
        async with _client(settings) as client:
            async for page in client.surveys.iterate():
                for survey in page.results:
                    fields = (survey.id, survey.name, str(survey.type or ""), survey.status_at(now).value)
                    lines.append("\t".join(clean(field, limit=200).replace("\t", " ") for field in fields))
        return lines

    try:
        lines = asyncio.run(fetch())
    except ApiError as error:
        err.write(f"watchdeck: {clean(str(error), limit=300)}\n")
        return EXIT_ERROR
    out.write("id\tname\ttype\tstatus\n")
    for line in lines:
        out.write(line + "\n")
    return EXIT_OK


def _journal(settings: Settings, action: str, survey_id: str | None, name: str | None, result: str,
             detail: dict[str, Any]) -> None:
    ActionJournal.for_session(demo=settings.demo).append(JournalEntry(
        time=wall_clock(), action=f"survey {action}", result=clean(result, limit=300), profile=settings.profile,
        project=settings.project_id, survey=survey_id, name=name, detail=detail,
    ))


def _invalid(path: Path, error: SurveyFileError, err: TextIO) -> int:
    err.write(f"watchdeck: {clean(str(path), limit=300)} breaks the survey rules; nothing was sent:\n")
    for field_path, message in error.problems.items():  # a path names a key of the file: the file's own text
        err.write(f"  {clean(field_path, limit=200)}: {clean(message, limit=300)}\n")
    return EXIT_INVALID
