"""The wheel carries the stylesheets, and the app names only stylesheets that exist.

Styles live in the repository's ``styles/`` and reach the wheel as ``tui/styles``
through hatch ``force-include``; a wheel without them starts but draws an
unstyled, unusable screen, which no other test would notice from a checkout.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("hatchling", reason="hatchling (build backend) is not installed in this venv")
    out = tmp_path_factory.mktemp("wheel")
    # the build backend called directly, in a child process: it reads the project from its cwd
    code = "import sys, hatchling.build as b; print(b.build_wheel(sys.argv[1]))"
    result = subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return out / result.stdout.strip().splitlines()[-1]


def test_wheel_ships_the_stylesheets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {Path(n).name for n in names if n.startswith("tui/styles/") and n.endswith(".tcss")}
    expected = {p.name for p in (ROOT / "styles").glob("*.tcss")}
    assert expected, "no stylesheets in styles/"
    assert shipped == expected
    assert "tui/api/client.py" in names and "tui/cli/main.py" in names
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "watchdeck = tui.cli.launch:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_every_css_path_exists() -> None:
    from tui.app import WatchdeckApp

    paths = WatchdeckApp.CSS_PATH
    listed = [paths] if isinstance(paths, str | Path) else list(paths or [])
    assert listed
    missing = [str(p) for p in listed if not Path(p).is_file()]
    assert missing == []

