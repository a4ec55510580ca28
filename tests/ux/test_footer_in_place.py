"""A footer key whose action turns on or off is dimmed or brightened where it is, not rebuilt.

Every footer key ever drawn keeps its styles cache in Textual's ``lru_cache(1024)`` of
``StylesCache.get_inner_outer``; a monitor whose selected export changes state every few seconds rebuilt its keys
each time (the soak benchmark's slow growth). Keys that come or go are still rebuilt; focus moving between widgets
whose keys the footer does not show rebuilds nothing.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from tests.pilot import settle, until
from tui.widgets.footer import LeakFreeFooter


class Host(App[None]):
    BINDINGS = [Binding("r", "retry", "Retry"), Binding("p", "pause", "Pause"), Binding("x", "extra", "Extra")]

    def __init__(self) -> None:
        super().__init__()
        self.can_retry = False
        self.show_extra = False
        self.retried = 0

    def compose(self) -> ComposeResult:
        yield LeakFreeFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry":
            return True if self.can_retry else None  # None: shown dimmed
        if action == "extra":
            return self.show_extra  # False: not shown at all
        return True

    def action_retry(self) -> None:
        self.retried += 1

    def action_pause(self) -> None:
        pass

    def action_extra(self) -> None:
        pass


def footer_keys(app: App[None]) -> dict[str, FooterKey]:
    return {key.key: key for key in app.query_one(LeakFreeFooter).query(FooterKey)}


async def test_a_key_turning_on_or_off_is_updated_in_place_and_a_click_then_acts() -> None:
    app = Host()
    async with app.run_test(size=(80, 6)) as pilot:
        await until(pilot, lambda: "r" in footer_keys(app))
        before = footer_keys(app)
        assert before["r"].has_class("-disabled") and not before["p"].has_class("-disabled")
        app.can_retry = True
        app.refresh_bindings()
        await until(pilot, lambda: not footer_keys(app)["r"].has_class("-disabled"))
        after = footer_keys(app)
        assert all(after[key] is before[key] for key in before), "the keys were rebuilt"
        await pilot.click(after["r"])
        assert app.retried == 1, "a click on a key turned on acts"
        app.can_retry = False
        app.refresh_bindings()
        await until(pilot, lambda: footer_keys(app)["r"].has_class("-disabled"))
        assert footer_keys(app)["r"] is before["r"]
        await pilot.click(footer_keys(app)["r"])
        assert app.retried == 1, "a click on a dimmed key does nothing"
        app.show_extra = True  # a key that comes: rebuilt
        app.refresh_bindings()
        await until(pilot, lambda: "x" in footer_keys(app))
        assert footer_keys(app)["p"] is not before["p"]


class Pane(Static, can_focus=True):
    """A focusable pane with keys of its own that the footer does not show (as a table's cursor keys)."""

    def __init__(self, key: str, id: str) -> None:
        super().__init__(id, id=id)
        self._bindings.bind(key, "app.bell", show=False)


class TwoPanes(App[None]):
    BINDINGS = [Binding("r", "retry", "Retry")]

    def compose(self) -> ComposeResult:
        yield Pane("j", "left")
        yield Pane("k", "right")
        yield LeakFreeFooter()

    def action_retry(self) -> None:
        pass


async def test_focus_moving_between_widgets_with_different_hidden_keys_rebuilds_nothing() -> None:
    app = TwoPanes()
    async with app.run_test(size=(80, 6)) as pilot:
        app.query_one("#left").focus()
        await until(pilot, lambda: "r" in footer_keys(app))
        before = footer_keys(app)
        assert "j" in app.screen.active_bindings, "the left pane's hidden key is active"
        app.query_one("#right").focus()
        await until(pilot, lambda: "k" in app.screen.active_bindings)
        assert "k" in app.screen.active_bindings and "j" not in app.screen.active_bindings
        await settle(pilot)
        after = footer_keys(app)
        assert after.keys() == before.keys() == {"r", "ctrl+p"}
        assert all(after[key] is before[key] for key in before), "the footer was rebuilt for keys it does not show"
