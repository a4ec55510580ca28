"""Start-up: every trick ``watchdeck`` plays to show data sooner, in this one place.

Each is plain standard library and each is measured by ``make bench``
(tests/benchmarks/test_startup_bench.py prints the list path again with each
one undone); a trick that stops paying for itself there goes.

- The first poll is sent before Textual is imported, on a thread
  (:func:`start_first_poll`, :class:`~tui.state.io.export_source.FirstPoll`): the server
  answers while Textual loads, and the monitor's first poll takes the answer over.
- The collector is off while the dashboard loads (:func:`quiet_collector`) and
  back on a second after start, with what loading made frozen out of its way
  (:func:`resume_collector`): loading makes objects that live as long as the
  process, and full passes over them would otherwise run during every import.
- httpx's command-line client is marked absent before httpx is imported
  (:func:`skip_httpx_cli`).
- ``watchdeck --demo`` starts its sandbox before the settings and Textual load
  (:func:`start_demo_early`).

This module imports only the standard library at the top: ``tui.cli.launch``
imports it before anything else.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.cli.demo import DemoServer
    from tui.clock import Clock
    from tui.config import Settings
    from tui.state.io.export_source import FirstPoll

#: The collection before the freeze waits until the first frame with data is drawn.
FREEZE_AFTER_SECONDS = 1.0

_frozen = False


def quiet_collector() -> None:
    """No garbage collection while the dashboard loads (``resume_collector`` undoes it)."""
    gc.disable()


def skip_httpx_cli() -> None:
    """httpx loads its command-line client (click, pygments, rich's progress bars) whenever click is installed,
    and uvicorn, the sandbox's server, installs it. watchdeck never runs that client: marked absent, httpx takes
    its own fallback for an install without its ``cli`` extra."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def collector_on() -> None:
    """Every command but the dashboard runs with the collector on (they do not freeze what loading made)."""
    gc.enable()


def resume_collector() -> None:
    """Freeze what start-up made (modules, classes, the first screen) and collect again.

    They live as long as the process: frozen, full passes only walk what the app
    made since. Once per process: a second app (tests) must not freeze the first
    one's leftovers.
    """
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.collect()
    gc.freeze()
    gc.enable()


#: Words that make ``watchdeck --demo`` something other than the demo dashboard (help, web mode, a subcommand).
NOT_THE_DEMO_DASHBOARD = frozenset({"-h", "--help", "--version", "--web", "status", "surveys", "sandbox"})

_early_demo: DemoServer | None = None


def start_demo_early(argv: Sequence[str]) -> None:
    """``watchdeck --demo``: start the sandbox (a process of its own) before the settings and Textual load.

    The words are only glanced at: ``_run_demo`` takes the server once the real
    parser has said it is the demo; any other outcome leaves it unused, and it
    ends with this process like every demo server.
    """
    global _early_demo
    if "--demo" not in argv or NOT_THE_DEMO_DASHBOARD.intersection(argv):
        return
    from tui.cli.demo import open_demo_server

    try:
        _early_demo = open_demo_server()
    except OSError:  # said by _run_demo, which tries again
        _early_demo = None


def take_early_demo() -> DemoServer | None:
    global _early_demo
    server, _early_demo = _early_demo, None
    return server


def start_first_poll(settings: Settings, clock: Clock, *, before: Callable[[], object] | None = None,
                     ) -> FirstPoll | None:
    """Start the monitor's first poll now, or None where it must wait for the app.

    Not while other viewers share the cache (or where that cannot be told
    cheaply: Redis): the thread's client does not read the store, so it would
    ask for what another viewer's fresh answer already says.
    """
    if settings.cache:
        if settings.cache_url:
            return None
        from tui.api.cache_context import others_watching
        from tui.config.paths import cache_dir

        if others_watching(cache_dir(), settings.base_url, settings.api_key.get_secret_value()):
            return None
    from tui.state.io.export_source import FirstPoll
    from tui.state.server_time import ServerClock

    configured = settings.project_ids
    project_ids = list(configured) if len(configured) > 1 else [settings.project_id]
    return FirstPoll(settings, ServerClock(clock), project_ids, before).start()
