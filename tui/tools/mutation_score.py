"""Print the mutation audit's score from mutmut's statistics: ``python -m tui.tools.mutation_score [STATS] [GOAL]``.

``make mutate`` runs mutmut over the modules and tests named in ``pyproject.toml`` (``[tool.mutmut]``), has it write
its statistics (``mutmut export-cicd-stats``), and calls this. The score is the share of mutants the tests kill,
of those they run at all; mutants on lines no selected test reaches are counted apart. The command exits 1 when
the score is under the goal (a share, 0.9 unless given).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DEFAULT_STATS = Path("mutants/mutmut-cicd-stats.json")
DEFAULT_GOAL = 0.9


def score_line(stats: dict[str, int], goal: float) -> tuple[str, bool]:
    """The line to print, and whether the goal is met."""
    killed = stats.get("killed", 0) + stats.get("timeout", 0)  # a mutant that makes the tests hang is caught too
    survived = stats.get("survived", 0) + stats.get("suspicious", 0)
    judged = killed + survived
    share = killed / judged if judged else 0.0
    unreached = stats.get("no_tests", 0)
    line = (f"mutation score: {share:.1%} ({killed} killed of {judged}; goal {goal:.0%})"
            + (f"; {unreached} on lines no selected test reaches" if unreached else ""))
    return line, share >= goal


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT_STATS
    goal = float(argv[1]) if len(argv) > 1 else DEFAULT_GOAL
    line, met = score_line(json.loads(path.read_text(encoding="utf-8")), goal)
    print(line)
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
