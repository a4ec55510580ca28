"""The footer drops keys whole when they do not fit (a cut key read ``q Qu``), and shows them again when wider."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from tests.monitor.conftest import make_app
from tests.pilot import until
from tui.sandbox.runner import SandboxHandle
from tui.widgets.footer import LeakFreeFooter


def _keys(app: object) -> tuple[list[FooterKey], int]:
    footer = app.screen.query_one(LeakFreeFooter)  # type: ignore[attr-defined]
    keys = [k for k in footer.query(FooterKey) if not k.has_class("-command-palette")]
    palette = [k for k in footer.query(FooterKey) if k.has_class("-command-palette")]
    right = palette[0].region.x if palette else footer.region.right
    return keys, right


async def test_footer_keys_are_whole_or_absent(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: not all(k.display for k in _keys(app)[0]))
        keys, right = _keys(app)
        shown = [k for k in keys if k.display]
        assert shown and len(shown) < len(keys)  # some dropped at 80 columns
        assert all(k.region.right <= right for k in shown)
        assert {"question_mark", "q"} <= {k.key for k in shown}  # help and quit are never the ones dropped
        await pilot.resize_terminal(240, 48)
        await until(pilot, lambda: all(k.display for k in _keys(app)[0]))
        keys, right = _keys(app)
        assert all(k.display for k in keys)
