"""What every test shares: user folders of its own, and the process-wide NO_COLOR choice starting each test off.

``tui.look.status`` keeps the choice for the whole process (a watchdeck app
sets it when it starts); a test that ran an app under NO_COLOR must not leave
later tests' hosts drawing colourless looks.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.api.route_memory import SHARED_ROUTES
from tui.look.palette import use_no_color
from tui.screens import debounce

# The collector's passes run less often than Python's defaults (700, 10, 10): a test process holds a large heap that
# lives as long as it does (Textual, the sandbox, every test module), and each full pass walks all of it, while what
# one test makes and drops is mostly freed by reference counting as it goes. A finished app is a cycle that only a
# full pass frees: full passes every 200 middle ones (not 50) walk the long-lived heap a third as often, for a few
# hundred megabytes more per worker. Every pass still runs, just later; a test that needs the garbage gone (a leak
# check) collects it itself.
gc.set_threshold(2000, 10, 200)


@pytest.fixture(autouse=True)
def _user_dirs_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Config, data, state and cache folders of the test's own, for it and every process it starts: nothing a
    test runs (a `--demo` keeping its seeded world, a shared answer store) writes into the user's folders."""
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / "user" / name.lower()))


@pytest.fixture(autouse=True)
def _colour_looks_by_default() -> Iterator[None]:
    use_no_color(False)
    yield
    use_no_color(False)


@pytest.fixture(autouse=True)
def _no_learned_routes() -> None:
    """The process-wide memory of servers' routes starts each test empty: sandboxes shared by tests share URLs."""
    SHARED_ROUTES.clear()


QUICK_DEBOUNCE = debounce.Debounce(runs=0.01, stats=0.01, search=0.01, rates=0.01)
"""The screens' waits for the operator to stop, short: a test presses a key and waits for the app to settle, so
each move would otherwise wait out a rest made for a hand on a keyboard."""


@pytest.fixture(autouse=True)
def _quick_debounce(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Short waits for the operator to stop (``tui.screens.debounce``), but in tests marked ``shipped_debounce``:
    those check the waiting itself, with the times the screens ship with."""
    if request.node.get_closest_marker("shipped_debounce") is None:
        monkeypatch.setattr(debounce, "DEBOUNCE", QUICK_DEBOUNCE)


@pytest.fixture
def away_from_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """This process's local time zone set to one 5 h 30 min from UTC, for tests of naive datetimes.

    On a machine whose zone is UTC a naive datetime read as local time and one read as UTC are the same
    instant, so such a test would pass without checking anything.
    """
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        yield "Asia/Kolkata"
    finally:
        monkeypatch.undo()
        time.tzset()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests (five seconds or more) first: under xdist one handed out last would run alone while the other
    workers stand idle, and those waiting on real processes wait while the others run everything else (a stable
    sort keeps the rest in order)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The garbage of the last tests collected once, then what is left frozen: pytest's own clean-up then runs five
    full passes (to report exceptions raised in ``__del__``), each of which would walk the whole heap again while the
    run waits for every worker to end. The one pass here reports such exceptions as those would."""
    gc.collect()
    gc.freeze()
