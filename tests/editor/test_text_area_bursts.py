"""Multi-line fields keep the text typed right after their own edit keys when the keys arrive in one write (issue 42,
item 6): a TextArea ran ctrl+u, End, Home and the arrows once the key had gone up to the app, after the letters
queued behind it (the same class of loss one-line fields had before they became TextFields)."""

from __future__ import annotations

import pytest
from textual.widgets import TextArea

from tests.pilot import burst
from tui.api.models.surveys import Survey

from .conftest import EditorHarness
from .helpers import select_item, settle
from .test_editor_snapshots import SURVEY


@pytest.mark.parametrize(("keys", "wanted"), [
    (("end", "ctrl+u", "N", "e", "w"), "New"),  # the line cleared, then typed
    (("home", "X", "end", "Y"), "XBe honestY"),
    (("end", "left", "left", "Z"), "Be honeZst"),
    (("end", "backspace", "backspace", "!"), "Be hone!"),
], ids=["ctrl+u", "home-end", "arrows", "backspace"])
async def test_keys_sent_together_edit_the_description_in_order(keys: tuple[str, ...], wanted: str) -> None:
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await select_item(pilot, 1)  # "Be honest"
        area = app.screen.query_one("#q-description", TextArea)
        area.focus()
        await settle(pilot)
        await burst(pilot, *keys)
        assert area.text == wanted
        assert app.screen.draft.questions[0].data["description"] == wanted


async def test_keys_sent_together_edit_a_json_field_in_order() -> None:
    """The settings form's JSON fields (their own Escape and F6 aside) keep keys in order too."""
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        area = app.screen.query_one("#f-appearance", TextArea)
        area.focus()
        await settle(pilot)
        assert area.text == "{}"  # the keys of appearance that have no field of their own: none
        await burst(pilot, "end", "ctrl+u", "[", "]")
        assert area.text == "[]"


def test_every_multi_line_field_is_a_text_box() -> None:
    """A field built as Textual's TextArea would run ctrl+u after the letters typed behind it again."""
    import re
    from pathlib import Path

    tui = Path(__file__).resolve().parents[2] / "tui"
    built = [f"{path.relative_to(tui)}:{number}"
             for path in sorted(tui.rglob("*.py")) if path.name != "text_field.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"(?<![\w.])TextArea\(", line) or re.search(r"class \w+\(TextArea\)", line)]
    assert built == []
