"""Start-up: the one list of every trick ``watchdeck`` plays to show data sooner, and the ones this module plays.

Each is measured by ``make bench``: tests/benchmarks/test_startup_bench.py prints the start path again with
that one trick undone (the row named after the dash), tests/benchmarks/test_screen_open_bench.py the one
that pays when a screen opens. A trick that stops paying for itself there goes.

Here, in this module:

- The first poll is sent before Textual is imported, on a thread (:func:`start_first_poll`,
  :class:`~tui.state.io.export_source.FirstPoll`): the server answers while Textual loads, and the monitor's
  first poll takes the answer over, shown in its first frame. -- "first poll sent by the app".
- The collector is off while the dashboard loads (:func:`quiet_collector`) and back on a second after start,
  with what loading made frozen out of its way (:func:`resume_collector`): loading makes objects that live as
  long as the process, and full passes over them would otherwise run during every import.
  -- "collector left on while loading".
- httpx's command-line client (click, pygments) is marked absent before httpx is imported
  (:func:`skip_httpx_cli`). -- "httpx's command-line client loaded".

Elsewhere:

- The shared store opens a second after start, after the first frames, its code loaded on a thread
  (``WatchdeckApp._after_first_frames`` in tui/app.py), where the first poll was sent early.
  -- "shared store opened before the first frame".
- The selected export's runs and details pane is mounted just after the monitor's first frame, into a slot of
  its size (tui/widgets/export_detail_pane.py). -- "runs and details pane in the first frame".
- Screens load when first shown: the survey mode, the incident views, the dialogs and help are imported on
  their key or mode, the survey screens bringing their own stylesheets (tui/app.py,
  tui/screens/monitor_incident.py). -- "every screen imported with the app".
- An API client makes its HTTP client (httpx's transport, the CA bundle) at its first request, which the
  monitor's client does not send when the first poll was sent early (``ClientCore._http`` in
  tui/api/client_core.py). -- "HTTP clients made with the app's API clients".
- A plain-http base URL (the sandbox, ``--demo``) gets a TLS context that trusts nothing instead of loading
  the CA bundle (``_tls_for`` in tui/api/client_core.py). -- "CA bundle loaded for the plain-http sandbox".
- ``--demo`` loads its seeded world from the user's cache when it was seeded within the hour
  (tui/sandbox/seed_cache.py, tui/cli/demo.py). -- "world seeded afresh".
- ``make`` byte-compiles tui/ (``compileall``), which an editable install is not. -- "tui/ without bytecode".
- A screen's first resume keeps the styles its mount gave it (``StyledAtMount`` in tui/screens/base.py):
  the editor styles its widgets once as it opens. -- test_screen_open_bench.py.

This module imports only the standard library at the top: ``tui.cli.launch`` imports it before anything else.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
