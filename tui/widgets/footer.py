"""A Footer that does not keep its old keys alive."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Footer


class LeakFreeFooter(Footer):
    """The footer, without the leak of its old keys (every screen of a days-long app needs this).

    Each rebuild (``refresh_bindings``) mounts new ``FooterKey`` widgets bound to ``Footer.compact``
    with ``data_bind``; the bindings of removed keys stay in the footer's watcher list until
    ``compact`` changes, which it never does (the textual #6666 pattern). Paging through 10,000
    surveys rebuilt it on most pages and kept about 1,000 dead keys (140,000 objects) alive, which
    made each full garbage collection take 65-90 ms. Touching ``compact`` after a rebuild drops
    the dead keys' bindings (Textual prunes closed watchers then); the live keys see the same value.
    The dead keys' line caches are emptied too: Textual's ``StylesCache.get_inner_outer`` is an
    ``lru_cache(1024)`` on a method, so it keeps up to 1,024 dead widgets' caches (and their
    rendered lines, ~40,000 objects) alive for the collector to walk.
    """

    async def recompose(self) -> None:
        old = list(self.children)
        await super().recompose()
        self.mutate_reactive(Footer.compact)
        for widget in old:
            for node in widget.walk_children(Widget, with_self=True):
                node._styles_cache.clear()
