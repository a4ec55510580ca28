"""Issue 27, item 12: `make demo` installs the dashboard and its sandbox only, says no comments; `make test` adds the
dev tools to the same venv, also after a `make demo`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def dry_run(target: str, venv: Path, *touched: str) -> list[str]:
    venv.mkdir(parents=True, exist_ok=True)
    for name in touched:  # a venv where these steps were done after pyproject.toml last changed
        (venv / name).touch()
    done = subprocess.run(["make", "-n", "-C", str(ROOT), f"VENV={venv}", target], capture_output=True, text=True,
                          check=True)
    return done.stdout.splitlines()


def test_make_demo_installs_only_the_package_and_echoes_no_comment(tmp_path: Path) -> None:
    lines = dry_run("demo", tmp_path / "venv")
    installs = [line for line in lines if "pip install" in line and "--upgrade pip" not in line]
    assert installs == [f"{tmp_path / 'venv'}/bin/python -m pip install --quiet -e ."]
    assert not [line for line in lines if line.lstrip().startswith("#")]


def test_make_test_after_make_demo_installs_the_dev_tools(tmp_path: Path) -> None:
    lines = dry_run("test", tmp_path / "venv", ".installed")
    assert f"{tmp_path / 'venv'}/bin/python -m pip install --quiet -e '.[dev]'" in lines
    assert not any(line.endswith("-e .") for line in lines), "the package itself is installed already"


def test_the_mutation_score_counts_what_the_tests_ran_and_meets_its_goal_or_fails() -> None:
    from tui.tools.mutation_score import score_line

    line, met = score_line({"killed": 85, "timeout": 5, "survived": 9, "suspicious": 1, "no_tests": 12}, 0.9)
    assert line == "mutation score: 90.0% (90 killed of 100; goal 90%); 12 on lines no selected test reaches"
    assert met
    line, met = score_line({"killed": 89, "survived": 11}, 0.9)
    assert line == "mutation score: 89.0% (89 killed of 100; goal 90%)" and not met
    assert score_line({}, 0.9) == ("mutation score: 0.0% (0 killed of 0; goal 90%)", False)
