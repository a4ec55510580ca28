"""Start -> first data on screen, on every start path, as ratios to a bare Textual app's first frame.

Each side is a fresh interpreter started from this process, timed from just
before it is spawned. The bare app imports what the dashboard imports
(textual, httpx, pydantic, humanize) and shows a 50 x 6 DataTable. Watchdeck is
the real command (``tui.cli.launch.main``, what ``watchdeck`` runs) with its
arguments, headless through ``TEXTUAL_DRIVER`` like the bare app; an import
hook wraps the app's ``_display`` once ``tui.app`` has loaded (so nothing is
imported earlier than the command imports it) and exits on the first frame
whose exports table holds the expected rows (the selected export's runs and details pane is mounted into
its slot just after that frame). Paths:

- list: a server with the export list, 200 exports in the project;
- ``--export`` ids: a server whose list route answers 404, 20 ids given;
- ``--demo``: the embedded sandbox, started by the command itself (again within the hour: its seeded world is
  loaded from the user's cache, as on every demo start but the hour's first).

Target: each ratio <= 2.0x (median of interleaved runs).

Each start-up trick listed in ``tui.cli.startup`` is measured too: a path again with that one trick undone
(the script replaces it before the command runs, or wraps what it put off so that it runs at once, or starts
from tui/ without bytecode, or from a home without the demo's cached world). A trick whose row is no slower than
its path's has no reason to stay.
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

from .helpers import EXPORTS, FROZEN_AT, ROOT, median, report

RUNS = 7
TARGET = 2.0
EXPORT_IDS = 20
DEMO_EXPORTS = 12  # the demo project's exports
HEADLESS = "textual.drivers.headless_driver:HeadlessDriver"

BARE_SCRIPT = r"""
import sys, time
t_start = float(sys.argv[1])
import textual.app, httpx, pydantic, humanize
from pydantic import BaseModel
from textual.app import App
from textual.widgets import DataTable, Footer, Header

class Bare(App):
    done = False
    def compose(self):
        yield Header()
        yield DataTable()
        yield Footer()
    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns(*(f"column {c}" for c in range(6)))
        table.add_rows([[f"row {r} cell {c}" for c in range(6)] for r in range(50)])
    def _display(self, screen, renderable):
        super()._display(screen, renderable)
        if renderable is not None and not self.done:
            self.done = True
            print(f"DATA {time.time() - t_start:.6f}", flush=True)
            self.exit()

Bare().run()
"""

WATCHDECK_SCRIPT = r"""
import sys, time
t_start = float(sys.argv[1])
expected = int(sys.argv[2])
without = set(filter(None, sys.argv[3].split(",")))
import importlib.machinery
from tui.cli import startup

# A trick undone: the start path runs as if tui.cli.startup did not have it.
if "collector" in without:
    startup.quiet_collector = startup.resume_collector = lambda: None
if "httpx-cli" in without:
    startup.skip_httpx_cli = lambda: None
if "first-poll" in without:
    startup.start_first_poll = lambda *args, **kwargs: None

def open_store_at_start(app_class):
    # The shared store opened while the app is made, on the UI thread, instead of after the first frames.
    init = app_class.__init__
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self._cache_deferred:
            self._cache_deferred = False
            cache = self._open_cache(self.settings)
            if cache is not None:
                self.shared_cache = self.shared.cache = cache
                for client in self._clients.values():
                    client.share_answers(cache)
    app_class.__init__ = __init__

def import_every_screen():
    # Every screen imported with the app rather than on its key or mode.
    import importlib, pkgutil, tui.screens
    for found in pkgutil.iter_modules(tui.screens.__path__):
        importlib.import_module(f"tui.screens.{found.name}")

def detail_in_first_frame(monitor_class):
    # The runs and details pane mounted before the first frame rather than just after it.
    mount = monitor_class.on_mount
    async def on_mount(self):
        await self._mount_detail()
        await mount(self)
    monitor_class.on_mount = on_mount

def app_loaded(module):
    watch(module.WatchdeckApp)
    if "store-deferred" in without:
        open_store_at_start(module.WatchdeckApp)
    if "lazy-screens" in without:
        import_every_screen()

