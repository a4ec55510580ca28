"""One palette: colours are named in tui/palette.py only, and ``NO_COLOR`` leaves no colour in it."""

from __future__ import annotations

from rich.style import Style

from tui.palette import COLOUR_STYLES, NO_COLOUR_STYLES, Tone, use_no_color


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
