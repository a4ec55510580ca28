"""Where a question leads: next question, end, a specific question, or a row per response value.

Targets are chosen from a list of the *other* questions by their text, never typed as an index;
the values are the draft's stable question keys, so the choice survives moves. A target whose
question was deleted shows blank with a message until the operator picks another. Each response of a
response-based branch is one :class:`~tui.widgets.editor.pick_field.BranchRow`.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label

from tui.look.render import plain
from tui.state.survey_draft import BRANCH_TYPES, END, RESPONSE_BASED_KINDS, SurveyDraft
from tui.widgets.editor.common import DraftEdited, FieldError
from tui.widgets.editor.pick_field import BranchRow, PickField

NEXT = "__next__"  # the "no mapping" option of a response row: continue with the next question
RESPONSE_ROWS_MAX = 50  # response rows drawn at most (one per choice otherwise)


class BranchingForm(Vertical):
    """Edits ``branching`` of one question of ``draft``."""

    def __init__(self, draft: SurveyDraft, key: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="branching-form")
        self.draft = draft
        self.key = key
        self.row_keys: list[str] = []

    def _target_options(self, *, with_end: bool) -> list[tuple[Text, str]]:
        options: list[tuple[Text, str]] = []
        if with_end:
            options.append((Text("Next question"), NEXT))
            options.append((Text("End the survey"), END))
        options.extend((plain(label, limit=60), key) for key, label in self.draft.targets_for(self.key))
        return options

    def compose(self) -> ComposeResult:
        q = self.draft.question(self.key)
        branch = q.branch
        current = branch.type if branch is not None else "next_question"
        types = [(Text(label), value) for value, label in BRANCH_TYPES.items()
                 if value != "response_based" or q.kind in RESPONSE_BASED_KINDS or current == value]
        if current not in BRANCH_TYPES:
            types.append((plain(f"{current} (unknown, kept as is)"), current))
        yield Label("After this question", classes="field-label")
        yield PickField(types, current, id="b-type")
        yield FieldError(id="be-type")
        if branch is None:
            return
        if branch.type == "specific_question":
            options = self._target_options(with_end=False)
            valid = {value for _, value in options}
            yield Label("Go to question", classes="field-label")
            yield PickField(options, branch.target if branch.target in valid else None, prompt="Choose a question",
                            id="b-target")
            yield FieldError(id="be-index")
        elif branch.type == "response_based":
            if q.kind == "rating":
                yield Label("Match responses by", classes="field-label")
                yield PickField([(Text("Each value"), "values"), (Text("Ranges"), "ranges")], branch.mode, id="b-mode")
            yield FieldError(id="be-responseValues")
            options = self._target_options(with_end=True)
            valid = {value for _, value in options}
            shown = q.response_keys()
            known = {k for k, _ in shown}
            shown += [(k, f"{k} (kept from the server)") for k in branch.responses if k not in known]
            if len(shown) > RESPONSE_ROWS_MAX:  # a row per choice of 10,000 choices would freeze
                listed = [(k, label) for k, label in shown if k in branch.responses][:RESPONSE_ROWS_MAX]
                yield Label(plain(f"{len(shown):,} responses: only the {len(listed):,} with a branch are listed "
                                  "(the others go to the next question and are kept as they are).", limit=200),
                            classes="hint")
                shown = listed
            self.row_keys = [k for k, _ in shown]
            if not shown:
                yield Label("No responses to map yet.", classes="hint")
            for n, (response_key, label) in enumerate(shown):
                target = branch.responses.get(response_key, NEXT)
                yield BranchRow(label, options, target if target in valid else None, id=f"b-resp-{n}",
                                classes="response-target")
                yield FieldError(id=f"be-resp-{n}")

    async def rebuild(self) -> None:
        """Rows depend on the scale, mode, choices and the other questions."""
        await self.recompose()

    @on(PickField.Changed, "#b-type, #b-target, #b-mode")
    async def _changed(self, event: PickField.Changed) -> None:
        event.stop()
        select_id = event.field.id or ""
        q = self.draft.question(self.key)
        value = event.value
        if select_id == "b-type":
            if not isinstance(value, str) or (q.branch is None and value == "next_question"):
                return
            if q.branch is not None and q.branch.type == value:
                return
            self.draft.set_branch_type(self.key, value)
            await self.rebuild()
            self.query_one("#b-type", PickField).focus()
        elif q.branch is None:
            return
        elif select_id == "b-target":
            new = value if isinstance(value, str) else ""
            if new == q.branch.target or (not new and q.branch.target.startswith("!")):
                return
            q.branch.target = new
        elif select_id == "b-mode":
            if value == q.branch.mode or not isinstance(value, str):
                return
            q.branch.mode = value
            q.prune_responses()
            await self.rebuild()
            self.query_one("#b-mode", PickField).focus()
        else:
            return
        self.post_message(DraftEdited("questions"))

    @on(PickField.Changed, ".response-target")
    def _row_changed(self, event: PickField.Changed) -> None:
        event.stop()
        q = self.draft.question(self.key)
        n = int((event.field.id or "").rsplit("-", 1)[1])
        if q.branch is None or n >= len(self.row_keys):
            return
        response_key = self.row_keys[n]
        old = q.branch.responses.get(response_key, NEXT)
        value = event.value
        if value is None or value == old:
            return
        if value == NEXT:
            q.branch.responses.pop(response_key, None)
        else:
            q.branch.responses[response_key] = value
        self.post_message(DraftEdited("questions"))

    def refresh_labels(self) -> None:
        """Choice texts changed: relabel the response rows without rebuilding them."""
        q = self.draft.question(self.key)
        labels = dict(q.response_keys())
        for n, response_key in enumerate(self.row_keys):
            if response_key in labels:
                for row in self.query(f"#b-resp-{n}").results(BranchRow):
                    row.label = labels[response_key]

    def show_problems(self, problems: dict[str, str]) -> None:
        """``problems`` relative to the question: ``branching``, ``branching.index``, ...``responseValues.<k>``."""
        for error in self.query(FieldError):
            error_id = error.id or ""
            if error_id == "be-type":
                error.show(problems.get("branching.type") or problems.get("branching"))
            elif error_id == "be-index":
                error.show(problems.get("branching.index"))
            elif error_id == "be-responseValues":
                error.show(problems.get("branching.responseValues"))
            elif error_id.startswith("be-resp-"):
                n = int(error_id.rsplit("-", 1)[1])
                key = self.row_keys[n] if n < len(self.row_keys) else None
                error.show(problems.get(f"branching.responseValues.{key}") if key is not None else None)