def http_client_at_start(module):
    # The app's HTTP clients made with its API clients, not at their first request, each loading the CA bundle
    # as it would for an https server (the sandbox is plain http): what this costs a real server's start.
    init = module.ClientCore.__init__
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if "tui.app" in sys.modules:  # the app's clients, not the first poll's (on its thread, as shipped)
            tls_for, module._tls_for = module._tls_for, lambda base_url: True
            try:
                self._http
            finally:
                module._tls_for = tls_for
    module.ClientCore.__init__ = __init__

def client_core_loaded(module):
    if "lazy-http" in without:
        http_client_at_start(module)
    if "http-tls" in without:
        module._tls_for = lambda base_url: True

AFTER = {"tui.app": app_loaded, "tui.api.client_core": client_core_loaded}
if "detail-after-frame" in without:
    AFTER["tui.screens.monitor"] = lambda module: detail_in_first_frame(module.MonitorScreen)

class AfterLoad:
    # Runs AFTER's changes on a module once it has run: nothing is imported before the command imports it.
    def find_spec(self, name, path, target=None):
        if name not in AFTER:
            return None
        then = AFTER.pop(name)
        if not AFTER:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run_module = spec.loader.exec_module
        def exec_module(module):
            run_module(module)
            then(module)
        spec.loader.exec_module = exec_module
        return spec

def watch(app_class):
    display = app_class._display
    def timed(self, screen, renderable):
        display(self, screen, renderable)
        if renderable is None or getattr(self, "_timed", False) or screen.id != "monitor":
            return
        if screen.query_one("#exports").row_count >= expected:
            self._timed = True
            print(f"DATA {time.time() - t_start:.6f}", flush=True)
            self.exit()
    app_class._display = timed

