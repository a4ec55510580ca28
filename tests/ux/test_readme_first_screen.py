"""Issue 27, item 19: the README's first screen says what watchdeck is, how to start the demo, how to connect to a
server, and the main keys; every key it names there is a registered key."""

from __future__ import annotations

import re
from pathlib import Path

from tui.key_registry import KEYS, readme_keys

README = Path(__file__).resolve().parents[2] / "README.md"
FIRST_SCREEN = 40  # lines: what a terminal or a repository page shows before scrolling


def test_the_first_screen_has_what_it_is_the_demo_the_server_and_the_keys() -> None:
    top = "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN])
    for needed in ("terminal dashboard", "make demo", "WATCHDECK_API_KEY", "--base-url", "Main keys", "`?`"):
        assert needed in top, needed


def test_the_main_keys_are_registered_keys() -> None:
    text = README.read_text(encoding="utf-8")
    line = text[text.index("**Main keys**"):text.index("[Keys](#keys)")]
    registered = {key for entry in KEYS for key in re.findall(r"`([^`]+)`", readme_keys(entry.keys))}
    registered |= {"ctrl+p", "esc"}  # Textual's palette; escape as the footer spells it
    named = set(re.findall(r"`([^`]+)`", line))
    assert named - registered == set()
