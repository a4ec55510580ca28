"""Issue 42, item 7: the README's pictures say what the screens draw now. Each of screenshots/*.svg is compared, as
text (what the picture says, whatever its styles and their generated ids), with the same scene drawn afresh by
``make screenshots``'s own code; a change to a screen fails here until ``make screenshots`` is run again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.tools.screenshots import SCENES, screenshot_sandbox, shoot, svg_text

PICTURES = Path(__file__).resolve().parents[2] / "screenshots"


def test_svg_text_places_each_piece_by_its_cell() -> None:
    svg = ('<text class="terminal-1-r1" x="0" y="20" textLength="24.4" clip-path="url(#terminal-1-line-0)">ab</text>'
           '<text class="terminal-1-r2" x="48.8" y="20" textLength="12.2" clip-path="url(#terminal-1-line-0)">'
           '&#160;c</text>'
           '<text class="terminal-1-r1" x="12.2" y="44.4" textLength="12.2" clip-path="url(#terminal-1-line-2)">'
           'd&amp;</text>')
    assert svg_text(svg) == ["ab   c", "", " d&"]


def test_every_picture_is_a_scene_and_every_scene_a_picture() -> None:
    assert sorted(scene.file for scene in SCENES) == sorted(path.name for path in PICTURES.glob("*.svg"))


@pytest.mark.slow
async def test_each_screenshot_says_what_its_screen_draws_now() -> None:
    stale: list[str] = []
    with screenshot_sandbox() as sandbox:
        for scene in SCENES:  # in make screenshots' order, on one sandbox, as it draws them
            saved = svg_text((PICTURES / scene.file).read_text(encoding="utf-8"))
            assert len(saved) > 20, f"{scene.file} has no text: not a picture of a terminal"
            now = svg_text(await shoot(scene, sandbox))
            if now != saved:
                first = next(i for i in range(max(len(now), len(saved))) if now[i:i + 1] != saved[i:i + 1])
                stale.append(f"{scene.file} line {first}: now {now[first:first + 1]!r}, "
                             f"picture {saved[first:first + 1]!r}")
    assert stale == [], "run make screenshots: " + "; ".join(stale)
