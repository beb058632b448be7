"""The site's data files: the outline (`data/tree.js`) and the search index (`data/search.js`).

Both are classic scripts that set one global (`window.CHUNKER_TREE`, `window.CHUNKER_SEARCH`):
opened from `file://`, Chromium refuses `fetch()` of a local file and ES modules, but runs a
`<script src>`. Both are built in one pass over the nodes, so export time is linear in the tree.

The index is an inverted list, term -> [node, weighted count, node, count, ...], with each
node's length, scored in the page with BM25. The tokenizer here and the one in `search.js`
must agree: lower case, runs of letters and digits, one-letter words and a few English
stop words dropped.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter

from chunker.site.tree import SiteTree, page_name

OUTLINE_SUMMARY_CHARS = 160  # the outline shows the summary's start; the page has all of it
TITLE_WEIGHT = 3  # a word of the title or the summary counts as this many words of the text

_WORD = re.compile(r"[^\W_]+")
STOP_WORDS = frozenset(
    "the and of to in a is it that was for on as with he she his her be at by this had not "
    "but from or have an they which you were are all their one we there been has would so "
    "if no him what when who will more do can them its into than then".split())


def tokens(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text or "").lower()
    return [w for w in _WORD.findall(text) if (len(w) > 1 or w.isdigit()) and w not in STOP_WORDS]


def _short(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"


def outline_data(t: SiteTree) -> dict:
    """One row per node in reading order: [id, page, label, summary start, kind, level,
    parent row, child rows, tokens under it, outcome, source]."""
    rows = []
    for n in t.order:
        rows.append([n.id, page_name(n.id), t.label(n), _short(n.summary, OUTLINE_SUMMARY_CHARS),
                     n.kind, n.level, t.index[n.parent] if n.parent else -1,
                     [t.index[c] for c in n.children], t.size[n.id], t.outcome(n), n.source or ""])
    return {"title": t.title, "corpus": t.h.meta.corpus is not None, "nodes": rows}


def search_data(t: SiteTree) -> dict:
    postings: dict[str, list[int]] = {}
    lengths = []
    for i, n in enumerate(t.order):
        counts: Counter[str] = Counter()
        for w in tokens(f"{n.title or ''} {n.summary}"):
            counts[w] += TITLE_WEIGHT
        for w in tokens(n.rewritten):
            counts[w] += 1
        if n.original is not None:
            for w in tokens(n.original):
                counts[w] += 1
        lengths.append(sum(counts.values()))
        for w, c in counts.items():
            postings.setdefault(w, []).extend((i, c))
    avg = (sum(lengths) / len(lengths)) if lengths else 1.0
    return {"n": len(lengths), "avg": round(avg, 2), "len": lengths, "stop": sorted(STOP_WORDS),
            "terms": postings}


def as_script(name: str, data: dict) -> str:
    """`window.NAME = {...};`, safe inside a script file: `</` cannot close a tag even if the
    file is ever inlined, and U+2028/2029 are escaped (json.dumps does both with ensure_ascii
    off only for the first, so `<` is escaped by hand)."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    body = body.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.{name} = {body};\n"
