"""HTML in survey texts, cleaned as the real service cleans it before storing (an allow list of tags).

Only text that looks like HTML is touched. Script-like elements disappear with their content
(``<script>…</script>check?`` becomes ``check?``); other unknown tags are dropped and their text kept;
allowed tags keep only harmless attributes.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser

ALLOWED_TAGS = frozenset({
    "a", "b", "blockquote", "br", "code", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "li",
    "ol", "p", "pre", "s", "small", "span", "strong", "sub", "sup", "u", "ul",
})
DROPPED_WITH_CONTENT = frozenset({"script", "style", "iframe", "object", "embed", "noscript", "template", "title"})
ALLOWED_ATTRS = {"a": {"href", "title"}, "img": {"src", "alt", "width", "height"}}
_SAFE_URL = re.compile(r"^(https?:|mailto:|/|#)", re.IGNORECASE)
_LOOKS_LIKE_HTML = re.compile(r"<[a-zA-Z!/][^>]*>")


def is_html(text: str) -> bool:
    return bool(_LOOKS_LIKE_HTML.search(text))


class _Cleaner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.skipping += 1
            return
        if self.skipping or tag not in ALLOWED_TAGS:
            return
        kept = []
        for name, value in attrs:
            if name in ALLOWED_ATTRS.get(tag, set()) and value is not None:
                if name in ("href", "src") and not _SAFE_URL.match(value.strip()):
                    continue
                kept.append(f' {name}="{escape(value, quote=True)}"')
        if tag == "a":
            kept.append(' rel="noopener noreferrer"')
        self.out.append(f"<{tag}{''.join(kept)}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.skipping = max(0, self.skipping - 1)
            return
        if not self.skipping and tag in ALLOWED_TAGS and tag not in ("br", "hr", "img"):
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(escape(data, quote=False))


def clean_html(text: str) -> str:
    """The text with disallowed markup removed; plain text comes back unchanged."""
    if not is_html(text):
        return text
    cleaner = _Cleaner()
    cleaner.feed(text)
    cleaner.close()
    return "".join(cleaner.out)
