"""The shipped rules leave a silenced export out: every paging rule's expression, run by promtool's own rule tests.

For each rule that pages, two exports match its selector for ten minutes; one is silenced
(``watchdeck_export_silenced`` 1), the other not (0): the expression returns the other one alone.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import yaml

from tests.metrics.conftest import ROOT
from tests.real_parts import missing

PROMTOOL = shutil.which("promtool") or ("/usr/bin/promtool" if Path("/usr/bin/promtool").exists() else None)
if PROMTOOL is None:
    missing("SKIP: promtool is not installed (Debian package prometheus; .ci/run installs it)", module=True)

RULES = ROOT / "examples" / "prometheus" / "watchdeck-rules.yml"
SELECTOR = re.compile(r'^\s*(\w+)(?:\{([^}]*)\})?')
EXPORTS = {"e1": "silenced", "e2": "loud"}


def _series(name: str, matchers: str, export_id: str) -> str:
    extra = "".join(f",{m.strip()}" for m in matchers.split(",") if m.strip())
    return f'{name}{{instance="w",project="1",export_id="{export_id}",export="{EXPORTS[export_id]}"{extra}}}'


def test_every_paging_rule_leaves_a_silenced_export_out(tmp_path: Path) -> None:
    assert PROMTOOL is not None
    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]
             if rule.get("labels", {}).get("severity") == "page"]
    assert rules
    tests = []
    for rule in rules:
        expr = rule["expr"]
        assert "unless on(instance, project, export_id) watchdeck_export_silenced == 1" in expr, rule["alert"]
        found = SELECTOR.match(expr)
        assert found is not None, expr
        name, matchers = found.group(1), found.group(2) or ""
        tests.append({
            "interval": "1m",
            "input_series": [
                *({"series": _series(name, matchers, e), "values": "1x10"} for e in EXPORTS),
                {"series": _series("watchdeck_export_silenced", "", "e1"), "values": "1x10"},
                {"series": _series("watchdeck_export_silenced", "", "e2"), "values": "0x10"},
            ],
            "promql_expr_test": [{"expr": expr, "eval_time": "5m",
                                  "exp_samples": [{"labels": _series(name, matchers, "e2"), "value": 1}]}],
        })
    unit = tmp_path / "silenced.yml"
    unit.write_text(yaml.safe_dump({"rule_files": [str(RULES)], "evaluation_interval": "1m", "tests": tests}))
    result = subprocess.run([PROMTOOL, "test", "rules", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout
