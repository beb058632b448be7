"""The picture of the tree: an icicle (the root a band across the top, each node's children
below it, side by side in reading order), each part as wide as the tokens of the leaves it
holds and a link to the node's page. In a corpus the folders and the documents are the
first bands. Laid out here, at export, as plain SVG: the page draws it without a script,
and the colour (by level, or by what happened) is a class the stylesheet reads.
"""

from __future__ import annotations

from html import escape

from chunker.site.tree import SiteTree, page_name

WIDTH = 1000.0          # the SVG's user units across; it scales to the page
ROW_HEIGHT = 30.0       # a band's height, at least; a shallow tree's bands are taller
PICTURE_HEIGHT = 420.0  # ...up to this height in all
MIN_WIDTH = 0.15        # narrower parts are not drawn (their parent covers them)
LABEL_MIN_WIDTH = 48.0  # parts at least this wide carry their label
CHAR_WIDTH = 6.4        # user units per character of a label, to cut it to fit


def layout(t: SiteTree) -> list[tuple[str, float, float, int]]:
    """(node id, x, width, depth) for every part wide enough to draw, parents first."""
    out = []
    todo = [(t.h.root, 0.0, WIDTH)]
    nodes = t.nodes
    while todo:
        nid, x, w = todo.pop()
        if w < MIN_WIDTH:
            continue
        out.append((nid, x, w, t.depth[nid]))
        node = nodes[nid]
        if not node.children:
            continue
        total = sum(t.size[c] for c in node.children) or 1
        pos = x
        kids = []
        for c in node.children:
            cw = w * t.size[c] / total
            kids.append((c, pos, cw))
            pos += cw
        todo.extend(reversed(kids))
    return out


def svg(t: SiteTree, href_prefix: str = "n/") -> str:
    parts = layout(t)
    rows = 1 + max((d for *_, d in parts), default=0)
    row_h = max(ROW_HEIGHT, min(3 * ROW_HEIGHT, PICTURE_HEIGHT / rows))
    height = rows * row_h
    nodes = t.nodes
    out = [f'<svg id="picture" viewBox="0 0 {WIDTH:g} {height:g}" '
           f'preserveAspectRatio="none" role="img" aria-label="the tree, sized by tokens">']
    for nid, x, w, depth in parts:
        n = nodes[nid]
        label = t.label(n)
        cls = f"lv{min(n.level, 7)} k-{n.kind} o-{t.outcome(n)}"
        y = depth * row_h
        tip = f"{label} ({n.kind}, level {n.level}, {t.size[nid]} tokens)"
        if t.outcome(n) != "ok":
            tip += f": {t.outcome(n)}"
        out.append(f'<a href="{escape(href_prefix + page_name(nid))}"><rect class="{cls}" '
                   f'x="{x:.2f}" y="{y:g}" width="{max(w - 0.3, 0.1):.2f}" height="{row_h - 2:g}">'
                   f'<title>{escape(tip)}</title></rect>')
        if w >= LABEL_MIN_WIDTH:
            chars = int((w - 8) / CHAR_WIDTH)
            text = label if len(label) <= chars else label[:max(chars - 1, 1)] + "\u2026"
            out.append(f'<text x="{x + 4:.2f}" y="{y + row_h / 2 + 4:g}">{escape(text)}</text>')
        out.append("</a>")
    out.append("</svg>")
    return "\n".join(out)


def counts(t: SiteTree) -> dict[str, int]:
    """Nodes by outcome, for the picture's legend."""
    found: dict[str, int] = {}
    for n in t.order:
        found[t.outcome(n)] = found.get(t.outcome(n), 0) + 1
    return found
