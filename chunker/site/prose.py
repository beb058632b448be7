"""A node's rewritten text as HTML: CommonMark through markdown-it-py with raw HTML off (the
text's own `<...>` is escaped), links to other sites kept (opened with rel=noopener),
headings two levels down (the page has its own h1 and h2), and what would point into the site or the disk (a relative link, an image) shown as its text:
the source's own links name files of the source, not pages of the site, and an image the
site does not hold would be a broken request."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

_EXTERNAL = ("http://", "https://", "mailto:")
HEADING_SHIFT = 2
HEADING_MAX_CHARS = 160


def _link_open(self, tokens, idx, options, env):
    href = tokens[idx].attrGet("href") or ""
    if href.startswith(_EXTERNAL):
        tokens[idx].meta["kept"] = True
        return f'<a href="{escape(href)}" rel="noopener noreferrer">'
    return f'<span class="link" title="{escape(href)}">'


def _link_close(self, tokens, idx, options, env):
    # the matching open is the nearest link_open before this close at the same level
    for j in range(idx - 1, -1, -1):
        if tokens[j].type == "link_open" and tokens[j].level == tokens[idx].level:
            return "</a>" if tokens[j].meta.get("kept") else "</span>"
    return "</span>"


def _image(self, tokens, idx, options, env):
    alt = "".join(t.content for t in (tokens[idx].children or []))
    return f'<span class="image">[image: {escape(alt or tokens[idx].attrGet("src") or "")}]</span>'


def _heading(self, tokens, idx, options, env):
    # the page's own title is the h1, its sections h2: the text's headings go two below; a
    # "heading" longer than a heading (a rewrite that ran a heading into its paragraph) is
    # shown as the paragraph it is
    inline = tokens[idx + 1] if tokens[idx].nesting == 1 else tokens[idx - 1]
    tag = (f"h{min(6, int(tokens[idx].tag[1]) + HEADING_SHIFT)}"
           if len(inline.content) <= HEADING_MAX_CHARS else "p")
    return f"<{tag}>" if tokens[idx].nesting == 1 else f"</{tag}>\n"


class Prose:
    """One renderer per export (markdown-it keeps state)."""

    def __init__(self) -> None:
        md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
        md.add_render_rule("link_open", _link_open)
        md.add_render_rule("link_close", _link_close)
        md.add_render_rule("image", _image)
        md.add_render_rule("heading_open", _heading)
        md.add_render_rule("heading_close", _heading)
        self._md = md

    def __call__(self, text: str) -> Markup:
        return Markup(self._md.render(text or ""))
