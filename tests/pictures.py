"""Several snapshot pictures from one app session, each stored and compared as ``snap_compare`` would.

A picture named ``X`` taken in test ``test_foo`` is the file ``__snapshots__/<module>/test_foo[X].svg``: the name a
parametrized ``test_foo[X]`` gives its one picture through ``snap_compare``. A picture is taken the way
``snap_compare`` takes it (after the caller's own waits: a pause, the scheduled animations, two pauses, the
animations again; then the screen exported under the title the app had before it ran), in an app run with tooltips
and notifications on, as ``snap_compare`` runs it. ``--snapshot-update`` writes the pictures that differ.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pytest_textual_snapshot import SVGImageExtension
from syrupy.assertion import SnapshotAssertion
from textual.app import App
from textual.pilot import Pilot

__all__ = ["Pictures", "hold_cursors", "svg_lines"]

_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>')


def svg_lines(svg: str) -> list[str]:
    """The text of a picture, one string a terminal line (the characters only: no colours or styles)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in _TEXT.finditer(svg):
        rows.setdefault(float(match[2]), []).append((float(match[1]), html.unescape(match[3])))
    return ["".join(text for _x, text in sorted(row)).replace("\xa0", " ").rstrip() for _y, row in sorted(rows.items())]


def _line_difference(row: int, old: str, new: str) -> str:
    """Where two lines of text part, with a little of each from there."""
    column = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    start = max(0, column - 10)
    return f"line {row} column {column}: {old[start:start + 50]!r} -> {new[start:start + 50]!r}"


def hold_cursors(pilot: Pilot[Any]) -> None:
    """Hold every blinking cursor of the current screen on: later pictures of a session are taken at any point of
    a blink, and a cursor held on is what a picture taken just after it appeared shows."""
    for widget in pilot.app.screen.query("*"):
        if hasattr(widget, "cursor_blink"):
            widget.cursor_blink = False


class Pictures:
    """The named pictures one test takes; ``check`` fails naming every picture that differs from its file."""

    def __init__(self, snapshot: SnapshotAssertion) -> None:
        self._snapshot = snapshot.use_extension(SVGImageExtension)
        self._title = ""
        self.differing: list[str] = []
        self.differences: list[str] = []

    @asynccontextmanager
    async def session(self, app: App[Any], size: tuple[int, int]) -> AsyncIterator[Pilot[Any]]:
        """Run ``app`` at ``size`` for pictures."""
        self._title = app.title
        async with app.run_test(size=size, tooltips=True, notifications=True) as pilot:
            yield pilot

    async def take(self, pilot: Pilot[Any], name: str) -> None:
        """Take the picture ``name`` of the screen now and compare it with (or, on update, write) its file."""
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        self.keep(name, self.shot(pilot))

    def shot(self, pilot: Pilot[Any]) -> str:
        """The screen now, exported as a picture is (no waits: the caller's own make the screen what it shows)."""
        return pilot.app.export_screenshot(title=self._title, simplify=True)

    def keep(self, name: str, svg: str) -> None:
        """Compare ``svg`` (a ``shot`` taken once the screen stopped changing) with the picture ``name``'s file, or
        write it on update."""
        matches = self._snapshot(name=name) == svg  # syrupy records the comparison: on update, it writes the file
        if not matches:
            self.differing.append(name)
            self.differences.append(f"{name}: {self._difference(name, svg)}")

    def _difference(self, name: str, svg: str) -> str:
        """What differs from the picture's file, in words: the first lines whose text differs, or that only the
        colours and styles do."""
        path = Path(SVGImageExtension.get_location(test_location=self._snapshot.test_location, index=name))
        if not path.exists():
            return "no file"
        stored, taken = svg_lines(path.read_text(encoding="utf-8")), svg_lines(svg)
        lines = [_line_difference(row, old, new) for row, (old, new) in enumerate(zip(stored, taken, strict=False))
                 if old != new]
        if len(stored) != len(taken):
            lines.append(f"{len(stored)} lines -> {len(taken)}")
        return "; ".join(lines[:4]) if lines else "the same text: colours or styles differ"

    def check(self) -> None:
        """Fail if any picture taken differs from its file."""
        assert not self.differing, ("pictures differ from the reviewed ones: " + ", ".join(self.differing)
                                    + "\n" + "\n".join(self.differences))
