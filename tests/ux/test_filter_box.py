"""The filter line of the monitor, the survey list and the logs (tui.widgets.filter_box.FilterBox): hidden until
opened, focused at once, its text applied at each key or once typing pauses, at once on enter, emptied on close."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.pilot import burst, settle, until
from tui.widgets.filter_box import FilterBox


class BoxApp(App[None]):
    def __init__(self, wait: float) -> None:
        super().__init__()
        self.applied: list[str] = []
        self.wait = wait

    def compose(self) -> ComposeResult:
        yield FilterBox("filter", apply=self.applied.append, wait=lambda: self.wait, id="box")
        yield Static("below")


async def test_without_a_wait_each_key_applies_and_close_applies_the_empty_filter_once() -> None:
    app = BoxApp(0.0)
    async with app.run_test() as pilot:
        box = app.query_one(FilterBox)
        assert not box.shown
        box.open()
        assert box.shown and app.focused is box, "focused at once: the next keys go to the box"
        await pilot.press("a", "b", "space")
        await settle(pilot)
        assert app.applied == ["a", "ab", "ab"], "stripped, applied at each key"
        await pilot.press("enter")
        await settle(pilot)
        assert app.applied[-1] == "ab"
        box.close()
        await settle(pilot)
        assert not box.shown and box.value == ""
        assert app.applied[-1] == "" and app.applied.count("") == 1, app.applied


async def test_with_a_wait_typing_applies_once_when_it_pauses_and_enter_at_once() -> None:
    app = BoxApp(60.0)  # a wait that outlasts the test: nothing is applied while typing goes on
    async with app.run_test() as pilot:
        box = app.query_one(FilterBox)
        box.open()
        await burst(pilot, "x", "y", "z")
        assert app.applied == [], "nothing applied while the wait runs"
        await pilot.press("enter")
        await settle(pilot)
        assert app.applied == ["xyz"], "enter applies at once"
        app.wait = 0.2
        await burst(pilot, "a", "b", "c", "d", "e")
        await until(pilot, lambda: app.applied[-1] == "xyzabcde", step=0.1)
        assert app.applied[-1] == "xyzabcde" and len(app.applied) < 6, "typing applies when it pauses, not per key"
        box.close()
        await settle(pilot)
        assert app.applied[-1] == "" and not box.shown