sys.meta_path.insert(0, AfterLoad())
sys.argv = ["watchdeck", *sys.argv[4:]]
from tui.cli.launch import main
sys.exit(main())
"""


def first_data(script: str, *args: str, env: dict[str, str], cwd: Path = ROOT) -> float:
    started = time.time()
    proc = subprocess.run([sys.executable, "-c", script, f"{started:.6f}", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd, env=env, check=False)
    words = proc.stdout.split()
    assert proc.returncode == 0 and "DATA" in words, (proc.stdout + proc.stderr)[-3000:]
    return float(words[words.index("DATA") + 1])


@pytest.fixture(scope="module")
def no_list_sandbox() -> Iterator[SandboxHandle]:
    """200 exports, and a list route that answers 404 (the spec's server: watch given ids only)."""
    with start_sandbox(SandboxOptions(seed=7, exports=EXPORTS, simulate=False, clock=FrozenClock(FROZEN_AT),
                                      faults=["status:status=404,path=/batch_exports/$"])) as handle:
        yield handle


def command_env(home: Path, api_key: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WATCHDECK_", "TEXTUAL"))}
    env.update(TEXTUAL_DRIVER=HEADLESS, COLUMNS="120", LINES="40", PYTHONPATH=str(ROOT),
               **{f"WATCHDECK_{n}_DIR": str(home / n.lower()) for n in ("CONFIG", "DATA", "STATE", "CACHE")})
    if api_key:
        env["WATCHDECK_API_KEY"] = api_key
    return env


def test_first_data_on_every_start_path(sandbox200: SandboxHandle, no_list_sandbox: SandboxHandle,
                                        tmp_path: Path) -> None:
    # Both sides from bytecode: pip compiles what it installs, `make` compiles tui/ (an editable checkout).
    compileall.compile_dir(str(ROOT / "tui"), quiet=1)
    ids = [row[0] for row in no_list_sandbox.state.db.conn.execute(
        "SELECT id FROM exports WHERE project_id = 1 AND deleted = 0 ORDER BY created_at LIMIT ?", (EXPORT_IDS,))]
    paths: dict[str, tuple[list[str], int, str | None]] = {
        f"list ({EXPORTS} exports)": (["--base-url", sandbox200.base_url, "--project", "1", "--poll", "300"],
                                      EXPORTS, sandbox200.api_key),
        f"--export ids ({EXPORT_IDS}, no list route)": (
            ["--base-url", no_list_sandbox.base_url, "--project", "1", "--poll", "300",
             *(arg for export_id in ids for arg in ("--export", export_id))], EXPORT_IDS, no_list_sandbox.api_key),
        "--demo (sandbox started by the command)": (["--demo"], DEMO_EXPORTS, None),
    }
    list_path = paths[f"list ({EXPORTS} exports)"]
    demo_path = paths["--demo (sandbox started by the command)"]
    tricks: dict[str, tuple[str, tuple[list[str], int, str | None]]] = {
        "list, collector left on while loading": ("collector", list_path),
        "list, httpx's command-line client loaded": ("httpx-cli", list_path),
        "list, first poll sent by the app": ("first-poll", list_path),
        "list, shared store opened before the first frame": ("store-deferred", list_path),
        "list, runs and details pane in the first frame": ("detail-after-frame", list_path),
        "list, every screen imported with the app": ("lazy-screens", list_path),
        "list, HTTP clients made with the app's API clients (CA bundle as for https)": ("lazy-http", list_path),
        "list, CA bundle loaded for the plain-http sandbox": ("http-tls", list_path),
        "--demo, world seeded afresh (no cached world)": ("demo-cache", demo_path),
        "list, tui/ without bytecode (no compileall)": ("compileall", list_path),
    }
    # tui/ and styles/ copied without their bytecode, imported from there and never written back.
    source = tmp_path / "uncompiled"
    for folder in ("tui", "styles"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    bare_env = command_env(tmp_path / "bare", None)
    bare: list[float] = []
    measured: dict[str, list[float]] = {name: [] for name in paths}
    undone: dict[str, list[float]] = {name: [] for name in tricks}
    first_data(BARE_SCRIPT, env=bare_env)  # warm the page cache for every side
    for args, expected, key in paths.values():
        first_data(WATCHDECK_SCRIPT, str(expected), "", *args, env=command_env(tmp_path / "warm", key))

    def run_path(args: list[str], expected: int, key: str | None, run: int, without: str = "") -> float:
        # A home of its own per run (a viewer entry left in the shared store would stop the first poll), but
        # one for every demo run: a demo started again within the hour loads the world kept by the warm-up.
        cached_world = args == ["--demo"] and without != "demo-cache"
        home = tmp_path / ("warm" if cached_world else f"run{run}{without}")
        env = command_env(home, key)
        if without == "compileall":
            env.update(PYTHONPATH=str(source), PYTHONDONTWRITEBYTECODE="1")
        return first_data(WATCHDECK_SCRIPT, str(expected), without, *args, env=env,
                          cwd=source if without == "compileall" else ROOT)

    for run in range(RUNS):
        bare.append(first_data(BARE_SCRIPT, env=bare_env))
        for name, (args, expected, key) in paths.items():
            measured[name].append(run_path(args, expected, key, run))
        for name, (without, (args, expected, key)) in tricks.items():
            undone[name].append(run_path(args, expected, key, run, without))
    rows: list[Sequence[Any]] = [["bare Textual app: first frame (50 x 6 table)", f"{median(bare) * 1e3:.0f}",
                                  f"{min(bare) * 1e3:.0f}", "1.00x", "1.00x"]]
    for name, values in measured.items():
        rows.append([f"watchdeck {name}: first frame with the exports", f"{median(values) * 1e3:.0f}",
                     f"{min(values) * 1e3:.0f}", f"{median(values) / median(bare):.2f}x (target <= {TARGET}x)",
                     f"{min(values) / min(bare):.2f}x"])
    for name, values in undone.items():
        rows.append([f"watchdeck {name} (a trick undone)", f"{median(values) * 1e3:.0f}",
                     f"{min(values) * 1e3:.0f}", f"{median(values) / median(bare):.2f}x",
                     f"{min(values) / min(bare):.2f}x"])
    report(f"start -> first data on screen (fresh interpreters, headless 120x40, n={RUNS} each, interleaved)",
           rows, ["what", "median ms", "min ms", "ratio of medians", "ratio of mins"])
