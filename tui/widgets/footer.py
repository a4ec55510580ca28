"""A Footer that rebuilds only when its keys change, and does not keep its old keys alive."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tui.widgets.textual_private import forget_rendered_lines, show_footer_key_enabled


class LeakFreeFooter(Footer):
    """The footer, coalescing rebuilds and without the leak of its old keys.

    Textual's Footer recomposes once per ``bindings_updated`` signal, and a screen sends that on
    every focus change, highlight and ``refresh_bindings``, mostly with the same keys. Here a
    recompose rebuilds the keys only when what they would show (the first shown binding of each
    action, enabled, tooltip) differs from what is on screen: keys it does not show (a focused
    table's cursor keys) are not compared.

    Each rebuild mounts new ``FooterKey`` widgets bound to ``Footer.compact`` with ``data_bind``;
    the bindings of removed keys stay in the footer's watcher list until ``compact`` changes, which
    it never does (the textual #6666 pattern), and they and their widgets stay alive. Touching
    ``compact`` after a rebuild drops the dead keys' bindings (Textual prunes closed watchers then);
    the live keys see the same value. The dead keys' line caches are emptied too: Textual's
    ``StylesCache.get_inner_outer`` is an ``lru_cache(1024)`` on a method, so it keeps up to 1,024
    dead widgets' caches (and their rendered lines) alive for the collector to walk.
    """

    _fit_tries = 0
    _shown_keys: Hashable = None
    ALWAYS_SHOWN: frozenset[str] = frozenset({"question_mark", "q"})
    """Keys never dropped for width: help (which lists the rest) and quit."""

    def _keys_to_show(self) -> Hashable:
        """What the footer draws, as ``Footer.compose`` picks it: for each action with a shown binding, in order,
        its first shown binding with whether it is enabled and its tooltip; the palette's key; the style.

        Bindings the footer does not show (a focused widget's cursor keys) are left out: focus moving between
        widgets whose hidden keys differ draws the same footer, and rebuilds nothing.
        """
        active = self.screen.active_bindings
        first: dict[str, tuple[Binding, bool, str]] = {}
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                first.setdefault(binding.action, (binding, enabled, tooltip))
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        palette_key = palette[1:] if palette is not None and self.show_command_palette else None
        return tuple(first.values()), palette_key, self.compact

    def compose(self) -> ComposeResult:
        """Footer's keys, each starting in the footer's style (compact or not).

        A key is made compact and follows the footer only once its data binding runs, a moment after
        it is mounted: a key laid out in between is wider or narrower than it will be drawn, and a fit
        made then would drop a key that fits (or keep one that does not). The command palette's key is
        not bound to the footer and keeps its own style.
        """
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    async def recompose(self) -> None:
        """Rebuild the keys where they changed (Textual's Footer calls this after each bindings signal)."""
        if not self.is_attached:
            return
        keys = self._keys_to_show()
        if keys == self._shown_keys:
            return
        if self._enabled_in_place(keys):
            self._shown_keys = keys
            self._fit_again()
            return
        self._shown_keys = keys
        old = list(self.children)
        await super().recompose()
        self.mutate_reactive(Footer.compact)
        for widget in old:
            for node in widget.walk_children(Widget, with_self=True):
                forget_rendered_lines(node)
        self.call_after_refresh(self._fit_keys)

    def _enabled_in_place(self, keys: Hashable) -> bool:
        """When only whether some keys are enabled changed (the selected export failed, a run started), dim or
        brighten those keys where they are; False when anything else changed and the keys must be rebuilt.

        A rebuild mounts new keys, and every key ever drawn keeps its styles cache in Textual's
        ``lru_cache(1024)`` of ``StylesCache.get_inner_outer``: a monitor whose selected export changes state
        every few seconds would fill it for an hour.
        """
        shown = self._shown_keys
        if not isinstance(shown, tuple) or not isinstance(keys, tuple) or shown[1:] != keys[1:]:
            return False
        before, after = shown[0], keys[0]
        if len(before) != len(after):
            return False
        if any(old[0] != new[0] or old[2] != new[2] for old, new in zip(before, after, strict=True)):
            return False  # another binding or tooltip
        enabled = {binding.action: on for binding, on, _tooltip in after}
        # The palette's key is drawn from the palette part of ``keys``, which did not change.
        footer_keys = [key for key in self.query(FooterKey) if not key.has_class("-command-palette")]
        if any(key.action not in enabled for key in footer_keys):
            return False
        for key in footer_keys:
            if key.has_class("-disabled") == enabled[key.action]:
                show_footer_key_enabled(key, enabled[key.action])
        return True

    def on_resize(self) -> None:
        """Wider or narrower: show every key again, and drop what does not fit once they are laid out."""
        self._fit_again()

    def _fit_again(self) -> None:
        """Every key shown again, then what does not fit dropped once laid out (as after a rebuild): a fit made
        while the screen was still being laid out may have dropped a key that fits."""
        for child in self.children:
            child.display = True
        self.call_after_refresh(self._fit_keys)

    def _fit_keys(self) -> None:
        """Keys that do not fit whole are not shown at all: a cut key read ``q Qu`` or ``? He``.

        Help and Quit stay whatever the width (help lists every key, so a new operator can always
        find the rest); the others are kept in order while they fit and dropped from the first one
        that does not. Every key stays in ``?`` help and the command palette.
        """
        if not self.is_attached:
            return
        shown = [child for child in self.children if child.display]
        if any(child.region.width == 0 for child in shown):
            self._fit_tries += 1
            if self._fit_tries < 5:  # not laid out yet: once it is
                self.call_after_refresh(self._fit_keys)
            return
        self._fit_tries = 0
        right = self.region.right
        docked = [child for child in self.children if child.has_class("-command-palette")]
        for child in docked:
            right = min(right, child.region.x)
        keys = [child for child in self.children if child not in docked and child.display]
        # A key's last cell is padding: it may sit under the palette key's border.
        room = right - self.region.x + 1
        anchored = [key for key in keys if getattr(key, "key", None) in self.ALWAYS_SHOWN]
        room -= sum(key.region.width for key in anchored)
        dropping = False
        for key in keys:
            if key in anchored:
                continue
            if dropping or key.region.width > room:
                dropping = True
                key.display = False
            else:
                room -= key.region.width
