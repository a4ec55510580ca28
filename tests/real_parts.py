"""Skipping a test for want of a real part (redis-server, Chromium), unless CI installed them.

``.ci/run`` installs the parts and sets ``WATCHDECK_REQUIRE_REAL_PARTS=1``: there a part that cannot be
found is a failure, not a skip, so a broken install cannot pass CI with those tests silently left out.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import NoReturn

import pytest

REQUIRE_VARIABLE = "WATCHDECK_REQUIRE_REAL_PARTS"


def required() -> bool:
    return os.environ.get(REQUIRE_VARIABLE) == "1"


def missing(reason: str, *, module: bool = False) -> NoReturn:
    """Skip (the module, when ``module``) for want of a part; fail instead where CI requires the parts."""
    if required():
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE}=1: CI installs it)", pytrace=False)
    pytest.skip(reason, allow_module_level=module)


def import_or_missing(name: str, reason: str) -> ModuleType:
    """``pytest.importorskip``, failing where CI requires the parts."""
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        missing(reason, module=True)
