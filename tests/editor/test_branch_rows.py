"""A response's branch is one row (issue 42, item 6: a rating's eleven rows of Label and Select made its form slow to
show): the keyboard picks its target from a list dropped under it, keys sent together included, and a save sends
what was picked."""

from __future__ import annotations

from typing import Any

from syrupy.assertion import SnapshotAssertion
from textual.widgets import OptionList

from tests.pictures import Pictures, hold_cursors
from tests.pilot import burst
from tui.screens.editor_dialogs import PickListScreen
from tui.state.survey_draft import END
from tui.widgets.editor.branching import NEXT
from tui.widgets.editor.pick_field import BranchRow, PickField

from .conftest import body_of, create_survey, make_app
from .helpers import open_editor, save, select_item, settle
from .test_editor_snapshots import harness

PLANS = {"name": "Plans", "type": "popover", "questions": [
    {"type": "single_choice", "question": "Which plan are you on?", "choices": ["Free", "Pro", "Enterprise"],
     "branching": {"type": "response_based", "responseValues": {"0": 1, "2": "end"}}},
    {"type": "open", "question": "Why free?"},
]}


async def test_the_keyboard_picks_a_branch_target_from_the_row_keys_sent_together_too(sandbox: Any) -> None:
    survey = await create_survey(sandbox, PLANS)
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, _ = await open_editor(pilot, survey)
        await select_item(pilot, 1)
        second = screen.draft.questions[1].key
        rows = list(screen.query(BranchRow))
        assert [row.value for row in rows] == [second, NEXT, END]
        assert str(rows[1].render()).split() == ["Pro", "Next", "question", "▼"]
        rows[1].focus()
        await settle(pilot)

        # Enter opens the list on the current target; Down and Enter sent with it pick the one below
        await burst(pilot, "enter", "down", "enter")
        assert app.screen is screen and screen.focused is rows[1]
        assert rows[1].value == END and "End the survey" in str(rows[1].render())
        assert screen.draft.questions[0].branch is not None
        assert screen.draft.questions[0].branch.responses == {"0": second, "1": END, "2": END}

        # Escape and q close the list and change nothing
        for leave in ("escape", "q"):
            await burst(pilot, "enter")
            assert isinstance(app.screen, PickListScreen)
            targets = app.screen.query_one("#pick-list", OptionList)
            assert targets.highlighted == 1 and targets.has_focus  # End the survey: the row's target
            await burst(pilot, "up", leave)
            assert app.screen is screen and rows[1].value == END, leave

        # the list holds every target of the row: Next question, End, the other questions
        await burst(pilot, "space")
        targets = app.screen.query_one("#pick-list", OptionList)
        assert [str(targets.get_option_at_index(i).prompt) for i in range(targets.option_count)] == [
            "Next question", "End the survey", "2. Why free?"]
        await burst(pilot, "home", "enter")
        assert rows[1].value == NEXT and screen.draft.questions[0].branch.responses == {"0": second, "2": END}

        await burst(pilot, "tab", "enter", "up", "enter")  # the third row: End, then Next question
        assert screen.focused is rows[2] and rows[2].value == NEXT
        writes = await save(pilot, sandbox, len(sandbox.requests()))
        assert [body_of(write)["questions"][0]["branching"] for write in writes] == [
            {"type": "response_based", "responseValues": {"0": 1}}]


async def test_a_picked_target_follows_its_question_when_questions_move() -> None:
    """The row's value is the question's stable key: moving the target question renumbers what is shown."""
    app = harness()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        await select_item(pilot, 4)  # the single choice: Free -> 2. Read what is new
        row = screen.query_one("#b-resp-0", BranchRow)
        assert "2. Read what is new" in str(row.render())
        await select_item(pilot, 2)
        await pilot.press("ctrl+up")
        await settle(pilot)
        await select_item(pilot, 4)
        assert "1. Read what is new" in str(screen.query_one("#b-resp-0", BranchRow).render())


async def test_the_target_list_opens_under_its_row(snapshot: SnapshotAssertion) -> None:
    pictures = Pictures(snapshot)
    async with pictures.session(harness(), (80, 24)) as pilot:
        await settle(pilot)
        await select_item(pilot, 4)
        pilot.app.screen.query_one("#b-resp-2", BranchRow).focus()
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PickListScreen)
        hold_cursors(pilot)
        await pictures.take(pilot, "single-choice-80x24")
    pictures.check()


async def test_a_questions_fields_of_a_few_values_are_picked_from_the_same_list() -> None:
    """The rating's scale: Enter lists a blank first (it clears the field) and the scales; the branching type: the
    form is rebuilt for the type picked, its field keeps the focus; a click opens the list too."""
    app = harness()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        await select_item(pilot, 3)  # the rating
        key = screen.current
        scale = screen.query_one("#q-scale", PickField)
        scale.focus()
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        values = app.screen.query_one("#pick-list", OptionList)
        assert [str(values.get_option_at_index(i).prompt) for i in range(values.option_count)] == [
            "Choose", "3", "5", "7", "10"]
        assert values.highlighted == 4
        await pilot.press("up", "enter")
        await settle(pilot)
        assert app.screen is screen and scale.value == 7 and screen.draft.question(key).data["scale"] == 7
        await pilot.press("enter", "home", "enter")
        await settle(pilot)
        assert scale.value is None and "scale" not in screen.draft.question(key).data

        await select_item(pilot, 1)  # the open question, which goes to a specific question
        assert screen.query("#b-target")
        kind = screen.query_one("#b-type", PickField)
        await pilot.click(kind)
        await settle(pilot)
        assert isinstance(app.screen, PickListScreen)
        await pilot.press("end", "up", "enter")  # from A specific question (the last) to End the survey
        await settle(pilot)
        branch = screen.draft.question(screen.current).branch
        assert branch is not None and branch.type == "end"
        assert not screen.query("#b-target") and screen.focused is screen.query_one("#b-type", PickField)
