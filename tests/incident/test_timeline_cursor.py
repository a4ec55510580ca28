"""Issue 27, item 14: the timeline's axis keeps its last label; the run opened is the run the cursor names, however
the polls move the axis and reorder the rows; after `enter`, Escape comes back to the timeline."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from tui.screens.export_modals import RunErrorScreen
from tui.screens.timeline import OpenRun, TimelineScreen
from tui.state.timeline import ZOOMS, Axis
from tui.widgets.timeline_view import TimelineView, axis_ruler, cells_for, name_width

from .outage import Host, context, outage_desk, outage_exports, verdicts
from .runs import NOW


def ruler(width: int, zoom: int, now: datetime) -> str:
    axis = Axis.ending_at(ZOOMS[zoom], now, cells_for(width))
    return str(axis_ruler(axis, name_width(width, axis.count)))


def labels(line: str) -> list[tuple[int, str]]:
    """(the column its bar stands at, the label) for each label: ``|14:00`` or, at the right end, ``14:00|``."""
    found = [(m.start(), m.group(1)) for m in re.finditer(r"\|(\d\d[:-]\d\d)", line)]
    found += [(m.end() - 1, m.group(1)) for m in re.finditer(r"(\d\d[:-]\d\d)\|", line)]
    return sorted(found)


@pytest.mark.parametrize("width", [80, 120, 160, 200])
@pytest.mark.parametrize("zoom", range(len(ZOOMS)))
def test_the_axis_keeps_its_last_label_at_every_width_zoom_and_moment(width: int, zoom: int) -> None:
    """As the axis slides, the newest round time is labelled; the labels are round, in order and apart."""
    for minutes in range(0, 24 * 60, 25):
        now = datetime(2026, 11, 22, 0, 0, tzinfo=UTC) + timedelta(minutes=minutes)
        axis = Axis.ending_at(ZOOMS[zoom], now, cells_for(width))
        name_w = name_width(width, axis.count)
        line = str(axis_ruler(axis, name_w))
        found = labels(line)
        assert len(found) >= 2, line
        fmt = "%m-%d" if "-" in found[0][1] else "%H:%M"
        times = [axis.bucket_start(at - name_w - 1) for at, _ in found]
        assert [f"{t:{fmt}}" for t in times] == [text for _, text in found], line
        assert times == sorted(set(times)), line
        period = (times[1] - times[0]).total_seconds()
        newest = max(index for index in range(axis.count) if (axis.origin + axis.bucket * index) % period == 0)
        assert found[-1][0] == name_w + 1 + newest, f"the newest round time is labelled: {line!r}"


def test_labels_at_a_day_or_more_apart_are_dates_and_never_repeat() -> None:
    line = ruler(160, 2, NOW)
    dates = [text for _, text in labels(line)]
    assert all("-" in text for text in dates) and len(dates) == len(set(dates)), line


async def test_the_run_opened_is_the_run_named_as_polls_move_the_axis_and_reorder_rows() -> None:
    desk = outage_desk()
    app = Host(lambda _app: TimelineScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        view = screen.query_one(TimelineView)
        await pilot.press("down", "down", *["left"] * 12)  # the third export, some hours back
        await pilot.pause()
        cell = str(screen.query_one("#timeline-cell").render())
        named = re.search(r"\be03-r\d+\b", cell)
        assert named is not None, cell
        column = view.cursor_col
        exports = outage_exports()
        desk.observe(list(reversed(exports)), verdicts(exports), NOW + timedelta(hours=2))  # a poll 2 h later
        await pilot.pause()
        assert screen.model.order[view.cursor_row] == "1:e03" and view.cursor_col < column
        assert named.group(0) in str(screen.query_one("#timeline-cell").render())
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunErrorScreen) and app.screen.run.id == named.group(0)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and view.has_focus, "escape comes back to the timeline, its cursor in place"
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [OpenRun("1:e03", named.group(0))]
