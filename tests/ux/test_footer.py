"""The footer (tui.widgets.footer.KeyFooter): the screen's keys on one line, drawn by one widget.

A key whose action does not apply now is drawn dimmed and a click on it does nothing; a click on one that applies
presses it; keys that come and go follow the bindings; focus moving between widgets whose keys the footer does not
show changes nothing; keys that do not fit are dropped whole (a cut key read ``q Qu``), help and quit never; the
pointer over a key shows its tooltip.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tests.monitor.conftest import make_app
from tests.pilot import settle, until
from tui.sandbox.runner import SandboxHandle
from tui.widgets.footer import FooterEntry, KeyFooter


class Host(App[None]):
    BINDINGS = [Binding("r", "retry", "Retry", tooltip="Retry the failed run"), Binding("p", "pause", "Pause"),
                Binding("x", "extra", "Extra")]

    def __init__(self) -> None:
        super().__init__()
        self.can_retry = False
        self.show_extra = False
        self.retried = 0
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield KeyFooter()

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

    def bell(self) -> None:
        self.bells += 1


def footer_of(app: App[None]) -> KeyFooter:
    return app.query_one(KeyFooter)


def entries(app: App[None]) -> dict[str, FooterEntry]:
    return {entry.key: entry for entry in footer_of(app).keys.entries}


def x_of(footer: KeyFooter, key: str) -> int:
    """The first cell of ``key`` in the footer as drawn."""
    x = 0
    for entry in footer.shown:
        if entry.key == key:
            return x
        x += entry.width()
    raise AssertionError(f"{key} is not drawn")


def drawn(footer: KeyFooter) -> str:
    return footer.render().plain


async def test_keys_follow_the_bindings_and_a_click_presses_only_a_key_that_applies() -> None:
    app = Host()
    async with app.run_test(size=(80, 6)) as pilot:
        await until(pilot, lambda: "r" in entries(app))
        footer = footer_of(app)
        assert not entries(app)["r"].enabled and entries(app)["p"].enabled
        assert "x" not in entries(app), "a key whose action says False is not shown"
        assert drawn(footer).startswith(" r Retry  p Pause "), drawn(footer)
        assert drawn(footer).rstrip().endswith("\u258f^p palette"), drawn(footer)
        await pilot.click(footer, offset=(x_of(footer, "r") + 1, 0))
        assert (app.retried, app.bells) == (0, 1), "a click on a dimmed key rings instead"
        app.can_retry = True
        app.refresh_bindings()
        await until(pilot, lambda: entries(app)["r"].enabled)
        await pilot.click(footer, offset=(x_of(footer, "r") + 1, 0))
        assert (app.retried, app.bells) == (1, 1), "a click on a key that applies presses it"
        app.show_extra = True  # a key that comes
        app.refresh_bindings()
        await until(pilot, lambda: "x" in entries(app))
        assert " x Extra " in drawn(footer)
        assert not footer.children, "keys are drawn, not mounted"


async def test_the_pointer_over_a_key_shows_its_tooltip() -> None:
    app = Host()
    async with app.run_test(size=(80, 6)) as pilot:
        await until(pilot, lambda: "r" in entries(app))
        footer = footer_of(app)
        await pilot.hover(footer, offset=(x_of(footer, "r") + 1, 0))
        assert footer.tooltip == "Retry the failed run"
        await pilot.hover(footer, offset=(x_of(footer, "p") + 1, 0))
        assert footer.tooltip is None, "a key without a tooltip shows none"


class Pane(Static, can_focus=True):
    """A focusable pane with keys of its own that the footer does not show (as a table's cursor keys)."""

    def __init__(self, id: str) -> None:
        super().__init__(id, id=id)


class LeftPane(Pane):
    BINDINGS = [Binding("j", "app.bell", show=False)]


class RightPane(Pane):
    BINDINGS = [Binding("k", "app.bell", show=False)]


class TwoPanes(App[None]):
    BINDINGS = [Binding("r", "retry", "Retry")]

    def compose(self) -> ComposeResult:
        yield LeftPane("left")
        yield RightPane("right")
        yield KeyFooter()

    def action_retry(self) -> None:
        pass


async def test_focus_moving_between_widgets_with_different_hidden_keys_changes_nothing() -> None:
    app = TwoPanes()
    async with app.run_test(size=(80, 6)) as pilot:
        app.query_one("#left").focus()
        await until(pilot, lambda: "r" in entries(app))
        before = footer_of(app).keys
        assert "j" in app.screen.active_bindings, "the left pane's hidden key is active"
        app.query_one("#right").focus()
        await until(pilot, lambda: "k" in app.screen.active_bindings)
        assert "j" not in app.screen.active_bindings
        await settle(pilot)
        assert footer_of(app).keys is before, "the footer changed for keys it does not show"
        assert set(entries(app)) == {"r"} and before.palette is not None and before.palette.key == "ctrl+p"


async def test_footer_keys_are_whole_or_absent(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        keys = footer.keys.entries
        shown = [entry for entry in footer.shown if entry in keys]
        assert shown and len(shown) < len(keys), "some dropped at 80 columns"
        line = drawn(footer)
        assert len(line) == 80
        for entry in keys:
            whole = f" {entry.label} {entry.description} "
            assert (whole in line) == (entry in shown), (whole, line)
        assert {"question_mark", "q"} <= {entry.key for entry in shown}, "help and quit are never the ones dropped"
        dropped = [entry for entry in keys if entry not in shown]
        assert keys.index(dropped[0]) < max(keys.index(entry) for entry in shown if entry.key == "q"), \
            "dropped from the first that does not fit, before quit"
        await pilot.resize_terminal(240, 48)
        await until(pilot, lambda: [entry for entry in footer.shown if entry in keys] == list(keys))
        assert all(f" {entry.label} {entry.description} " in drawn(footer) for entry in keys)



class HelpAndQuit(App[None]):
    BINDINGS = [Binding("question_mark", "help", "Help"), Binding("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield KeyFooter()

    def action_help(self) -> None:
        pass


async def test_too_narrow_for_help_and_quit_the_palettes_key_is_drawn_over_them() -> None:
    """As Textual's docked palette key is: the line is the terminal's width and ends with the palette's key; a key
    wholly under it is not drawn (nor clicked)."""
    app = HelpAndQuit()
    async with app.run_test(size=(14, 6)) as pilot:
        await until(pilot, lambda: "q" in entries(app))
        footer = footer_of(app)
        await until(pilot, lambda: len(drawn(footer)) == 14)
        assert drawn(footer) == " ?\u258f^p palette ", drawn(footer)
        assert [entry.key for entry in footer.shown] == ["question_mark", "ctrl+p"]
