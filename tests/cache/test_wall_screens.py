"""Many screens, one poll: dashboards of one key share the poll through the cache; keys never mix.

Eight real dashboard processes run at once for fifteen polls against one sandbox:
five with one key, one with another key (the one-process baseline, measured in
the same run and on the same store) and two with a third key. The sandbox
counts what each key sent. Five viewers must cost at most 1.2 times what one
costs alone; and each key's viewers must have asked the server themselves (had
answers crossed keys, the baseline would have read the others' and asked less).

The SQLite store's wall and the Redis store's wall (tests/cache/test_redis.py)
are measured at the same time, by one session fixture (``wall_counts``): the
window is spent waiting, once. Both tests are one xdist group, so under
``make test`` one worker holds them while the others run the rest.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.cache.wall import check_counts


@pytest.mark.slow
@pytest.mark.xdist_group("wall-screens")
def test_five_screens_on_one_sqlite_store_cost_one_screens_requests(
        wall_counts: dict[str, Counter[str] | BaseException]) -> None:
    check_counts(wall_counts["sqlite"], store="SQLite")

