"""Rewrite the README's key tables from the registry of keys: ``python -m tui.tools.readme_keys [README.md]``."""

from __future__ import annotations

import sys
from pathlib import Path

from tui.key_registry import readme_with_tables


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "README.md")
    text = path.read_text(encoding="utf-8")
    updated = readme_with_tables(text)
    if updated != text:
        path.write_text(updated, encoding="utf-8")
        print(f"{path}: key tables rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
