"""Every file watchdeck writes is 0600 and every folder it makes 0700, whatever the umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tui.api.cache import open_sqlite_cache
from tui.app import WatchdeckApp
from tui.cli.main import _log_crash
from tui.config import Settings, remember_project, save_profile
from tui.secrets.crashlog import record_exception
from tui.state.io.draft_files import DraftStore
from tui.state.io.journal import ActionJournal
from tui.state.journal_entry import JournalEntry


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    """Nested user dirs that do not exist yet, under the usual umask 022 (which leaves 0644 / 0755)."""
    paths = {name: tmp_path / "home" / name / "watchdeck" for name in ("config", "data", "state")}
    for name, path in paths.items():
        monkeypatch.setenv(f"WATCHDECK_{name.upper()}_DIR", str(path))
    old = os.umask(0o022)
    try:
        yield paths
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_writer_makes_private_files_and_folders(dirs: dict[str, Path]) -> None:
    env = {f"WATCHDECK_{n.upper()}_DIR": str(p) for n, p in dirs.items()}
    record_exception(RuntimeError("boom"), "test")
    assert _log_crash(RuntimeError("start-up boom"), env) == dirs["state"] / "errors.log"
    remember_project("default", "42", env)
    DraftStore(dirs["data"] / "drafts").write("123", {"version": 1})
    ActionJournal().append(JournalEntry(time=datetime.now(UTC), action="pause", result="ok"))
    save_profile(dirs["config"] / "config.toml", "eu", {"base_url": "https://eu.posthog.com", "project": "1"})

    written = [p for root in dirs.values() for p in root.rglob("*")]
    files = sorted(p.relative_to(dirs["config"].parents[1]) for p in written if p.is_file())
    assert [str(f) for f in files] == [
        "config/watchdeck/config.toml", "data/watchdeck/drafts/123.json", "data/watchdeck/journal.jsonl",
        "state/watchdeck/errors.log", "state/watchdeck/projects.json",
    ]
    for path in written:
        assert mode(path) == (0o700 if path.is_dir() else 0o600), path
    for root in dirs.values():
        assert mode(root) == 0o700 and mode(root.parent) == 0o700, "every folder made on the way is 0700"


async def test_the_theme_file_is_private(dirs: dict[str, Path]) -> None:
    settings = Settings(base_url="http://127.0.0.1:9", api_key="phx_theme_test_key", project_ids=["1"], bell=False)
    app = WatchdeckApp(settings)
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = "nord"
        await pilot.pause()
    ui = dirs["state"] / "ui.json"
    assert ui.read_text() == '{"theme": "nord"}'
    assert mode(ui) == 0o600 and mode(ui.parent) == 0o700


def test_a_log_an_older_version_left_readable_is_narrowed(dirs: dict[str, Path]) -> None:
    dirs["state"].mkdir(parents=True)
    log = dirs["state"] / "errors.log"
    log.write_text("old entry\n")
    log.chmod(0o644)
    record_exception(RuntimeError("new"), "test")
    assert mode(log) == 0o600
    assert log.read_text().startswith("old entry\n")


async def test_the_shared_cache_makes_every_missing_folder_private(dirs: dict[str, Path]) -> None:
    root = dirs["state"].parent  # none of it exists yet
    cache = open_sqlite_cache(dirs["state"] / "cache" / "answers")
    try:
        store = dirs["state"] / "cache" / "answers"
        assert cache.usable, cache.problem
        for folder in (root, dirs["state"], dirs["state"] / "cache", store):
            assert mode(folder) == 0o700, folder
        assert all(mode(f) == 0o600 for f in store.iterdir() if f.is_file())
    finally:
        await cache.aclose()


def test_the_demo_log_and_sandbox_worlds_are_private(dirs: dict[str, Path], tmp_path: Path) -> None:
    """A fresh ``--demo`` left the state and cache folders 0755, its log (which held a traceback) and its saved
    worlds 0644."""
    import contextlib
    import sqlite3

    from tui.cli.demo import _open_log
    from tui.sandbox.db import Database
    from tui.sandbox.seed_cache import seed_or_load

    log_path = dirs["state"] / "demo-sandbox.log"
    log = _open_log(log_path)
    assert log is not None
    log.close()
    worlds = tmp_path / "home" / "cache" / "watchdeck" / "sandbox-worlds"
    with contextlib.closing(sqlite3.connect(":memory:")) as conn:
        assert seed_or_load(conn, worlds, ("seed", 7), lambda: conn.execute("CREATE TABLE t(x)")) is False
    [world] = worlds.glob("world-*.sqlite")
    db_path = tmp_path / "home" / "sandbox" / "world.db"
    Database(str(db_path)).conn.close()
    assert {str(p): mode(p) for p in (log_path, world, db_path)} == {str(p): 0o600 for p in (log_path, world, db_path)}
    folders = (dirs["state"], dirs["state"].parent, worlds, worlds.parent, db_path.parent)
    assert {str(p): mode(p) for p in folders} == {str(p): 0o700 for p in folders}
