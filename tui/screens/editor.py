"""The survey editor: the survey's own fields and its ordered questions, with branching, on one screen.

Layout: a list on the left (survey settings, then one line per question with a ``!`` on those with
problems, and buttons for the mouse) and, on the right, a scrolling form for the selected item. This
stays usable at 80x24 and keeps the DOM small (one question form at a time).

All the state lives in :class:`~tui.state.survey_draft.SurveyDraft`; forms write into it and post
:class:`DraftEdited`; this screen revalidates, shows each problem next to its field, keeps a draft on
disk (debounced, off the UI thread) and saves: a POST for a new survey, else a PATCH of the changed
keys only. A server refusal keeps every edit and shows the message at the field it names.

An existing survey is read from the server as the editor opens (the list's copy may be older than a rename
made elsewhere): the screen shows at once and holds the keys typed meanwhile, which act on the survey read.
A save reads it again: a field the operator edited that the server changed too is asked about
(:class:`~tui.screens.editor_dialogs.ConflictScreen`), and the fields the operator did not edit take the
server's values, so they are never sent back stale (:mod:`tui.state.survey_merge`).
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Region
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.button import ButtonVariant
from textual.widgets.option_list import Option

from tui.api.cache_context import bypass_cache
from tui.api.errors import ApiError, NotFound, UnreadableAnswer, ValidationFailed, WriteValidationError
from tui.api.models.surveys import Survey
from tui.config.paths import data_dir, stylesheets
from tui.key_registry import bindings, writing_actions
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.base import WatchdeckScreen, app_handle
from tui.screens.confirm import ConfirmScreen
from tui.screens.editor_dialogs import ConflictScreen, KindPickerScreen, LeaveScreen, PickListScreen
from tui.state.io.draft_files import DraftStore, StoredDraft
from tui.state.survey_draft import SurveyDraft, question_path, top_level
from tui.state.survey_merge import Compared, compare
from tui.text.clean import clean
from tui.text.words import ago, counted
from tui.widgets.cleaned_note import clean_survey_draft
from tui.widgets.editor.common import DraftEdited, FieldError, with_notes
from tui.widgets.editor.pick_field import LABEL_WIDTH, PickField
from tui.widgets.editor.question_form import QuestionForm
from tui.widgets.editor.survey_form import LABELS, SurveyFieldsForm
from tui.widgets.footer import KeyFooter
from tui.widgets.lists import ItemList

if TYPE_CHECKING:
    from tui.api.client import ApiClient
    from tui.clock import Clock
    from tui.state.journal_entry import SurveyWriteFailed

DRAFT_DELAY = 1.0  # seconds after the last edit before the draft is written
SHOW_DELAY = 0.1  # seconds the list cursor must rest on an item before its form is mounted
SETTINGS = "__survey__"  # option id of the survey-settings item
KIND_TAGS = {"open": "open", "link": "link", "rating": "rate", "single_choice": "one", "multiple_choice": "many"}
# Hidden in read-only mode: what writes, and the edits that could only lead to a save.
MUTATING = writing_actions("editor") | {"add", "duplicate", "delete", "move"}
# Keys that act at once while the survey is read (every other key waits for it): leaving.
LEAVE_KEYS = frozenset(key for binding in bindings("editor") if binding.action == "leave"
                       for key in binding.key.split(","))


def _line(label: Text, bad: bool) -> Text:
    """One list line: a ``!`` first when the item has problems, cut with an ellipsis, never wrapped."""
    line = Text.assemble(("! " if bad else "  ", Tone.ERROR.style), label)
    line.no_wrap = True
    line.overflow = "ellipsis"
    return line


def describe_path(path: str) -> str:
    """``questions[2].choices[0]`` -> ``Q3 choices[0]``; ``end_date`` -> its label."""
    located = question_path(path)
    if located is not None:
        index, rest = located
        return f"Q{index + 1} {rest or 'question'}".strip()
    return LABELS.get(path, path or "survey")


def _mouse_button(label: str, button_id: str, tooltip: str, variant: ButtonVariant = "default") -> Button:
    button = Button(label, id=button_id, compact=True, tooltip=tooltip, variant=variant)
    button.can_focus = False
    return button


#: A new survey's fields it starts without: "a name is required" is not said before the name was typed or a save
#: was tried.
UNTOUCHED_QUIET = frozenset({"name"})

class SurveyEditorScreen(WatchdeckScreen[Survey | None]):
    """Edit (or create, when ``survey`` is None) one survey; dismissed with the saved Survey or None."""

    CSS_PATH = stylesheets("editor.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS: ClassVar[list[BindingType]] = [
        binding for binding in bindings("editor", "form")
        if not (binding.id or "").startswith(("editor.choice_", "editor.json_"))
    ]

    def __init__(self, survey: Survey | None, *, on_failure: SurveyWriteFailed | None = None,
                 draft: SurveyDraft | None = None, read: bool = True) -> None:
        """``draft``: a new survey already filled in (from a template, or a copy); else one of ``survey``, which is
        read from the server first unless ``read`` is False (``survey`` is the server's own, just read)."""
        super().__init__(classes="survey-editor")
        # the survey is read from the server before the editor takes keys: those typed meanwhile wait for it
        # (not Textual's ``loading``, which would cover the whole screen)
        self.reading = survey is not None and draft is None and read
        self.read_problem: str | None = None  # why the survey could not be read (the list's copy is edited)
        if self.reading:
            self.hold_keys()
        # told of every failed save, so the journal holds failures as well as the saves the caller journals
        self.on_failure = on_failure
        self.draft = draft if draft is not None else SurveyDraft(survey)
        clean_survey_draft(self.draft)
        self.current: str | None = None  # question key shown, None for the survey settings
        self.store = DraftStore(data_dir() / "drafts")
        self.server_problems: dict[str, str] = {}
        self.last_error: str | None = None
        self.refused: str | None = None  # why the last save was refused locally
        self.saving = False
        self._draft_timer: Timer | None = None
        self._show_timer: Timer | None = None
        self._items: ItemList | None = None  # the question list, once composed
        self._settings_stale = False  # the draft's fields changed under the settings form: it is mounted again
        self._pending: str | None = None
        self._list_signature: tuple[tuple[str | None, str], ...] = ()
        self._write_lock = threading.Lock()
        self._write_seq = 0
        self._written_seq = 0
        self._finished = False  # saved or discarded: no draft to flush on unmount
        # A new survey's fields the operator has not edited yet, and whether a save was tried: a problem of an
        # untouched field (the name it has yet to be given) waits until it is edited or the survey is saved.
        self._touched: set[str] = set()
        self._save_tried = False

    # ------------------------------------------------------------------ app services

    @property
    def api(self) -> ApiClient:
        return app_handle(self.app).api

    @property
    def clock(self) -> Clock:
        return app_handle(self.app).clock

    @property
    def read_only(self) -> bool:
        return self.wd.settings.read_only

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="editor-title")
        with Horizontal(id="editor-body"):
            with Vertical(id="editor-side"):
                self._items = ItemList(id="editor-items")  # kept: check_action reads its cursor for every key
                yield self._items
                yield FieldError(id="editor-items-error")
                # For the mouse: each has a key, and none takes the focus, so Tab goes from the list straight
                # into the form and an Enter meant for a field can never add or delete a question.
                with Horizontal(classes="editor-buttons"):
                    yield _mouse_button("Add", "btn-add", "Add a question (ctrl+n)")
                    yield _mouse_button("Dup", "btn-duplicate", "Duplicate (ctrl+t)")
                    yield _mouse_button("Del", "btn-delete", "Delete (f8)", variant="error")
                with Horizontal(classes="editor-buttons"):
                    yield _mouse_button("Up", "btn-up", "Move up (ctrl+up)")
                    yield _mouse_button("Down", "btn-down", "Move down (ctrl+down)")
                    yield _mouse_button("View", "btn-preview", "Preview (f5)")
            yield VerticalScroll(id="editor-form", can_focus=False)  # its fields take the focus, not it
        yield Static(id="editor-summary")
        yield KeyFooter()

    async def on_mount(self) -> None:
        if not self.reading:
            await self._show_survey()
            return
        name = self.draft.survey.name if self.draft.survey is not None else ""
        self.query_one("#editor-title", Static).update(Text.assemble(
            ("Edit survey", "bold"), ": ", plain(name or "(unnamed)", limit=80), (" · reading it from the server…",
                                                                                  "italic")))
        self.query_one("#editor-summary", Static).update(Text("Reading the survey from the server…",
                                                              Tone.MUTED.style))
        self.query_one("#editor-items", OptionList).disabled = True
        self._read()

    def holds(self, key: str) -> bool:
        """While the survey is read, Escape (and q) leave at once; every other key waits for it."""
        return key not in LEAVE_KEYS

    @work(exclusive=True, group="editor-read", exit_on_error=False, description="read survey")
    async def _read(self) -> None:
        survey = self.draft.survey
        assert survey is not None
        try:
            with bypass_cache():  # the server's record, not an answer another viewer stored
                fresh = await self.api.surveys.get(survey.id)
        except NotFound:
            self.reading = False
            self.notify(f"Survey {clean(survey.name or survey.id, limit=80)} is no longer on the server.",
                        severity="error", markup=False)
            self._finished = True
            self.dismiss(None)
            return
        except ApiError as err:
            self.read_problem = str(err)
        else:
            self.draft = SurveyDraft(fresh)
            clean_survey_draft(self.draft)
        self.reading = False
        self.query_one("#editor-items", OptionList).disabled = False
        await self._show_survey()

    async def _show_survey(self) -> None:
        """The survey is in the draft: its list and settings, the focus, a stored draft offered; then keys."""
        self._refresh_list()
        await self._show(None)
        names = self.query("#f-name").results(Input)
        # A new survey starts on its name (what it needs first); an existing one on its question list.
        # At once (focus() waits): the keys held while the survey was read go where the operator will see them.
        if self.draft.creating and (name := next(iter(names), None)) is not None:
            self.set_focus(name, scroll_visible=False)
        else:
            self.set_focus(self.query_one("#editor-items", OptionList), scroll_visible=False)
        self._update_status()
        stored = self.store.read(self.draft.draft_id) if not self.draft.creating else self.store.latest_new()
        if stored is not None:
            self._offer_restore(stored)  # its question is on top: keys held were not typed as its answer
        self.take_keys()

    def action_to_list(self) -> None:
        """F6 in a field, as it arrives: the focus moves to the question list at once (``focus()`` waits for the
        next turn), so the keys typed after F6 go there. From the list F6 is :meth:`action_switch_pane`'s."""
        items = self.query_one("#editor-items", OptionList)
        if self.focused is items:
            raise SkipAction()
        self.set_focus(items)

    async def action_switch_pane(self) -> None:
        """F6: from the question list into the form (its first field), and from anywhere in the form back."""
        items = self.query_one("#editor-items", OptionList)
        if self.focused is not items:
            self.set_focus(items)
            return
        # The question under the list's cursor now: its OptionHighlighted may still be on its way.
        if items.highlighted is not None:
            option_id = items.get_option_at_index(items.highlighted).id
            self._pending = None if option_id == SETTINGS else option_id
        await self._show_pending()  # the highlighted question's form, if the cursor just moved
        for form in self.query_one("#editor-form", VerticalScroll).query_children(".editor-form"):
            if not form.display:
                continue  # the settings form, kept while a question is shown
            for widget in form.query("Input, TextArea, Select, Checkbox"):
                if widget.focusable:
                    self.set_focus(widget)
                    return

    # ------------------------------------------------------------------ the item list

    def _problems(self) -> dict[str, str]:
        problems = self.draft.problems()
        if self.draft.creating and not self._save_tried:
            problems = {path: message for path, message in problems.items()
                        if top_level(path) in self._touched or top_level(path) not in UNTOUCHED_QUIET}
        problems.update(self.server_problems)
        return problems

    def _refresh_list(self) -> None:
        problems = self._problems()
        bad_questions = {located[0] for path in problems if (located := question_path(path)) is not None}
        survey_bad = any(question_path(p) is None and p != "questions" for p in problems)
        options = [Option(_line(Text("Survey settings", "bold"), survey_bad), id=SETTINGS)]
        for i, q in enumerate(self.draft.questions):
            label = Text.assemble(f"{i + 1:>2}. ", (f"{KIND_TAGS.get(q.kind, '?'):<4} ", Tone.MUTED.style),
                                  plain(q.text or "(untitled)", limit=80))
            options.append(Option(_line(label, i in bad_questions), id=q.key))
        items = self.query_one("#editor-items", OptionList)
        signature = tuple((o.id, str(o.prompt)) for o in options)
        with self.prevent(OptionList.OptionHighlighted):
            if signature != self._list_signature:  # a keystroke in a description need not relayout the list
                self._list_signature = signature
                items.set_options(options)
            if items.highlighted != self._item_index():
                items.highlighted = self._item_index()

    def _item_index(self) -> int:
        return 0 if self.current is None else self.draft.index_of(self.current) + 1

    @on(OptionList.OptionHighlighted, "#editor-items")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Arrowing through the list shows each form, but only once the cursor rests (a form costs a mount)."""
        event.stop()
        self._pending = None if event.option.id == SETTINGS else event.option.id
        if self._show_timer is not None:
            self._show_timer.stop()
        self._show_timer = self.set_timer(SHOW_DELAY, self._show_pending)

    @on(OptionList.OptionSelected, "#editor-items")
    async def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._pending = None if event.option.id == SETTINGS else event.option.id
        await self._show_pending()

    async def _show_pending(self) -> None:
        if self._show_timer is not None:
            self._show_timer.stop()
            self._show_timer = None
        if self._pending != self.current and (self._pending is None or
                                              self._pending in {q.key for q in self.draft.questions}):
            await self._show(self._pending)

    async def _show(self, key: str | None, *, focus: str | None = None) -> None:
        """Show the form of ``key`` (None: survey settings); ``focus`` is a widget id to focus after.

        A question's form is mounted each time. The settings form is mounted once per draft and hidden while a
        question is shown (its fields write into the draft, so it shows the draft as it is when shown again): it has
        the most fields and took the longest to mount.
        """
        self.current = key
        container = self.query_one("#editor-form", VerticalScroll)
        settings = self._kept_settings(container)
        shown = container.query_children(".editor-form").results(Widget)
        await container.remove_children([form for form in shown if form is not settings])
        if key is None:
            if settings is None:
                await container.mount(SurveyFieldsForm(self.draft))
                self._settings_stale = False
            else:
                settings.display = True
        else:
            if settings is not None:
                self._hide(settings)
            await container.mount(QuestionForm(self.draft, key))
        self._show_problems()
        self.refresh_bindings()
        if focus:
            for widget in self.query(f"#{focus}"):
                if widget.focusable:
                    widget.focus()
                    break

    def _kept_settings(self, container: VerticalScroll) -> SurveyFieldsForm | None:
        """The settings form mounted earlier, if it is the current draft's."""
        form = next(iter(container.query_children(SurveyFieldsForm).results(SurveyFieldsForm)), None)
        return form if form is not None and form.draft is self.draft and not self._settings_stale else None

    def _hide(self, form: Widget) -> None:
        """Hide ``form``; the focus in it goes to the question list, as it does when a form is removed."""
        if self.focused is not None and form in self.focused.ancestors:
            self.set_focus(self.query_one("#editor-items", OptionList), scroll_visible=False)
        form.display = False

    def _select(self, key: str | None) -> None:
        items = self.query_one("#editor-items", OptionList)
        if self._show_timer is not None:
            self._show_timer.stop()
            self._show_timer = None
        self.current = key
        with self.prevent(OptionList.OptionHighlighted):
            items.highlighted = self._item_index()

    def action_pick_target(self) -> None:
        """Enter on a field of a few values (a branch row, a question's format): the list of its values under it,
        pushed as the key is handled (the keys sent with it wait for the list); the value picked becomes the field's
        value."""
        field = self.focused
        if not isinstance(field, PickField):
            return
        listed = field.listed()
        values = [value for _, value in listed]
        index = values.index(field.value) if field.value in values else None
        label_width = LABEL_WIDTH if field.label is not None else 0
        region = field.region
        under = Region(region.x + label_width, region.y, region.width - label_width, region.height)

        def picked(index: int | None) -> None:
            if index is not None and field.is_attached:
                field.value = values[index]

        self.app.push_screen(PickListScreen([prompt for prompt, _ in listed], index, under), picked)

    # ------------------------------------------------------------------ edits and problems

    @on(DraftEdited)
    def _edited(self, event: DraftEdited) -> None:
        event.stop()
        if event.field:
            self._touched.add(event.field)
            self.server_problems = {p: m for p, m in self.server_problems.items() if top_level(p) != event.field}
        self._after_edit()

    def _after_edit(self, *, persist: bool = True) -> None:
        """A field or the questions (added, deleted, moved) changed: a refused save's summary is of an older draft."""
        self.refused = None
        self._refresh_list()
        self._show_problems()
        self._update_status()
        if persist:
            self._schedule_draft()

    def _show_problems(self) -> None:
        problems = with_notes(self._problems(), self.draft.notes())
        self.query_one("#editor-items-error", FieldError).show(problems.get("questions"))
        # the form shown (the settings form, hidden while a question is shown, is brought up to date as it shows)
        shown = [form for form in self.query_one("#editor-form", VerticalScroll).children if form.display]
        for form in (form for form in shown if isinstance(form, SurveyFieldsForm)):
            form.show_problems({p: m for p, m in problems.items() if question_path(p) is None and p != "questions"})
        live = {q.key for q in self.draft.questions}
        for qform in (form for form in shown if isinstance(form, QuestionForm)):
            if qform.key not in live:
                continue  # being replaced: its question was just deleted
            index = self.draft.index_of(qform.key)
            mine: dict[str, str] = {}
            for path, message in problems.items():
                located = question_path(path)
                if located is not None and located[0] == index:
                    mine[located[1] or "question"] = message
            qform.show_problems(mine)

    def _update_status(self) -> None:
        name = self.draft.form.get("name") or ""
        dirty = self.draft.dirty
        title = Text.assemble(
            ("New survey" if self.draft.creating else "Edit survey", "bold"), ": ",
            plain(name or "(unnamed)", limit=80), (" · unsaved changes" if dirty else "", "italic"))
        self.query_one("#editor-title", Static).update(title)
        problems = self._problems()
        summary = Text()
        if self.saving:
            summary.append("Saving…", "bold")
        elif self.refused:
            summary.append(self.refused, Tone.ERROR.style)
        elif self.last_error:
            summary.append("Not saved: ", Tone.ERROR.style)
            summary.append(clean(self.last_error))
        elif problems:
            path, message = next(iter(problems.items()))
            summary.append(counted(len(problems), "problem"), Tone.ERROR.style)
            summary.append(f" · {describe_path(path)}: ")
            summary.append(clean(message))
        elif dirty:
            summary.append("Unsaved changes · ctrl+s saves · escape leaves")
            notes = self.draft.notes()
            if notes:
                path, message = next(iter(notes.items()))
                summary.append(f" · {counted(len(notes), 'note')}: {describe_path(path)}: ", Tone.NOTE.style)
                summary.append(clean(message, limit=200))
        else:
            summary.append("No changes", Tone.MUTED.style)
        if self.read_problem and not self.saving:
            summary = Text.assemble(("Not read from the server: ", Tone.WARNING.style),
                                    clean(self.read_problem, limit=200),
                                    " (this is the list's copy; a save reads the survey first) · ", summary)
        reworded = self.draft.reworded_live_questions(app_handle(self.app).server_clock.now())
        if reworded:
            numbers = ", ".join(f"Q{n}" for n in reworded[:5]) + ("…" if len(reworded) > 5 else "")
            summary.append(f" · running survey: responses already collected answered the old wording of {numbers}",
                           Tone.NOTE.style)
        self.query_one("#editor-summary", Static).update(summary)

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.reading:
            return action == "leave"
        if action in MUTATING and self.read_only:
            return False
        if action == "save" and self.saving:
            return None
        if action in ("duplicate", "delete", "move"):
            target = self._target()
            if target is None:
                return None
            if action == "move":
                index = self.draft.index_of(target)
                delta = parameters[0] if parameters else 0
                if (delta == -1 and index == 0) or (delta == 1 and index == len(self.draft.questions) - 1):
                    return None
        return True

    @on(Button.Pressed, ".editor-buttons Button")
    async def _button(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {"btn-add": "add", "btn-duplicate": "duplicate", "btn-delete": "delete", "btn-up": "move(-1)",
                   "btn-down": "move(1)", "btn-preview": "preview"}
        action = actions.get(event.button.id or "")
        if action:
            await self.run_action(action)

    def _target(self) -> str | None:
        """The question the question keys act on now: under the list's cursor while the list has the focus, else
        the one whose form is shown (None: the survey's settings)."""
        items = self._items
        index = items.highlighted if items is not None else None
        if items is None or index is None or not items.has_focus:
            return self.current
        option = items.get_option_at_index(index).id
        return option if option in {q.key for q in self.draft.questions} else None

    async def _follow_list(self) -> None:
        """Show the form of the item the list's cursor is on now, if another is shown: the question keys act on it.

        The form follows the cursor once it rests (and its ``OptionHighlighted`` is handled later still): a key
        that arrives with the move (``Down F8`` in one write) acts on the item the cursor is on, not on the form
        left behind.
        """
        key = self._target()
        if key != self.current:
            self._select(key)
            await self._show(key)

    async def action_add(self) -> None:
        await self._follow_list()
        self.app.push_screen(KindPickerScreen(), self._add_kind)

    async def _add_kind(self, kind: str | None) -> None:
        if not kind:
            return
        q = self.draft.add_question(kind, after=self.current)
        self._select(q.key)
        self._after_edit()
        await self._show(q.key, focus="q-question")

    async def action_duplicate(self) -> None:
        await self._follow_list()
        if self.current is None:
            return
        q = self.draft.duplicate_question(self.current)
        self._select(q.key)
        self._after_edit()
        await self._show(q.key, focus="q-question")

    async def action_delete(self) -> None:
        await self._follow_list()
        if self.current is None:
            return
        key = self.current
        q = self.draft.question(key)
        question = Text.assemble(f"Delete question {self.draft.index_of(key) + 1}: ", plain(q.text or "(untitled)"),
                                 "?\nBranches that point at it will ask for a new target.")

        async def answer(yes: bool | None) -> None:
            if not yes or key not in {x.key for x in self.draft.questions}:
                return
            index = self.draft.index_of(key)
            self.draft.delete_question(key)
            remaining = self.draft.questions
            target = remaining[min(index, len(remaining) - 1)].key if remaining else None
            self._select(target)
            await self._show(target)
            self._after_edit()

        self.app.push_screen(ConfirmScreen("Delete question", question, yes_label="Delete", danger=True), answer)

    async def action_move(self, delta: int) -> None:
        await self._follow_list()
        if self.current is None or not self.draft.move_question(self.current, delta):
            return
        focused = self.focused.id if self.focused is not None else None
        self._after_edit()
        await self._show(self.current, focus=focused)

    def action_preview(self) -> None:
        from tui.screens.survey_preview import SurveyPreviewScreen

        name = str(self.draft.form.get("name") or "")
        appearance = self.draft.payload().get("appearance")
        self.app.push_screen(SurveyPreviewScreen(self.draft.questions_payload(), name,
                                                 appearance if isinstance(appearance, dict) else None))

    # ------------------------------------------------------------------ saving

    def action_save(self) -> None:
        if self.saving or self.read_only:
            return
        problems = self.draft.blocking_problems()
        if problems:
            if not self._save_tried:
                self._save_tried = True
                self._refresh_list()
                self._show_problems()
            listed = "; ".join(f"{describe_path(p)}: {m}" for p, m in list(problems.items())[:3])
            more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
            self.refused = f"Not saved, {counted(len(problems), 'problem')}: {listed}{more}"
            self._update_status()
            self.call_after_refresh(self._go_to_problem, next(iter(problems)))
            return
        changes = self.draft.changes()
        if not self.draft.creating and not changes:
            self.notify("Nothing to save.", markup=False)
            return
        self.saving = True
        self.last_error = None
        self.refused = None
        self._update_status()
        self.refresh_bindings()
        self._save(changes)

    async def _go_to_problem(self, path: str) -> None:
        located = question_path(path)
        key = None
        if located is not None and located[0] < len(self.draft.questions):
            key = self.draft.questions[located[0]].key
        if key != self.current:
            self._select(key)
            await self._show(key)

    async def _carry_onto(self, fresh: Survey, compared: Compared, take_theirs: frozenset[str]) -> dict[str, Any]:
        """Edit the server's survey with the operator's fields (all but those whose server value is taken): what
        to send now (nothing when the server holds every edit already)."""
        theirs = SurveyDraft(fresh)
        clean_survey_draft(theirs)
        await self._adopt(self.draft.carried_onto(theirs, compared.kept(take_theirs)))
        changes = self.draft.changes()
        if not changes:
            self.notify("Nothing to save: the server holds these values already.", markup=False)
        return changes

    def _ask_about(self, fresh: Survey, compared: Compared, changes: dict[str, Any]) -> None:
        """Fields changed on both sides: the operator chooses, and the answer saves (Escape: nothing is sent)."""

        def answered(answer: str | None) -> None:
            if answer is None:
                self._save_ended()
                return
            take = compared.conflicted if answer == "theirs" else frozenset()
            self._save(changes, (fresh, compared, take))

        self.app.push_screen(ConflictScreen(compared.conflicts, describe_path), answered)

    def _save_ended(self) -> None:
        self.saving = False
        self._after_edit(persist=False)
        self.refresh_bindings()

    async def _adopt(self, draft: SurveyDraft) -> None:
        """Edit ``draft`` from now on (the server's survey with the operator's edits): the list, and the form of
        the item at the same place."""
        index = self._item_index()
        self.draft = draft
        self.read_problem = None
        self._list_signature = ()
        key = draft.questions[index - 1].key if 0 < index <= len(draft.questions) else None
        self._select(key)
        await self._show(key)
        self._after_edit(persist=False)

    @work(exclusive=True, group="editor-save", exit_on_error=False, description="save survey")
    async def _save(self, changes: dict[str, Any],
                    resolved: tuple[Survey, Compared, frozenset[str]] | None = None) -> None:
        """Create, or read the survey again and PATCH the operator's fields onto it; ``resolved``: the survey read,
        the compare and the fields whose server value the operator took, once a conflict was answered."""
        try:
            if self.draft.survey is None:
                saved = await self.api.surveys.create(changes)
            else:
                if resolved is None:
                    with bypass_cache():  # the server's record, not an answer another viewer stored
                        fresh = await self.api.surveys.get(self.draft.survey.id)
                    compared = compare(self.draft.baseline, self.draft.payload(), SurveyDraft(fresh).baseline)
                    if compared.conflicts:
                        self._ask_about(fresh, compared, changes)
                        return
                    resolved = (fresh, compared, frozenset())
                changes = await self._carry_onto(*resolved)
                if not changes:
                    self._save_ended()
                    return
                assert self.draft.survey is not None
                saved = await self.api.surveys.update(self.draft.survey.id, changes, self.draft.existing)
        except WriteValidationError as err:
            self.server_problems = {}
            self.refused = f"Not saved: {err}"
            self._failed(changes, f"refused before sending: {err}")
        except ValidationFailed as err:
            self.server_problems = {err.field or "": err.detail or str(err)}
            self.last_error = str(err)
            self._failed(changes, f"failed: {err}")
        except ApiError as err:
            self.last_error = str(err)
            self._failed(changes, f"{'unclear' if isinstance(err, UnreadableAnswer) else 'failed'}: {err}")
        except Exception as err:
            self.last_error = f"Unexpected error: {err}"
            self._failed(changes, f"failed: unexpected error: {err}")
        else:
            self._finished = True
            if self._draft_timer is not None:
                self._draft_timer.stop()
            self._write_seq += 1  # any write still in flight is now stale
            self.store.remove(self.draft.draft_id)
            self.saving = False
            self.dismiss(saved)
            return
        self._write_draft_now()  # nothing the operator typed is lost to a failure
        self._save_ended()

    def _failed(self, changes: dict[str, Any], result: str) -> None:
        if self.on_failure is None:
            return
        survey = self.draft.survey
        name = changes.get("name") if isinstance(changes.get("name"), str) else (survey.name if survey else None)
        self.on_failure("create" if survey is None else "edit", survey.id if survey else None, name, result,
                        {"fields": sorted(changes)})

    # ------------------------------------------------------------------ drafts

    def _schedule_draft(self) -> None:
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(DRAFT_DELAY, self._draft_due)

    def _draft_snapshot(self) -> str:
        return json.dumps(self.draft.to_json(self.clock.now()), indent=1)  # ASCII: it holds server text as it is

    def _draft_due(self) -> None:
        self._draft_timer = None
        if self._finished:
            return
        self._write_seq += 1
        if self.draft.dirty:
            self._write_draft(self._write_seq, self.draft.draft_id, self._draft_snapshot())
        else:
            self._write_draft(self._write_seq, self.draft.draft_id, None)

    @work(thread=True, group="editor-draft", exit_on_error=False, description="write draft")
    def _write_draft(self, seq: int, draft_id: str, text: str | None) -> None:
        with self._write_lock:
            if seq < self._written_seq or seq < self._write_seq:
                return  # a newer snapshot (or a save) superseded this one
            self._written_seq = seq
            if text is None:
                self.store.remove(draft_id)
            else:
                self.store.write(draft_id, text)

    def _write_draft_now(self) -> None:
        """Synchronously, for leaving and for failed saves: the debounce must not lose the last edit."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        with self._write_lock:
            self._write_seq += 1
            self._written_seq = self._write_seq
            if self.draft.dirty:
                self.store.write(self.draft.draft_id, self._draft_snapshot())

    def _offer_restore(self, stored: StoredDraft) -> None:
        when = stored.saved_at
        stamp = f"{when:%Y-%m-%d %H:%M} UTC ({ago(when, self.clock.now())})" if when else "an earlier session"
        question = Text(f"Restore unsaved draft from {stamp}?\nNo discards it.")

        async def answer(yes: bool | None) -> None:
            if not yes:
                self.store.remove(stored.path.stem)
                return
            self.draft.restore(stored.data)
            self._settings_stale = True
            clean_survey_draft(self.draft)
            if self.draft.creating and isinstance(stored.data.get("draft_id"), str):
                self.draft.draft_id = stored.data["draft_id"]
            self._select(None)
            self._after_edit(persist=False)
            await self._show(None)

        self.app.push_screen(ConfirmScreen("Unsaved draft", question, yes_label="Restore"), answer)

    # ------------------------------------------------------------------ leaving

    def action_leave(self) -> None:
        if self.reading:  # nothing edited yet, and a draft stored earlier stays for the next time
            self.reading = False
            self._finished = True
            self.workers.cancel_group(self, "editor-read")
            self.dismiss(None)
            return
        if not self.draft.dirty:
            self._finished = True
            if self._draft_timer is not None:
                self._draft_timer.stop()
            self.store.remove(self.draft.draft_id)
            self.dismiss(None)
            return
        self.app.push_screen(LeaveScreen(), self._left)

    def _left(self, answer: str | None) -> None:
        if answer == "keep":
            self._write_draft_now()
            self._finished = True
            self.dismiss(None)
        elif answer == "discard":
            self._finished = True
            if self._draft_timer is not None:
                self._draft_timer.stop()
            with self._write_lock:
                self._write_seq += 1
                self.store.remove(self.draft.draft_id)
            self.dismiss(None)

    def on_unmount(self) -> None:
        """The app is quitting with edits not yet written: write them now (best effort)."""
        if not self._finished and self.draft.dirty:
            with contextlib.suppress(OSError):
                self._write_draft_now()
