"""One palette: colours are named in tui/look/palette.py only, and ``NO_COLOR`` leaves no colour in it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.errors import StyleSyntaxError
from rich.style import Style

from tui.look.palette import COLOUR_STYLES, NO_COLOUR_STYLES, Tone, use_no_color

TUI = Path(__file__).resolve().parents[1] / "tui"
PALETTE = TUI / "look" / "palette.py"
OUT_OF_SCOPE = (TUI / "sandbox",)  # serves no UI
# Keywords of rich.style.Style (and Text.stylize-like calls) that set a colour or dim directly.
STYLE_KEYWORDS = {"color", "bgcolor", "dim"}


def hard_coded_style(literal: str) -> bool:
    """A Rich style that sets a colour, a background or dim: what only the palette may name.

    Rich also reads one or two letters as attributes ("d" is dim), which here are format codes and
    keys, not styles; "default" is the terminal's own colour, which names none.
    """
    if len(literal.strip()) <= 2 or len(literal) > 80:
        return False
    try:
        style = Style.parse(literal)
    except StyleSyntaxError:
        return False  # prose, a key, a path: not a style
    coloured = [colour for colour in (style.color, style.bgcolor) if colour is not None and not colour.is_default]
    return bool(coloured) or bool(style.dim)


def sources() -> Iterator[Path]:
    for path in sorted(TUI.rglob("*.py")):
        if path != PALETTE and not any(path.is_relative_to(skipped) for skipped in OUT_OF_SCOPE):
            yield path


def offences(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(TUI.parent)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and hard_coded_style(node.value):
            yield f"{where}:{node.lineno}: style {node.value!r}"
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in STYLE_KEYWORDS:
                    yield f"{where}:{node.lineno}: {keyword.arg}= in a call"


def test_no_colour_is_written_outside_the_palette() -> None:
    """A colour (or dim) written in a screen escapes NO_COLOR and can drift from the same meaning elsewhere."""
    found = [offence for path in sources() for offence in offences(path)]
    assert not found, (
        "hard-coded colours under tui/; name the meaning as a Tone in tui/look/palette.py (with and without colour) "
        "and draw with Tone.X.style:\n  " + "\n  ".join(found))


@pytest.mark.parametrize("literal", ["bold red", "yellow", "#ff8800", "bold black on cyan", "dim", "dim italic"])
def test_the_scan_recognises_colours(literal: str) -> None:
    assert hard_coded_style(literal)


@pytest.mark.parametrize("literal", ["bold", "italic", "bold reverse", "bold underline", "", "red alert in 5 s",
                                     "monitor-runs", "Failed", "d", "default"])
def test_the_scan_leaves_attributes_and_words_alone(literal: str) -> None:
    assert not hard_coded_style(literal)


def test_every_tone_has_a_look_in_both_modes() -> None:
    assert set(COLOUR_STYLES) == set(Tone) == set(NO_COLOUR_STYLES)
    for tone in Tone:
        Style.parse(COLOUR_STYLES[tone])  # a typo in a colour name fails here, not when drawn


def test_without_colour_no_tone_has_a_colour() -> None:
    use_no_color(True)
    try:
        for tone in Tone:
            style = Style.parse(tone.style)
            assert style.color is None and style.bgcolor is None, tone
    finally:
        use_no_color(False)
