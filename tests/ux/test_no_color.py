"""Issue 27, item 17: under NO_COLOR the dashboard emits no colour at all, not even greys.

Textual's default answer to NO_COLOR turns each colour into a grey of the same luminance (an SGR 256-colour or
truecolour code all the same); what is drawn here is what a terminal receives, read back as SGR codes.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from rich.console import Console

from tests.monitor.conftest import make_app, select_export
from tests.pilot import settle
from tui.sandbox.runner import SandboxHandle

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def sgr_codes(ansi: str) -> tuple[set[str], set[int]]:
    """The SGR codes in ``ansi``: those that set a colour (foreground or background, as written), and every other
    one (bold 1, dim 2, reverse 7, ...), a colour's own numbers left out."""
    colours: set[str] = set()
    others: set[int] = set()
    for match in SGR.finditer(ansi):
        params = [int(p) if p else 0 for p in match.group(1).split(";")]
        index = 0
        while index < len(params):
            code = params[index]
            if code in (38, 48):
                width = 3 if index + 1 < len(params) and params[index + 1] == 5 else 5
                colours.add(";".join(map(str, params[index:index + width])))
                index += width
                continue
            if 30 <= code <= 37 or 40 <= code <= 47 or 90 <= code <= 97 or 100 <= code <= 107:
                colours.add(str(code))
            else:
                others.add(code)
            index += 1
    return colours, others


def colour_codes(ansi: str) -> set[str]:
    return sgr_codes(ansi)[0]


def attribute_codes(ansi: str) -> set[int]:
    return sgr_codes(ansi)[1]


def drawn(app: Any) -> str:
    """The screen as the terminal gets it (Textual's own screenshot path, written as SGR codes, not SVG).

    The console is given an environment without NO_COLOR: Rich would drop the colours itself otherwise, and
    the test would see Rich's answer to NO_COLOR rather than the app's.
    """
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", legacy_windows=False, safe_box=False, _environ={})
    with console.capture() as capture:
        console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return capture.get()


def test_attribute_codes_reads_sgr() -> None:
    assert attribute_codes("\x1b[2;39;49mx\x1b[0m\x1b[1;7m") == {0, 1, 2, 7, 39, 49}
    assert 2 not in attribute_codes("\x1b[38;5;2mx\x1b[48;2;2;2;2my\x1b[22m")


def test_colour_codes_reads_sgr() -> None:
    assert colour_codes("\x1b[1;38;5;253;48;2;1;2;3mx\x1b[0;7;39;49m") == {"38;5;253", "48;2;1;2;3"}
    assert colour_codes("\x1b[31mx\x1b[1;2;3;4;7m") == {"31"}


async def test_no_color_draws_no_colour_at_all(sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(sandbox)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        select_export(app, "Snowflake warehouse (hourly)")
        await settle(pilot)
        monitor_screen = drawn(app)
        assert "Snowflake warehouse" in monitor_screen
        assert colour_codes(monitor_screen) == set()
        assert any("7" in m.group(1).split(";") for m in SGR.finditer(monitor_screen)), "a failure is reversed"
        await pilot.press("question_mark")  # a dialog over the monitor: its shade must not be a grey either
        await settle(pilot)
        assert colour_codes(drawn(app)) == set()


async def test_no_color_dims_nothing(sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README promises no greys under NO_COLOR, and a terminal draws dim (SGR 2) as one: muted text, an inactive
    tab and a disabled footer key are drawn without it."""
    from tests.pilot import burst

    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(sandbox)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        select_export(app, "Snowflake warehouse (hourly)")
        await settle(pilot)
        for keys in ((), ("d",), ("question_mark",), ("escape", "l"), ("escape", "p")):
            await burst(pilot, *keys)
            await settle(pilot)
            screen = drawn(app)
            assert 2 not in attribute_codes(screen), (keys, screen)
            assert 1 in attribute_codes(screen), "attributes are still drawn"
