"""Pick a project from ``GET /api/projects/``: a modal that answers with the project id, or None.

Used at run time (the app's "switch project" key and palette entry) and by the
welcome form when the operator has not typed a project id. The caller
remembers the choice per profile (``tui.config.remembered.remember_project``).
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.api.client import ApiClient
from tui.api.errors import ApiError
from tui.api.models.projects import Project
from tui.config.paths import stylesheets
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.dialog import Dialog
from tui.text.clean import clean
from tui.widgets.lists import ItemList
from tui.widgets.text_field import TextField


def project_prompt(project: Project, current: str | None) -> Text:
    """``Name  id 12`` with the current project marked; the name is server text, so never markup."""
    text = Text(no_wrap=True, end="")
    text.append("● " if str(project.id) == current else "  ", style="bold")
    text.append_text(plain(project.name or "(no name)", "bold" if str(project.id) == current else ""))
    text.append(f"  id {clean(project.id, limit=24)}", style=Tone.MUTED.style)
    return text


def switch_label(project: Project | None) -> Text:
    """The confirming button's words: the project it switches to (server text: plain, cleaned and cut)."""
    if project is None:
        return Text("Switch project (y)")
    return Text.assemble("Switch to ", plain(project.name or str(project.id), limit=30), " (y)")


class ProjectPickerScreen(Dialog[str | None]):
    """Projects by name and id; type to filter, enter to choose, escape to keep the current one.

    It confirms as every dialog does: Enter (in the filter or on a project), ``y`` outside the filter, or the
    button naming the highlighted project; Escape cancels.
    """

    CSS_PATH = stylesheets("welcome.tcss")  # loaded when first shown: not part of the monitor's start
    CONFIRM = "picker-choose"

    BINDINGS = [
        Binding("down", "focus_list", "List", show=False),
    ]

    def __init__(self, client: ApiClient | None = None, *, projects: list[Project] | None = None,
                 current: str | None = None) -> None:
        super().__init__(classes="picker-modal")
        if client is None and projects is None:
            raise ValueError("ProjectPickerScreen needs a client or a list of projects")
        self._client = client
        self._projects: list[Project] = list(projects or [])
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog", classes="dialog"):
            yield Static(Text("Switch project", style="bold"), classes="dialog-title")
            yield TextField(placeholder="filter by name or id", id="picker-filter")
            yield ItemList(id="picker-list", markup=False)
            yield Static("", id="picker-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button(switch_label(None), id="picker-choose", variant="primary", disabled=True, compact=True)

    def on_mount(self) -> None:
        self.set_focus(self.query_one("#picker-filter", Input))
        if self._client is not None and not self._projects:
            self._say("loading projects…")
            self._load()
        else:
            self._fill()

    @work(exclusive=True, group="picker-load", exit_on_error=False)
    async def _load(self) -> None:
        assert self._client is not None
        try:
            self._projects = await self._client.projects.list()
        except ApiError as err:
            self._say(str(err), error=True)
            return
        self._fill()

    def _say(self, message: str, *, error: bool = False) -> None:
        widget = self.query_one("#picker-message", Static)
        widget.update(plain(message, oneline=False))
        widget.set_class(error, "field-error")

    def _fill(self) -> None:
        needle = self.query_one("#picker-filter", Input).value.strip().lower()
        shown = [p for p in self._projects
                 if not needle or needle in clean(p.name).lower() or needle in str(p.id).lower()]
        options = self.query_one("#picker-list", OptionList)
        options.set_options([Option(project_prompt(p, self._current), id=str(p.id)) for p in shown])
        if not self._projects:
            self._say("the key sees no projects" if self._client is not None else "no projects")
        elif not shown:
            self._say("no project matches the filter")
        else:
            self._say(f"{len(shown)} of {len(self._projects)} projects · enter to choose, escape to cancel")
            index = next((i for i, p in enumerate(shown) if str(p.id) == self._current), 0)
            options.highlighted = index
        self._show_choice()

    def _highlighted_project(self) -> Project | None:
        options = self.query_one("#picker-list", OptionList)
        if options.highlighted is None or options.highlighted >= options.option_count:
            return None
        wanted = options.get_option_at_index(options.highlighted).id
        return next((p for p in self._projects if str(p.id) == wanted), None)

    def _show_choice(self) -> None:
        project = self._highlighted_project()
        button = self.query_one("#picker-choose", Button)
        button.label = switch_label(project)
        button.refresh(layout=True)  # its width follows the name
        button.disabled = project is None
        self.refresh_bindings()

    @on(OptionList.OptionHighlighted, "#picker-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_choice()

    @on(Button.Pressed, "#picker-choose")
    def _choose(self, event: Button.Pressed) -> None:
        event.stop()
        project = self._highlighted_project()
        if project is not None:
            self.dismiss(str(project.id))

    @on(Input.Changed, "#picker-filter")
    def _filter(self) -> None:
        self._fill()

    @on(Input.Submitted, "#picker-filter")
    def _submit_filter(self) -> None:
        options = self.query_one("#picker-list", OptionList)
        if options.option_count == 1 or options.highlighted is not None:
            index = options.highlighted if options.highlighted is not None else 0
            option = options.get_option_at_index(index)
            self.dismiss(option.id)

    @on(OptionList.OptionSelected, "#picker-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_focus_list(self) -> None:
        """↓ from the filter goes into the list and one project down: ↓ then enter picks the next project,
        not the current one again."""
        options = self.query_one("#picker-list", OptionList)
        options.focus()
        if options.highlighted is None:
            options.highlighted = 0 if options.option_count else None
        elif options.highlighted < options.option_count - 1:
            options.highlighted += 1

