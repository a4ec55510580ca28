"""What every test shares: the process-wide NO_COLOR choice starts each test off.

``tui.status_look`` keeps the choice for the whole process (a watchdeck app
sets it when it starts); a test that ran an app under NO_COLOR must not leave
later tests' hosts drawing colourless looks.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tui.palette import use_no_color


@pytest.fixture(autouse=True)
def _colour_looks_by_default() -> Iterator[None]:
    use_no_color(False)
    yield
    use_no_color(False)
