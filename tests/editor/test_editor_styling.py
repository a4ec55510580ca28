"""Opening the editor styles its screen once: the mount styles it, and its first resume keeps those styles
(``tui.screens.base.StyledAtMount``); going back to it from the other mode restyles it, as Textual does."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

from tests.pilot import opened_by, settle
from tui.screens.editor import SurveyEditorScreen

from .conftest import InProcessSandbox, make_app


async def test_the_editor_is_styled_once_as_it_opens_and_again_back_from_the_monitor(
        sandbox: InProcessSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    styled: Counter[str] = Counter()
    apply = Stylesheet.apply

    def counted(self: Stylesheet, node: DOMNode, **options: Any) -> None:
        styled[type(node).__name__] += 1
        apply(self, node, **options)

    monkeypatch.setattr(Stylesheet, "apply", counted)
    app = make_app(sandbox)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened_by(pilot, "e", SurveyEditorScreen)
        assert styled["SurveyEditorScreen"] == 1

        app.switch_mode("monitor")
        await settle(pilot)
        app.switch_mode("surveys")
        await settle(pilot)
        assert isinstance(app.screen, SurveyEditorScreen)
        assert styled["SurveyEditorScreen"] > 1  # restyled: by its resume, and by the mode switch's stylesheet update
