"""Layering: the API client and the sandbox stand without the UI.

tui.api is used by the sandbox's tests, by `watchdeck status` and by benchmarks;
dragging Textual (or a screen) into it would couple them to the UI and slow every
start. The sandbox must not use the client it is there to test. Each check runs in
a fresh interpreter, since this test process has imported everything already.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UI = ("textual", "tui.screens", "tui.widgets", "tui.state", "tui.app")
CLIENT = ("tui.api.client", "tui.api.client_core", "tui.api.answers", "tui.api.resources")


def _loaded_after(imports: str) -> set[str]:
    code = textwrap.dedent(f"""
        import sys
        {imports}
        print("\\n".join(sorted(sys.modules)))
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def _offenders(modules: set[str], banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == b or m.startswith(b + ".") for b in banned))


def test_api_imports_no_ui() -> None:
    loaded = _loaded_after("import tui.api.client, tui.api.models, tui.api.writes, tui.api.errors")
    assert "tui.api.client" in loaded  # the check ran
    assert _offenders(loaded, UI) == []


def test_sandbox_imports_neither_ui_nor_client() -> None:
    loaded = _loaded_after(textwrap.dedent("""
        import importlib, pkgutil, tui.sandbox
        for info in pkgutil.walk_packages(tui.sandbox.__path__, "tui.sandbox."):
            if info.name.rsplit(".", 1)[-1] != "__main__":
                importlib.import_module(info.name)
    """).replace("\n", "\n        "))
    assert "tui.sandbox.runner" in loaded
    assert _offenders(loaded, (*UI, *CLIENT)) == []


def test_the_checks_can_fail() -> None:
    """Guard against a vacuous pass: importing the app does load Textual."""
    assert _offenders(_loaded_after("import tui.app"), UI) != []


def test_the_startup_module_is_standard_library_only() -> None:
    """``watchdeck`` imports it before anything else, to turn the collector off before the heavy imports."""
    loaded = _loaded_after("import tui.cli.startup")
    assert "tui.cli.startup" in loaded
    assert _offenders(loaded, ("httpx", "httpcore", "pydantic", "textual", "rich", "tui.api", "tui.config",
                               "tui.state", *UI)) == []


def test_the_first_poll_thread_loads_no_ui() -> None:
    """The first poll runs while Textual loads on the main thread: it needs the client and the state, no UI."""
    loaded = _loaded_after("import tui.state.exports, tui.api.client")
    assert "tui.state.exports" in loaded
    assert _offenders(loaded, ("textual", "tui.screens", "tui.widgets", "tui.app")) == []


def test_the_dashboard_skips_httpx_command_line_client() -> None:
    """click, pygments and rich's progress bars (~20 ms) load only for httpx's CLI, which watchdeck never runs."""
    loaded = _loaded_after("from tui.cli import startup; startup.skip_httpx_cli(); import httpx, tui.app; "
                           "assert httpx.AsyncClient and httpx.main.__module__ == 'httpx'")
    assert "tui.app" in loaded and "httpx" in loaded
    assert _offenders(loaded, ("click", "pygments")) == []
    assert "click" in _loaded_after("import httpx"), "without it they load (the check can fail)"


def test_a_client_loads_httpx_transport_on_its_first_request_only() -> None:
    """The monitor makes its clients before its first frame; the transport (httpcore, h11: ~20 ms) waits for a
    request, which the first poll sent early has spared it until after that frame."""
    made = _loaded_after("from tui.api.client import ApiClient; ApiClient('http://127.0.0.1:1', 'key', '1')")
    assert "tui.api.client" in made and "httpcore" not in made and "h11" not in made
    used = _loaded_after("from tui.api.client import ApiClient; ApiClient('http://127.0.0.1:1', 'key', '1')._http")
    assert "httpcore" in used, "the check can fail"
