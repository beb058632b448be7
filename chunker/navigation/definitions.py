"""The definitions route: a question that names a defined term ("what is X?", "what are Xs?",
"define X", "what does X mean?", "meaning of X") goes straight to the leaf that defines it.

The term must be the whole of what the question asks about and be in the tree's registry
with a definition; anything else is not this route's question (the navigator falls back to
its search). What it reads: the defining leaf's original text, cut to the budget around the
definition (the definition sentence first, then what follows it, then what precedes it).
"""

from __future__ import annotations

import re

from chunker.document.tokens import count_tokens, encoding
from chunker.navigation.knowledge import term_index
from chunker.navigation.targeted import ROUTES, TargetedAnswer

ASKS = [re.compile(p, re.I) for p in (
    r"^\s*(?:so,?\s+)?what(?:'s|\s+is|\s+are)\s+(?:an?\s+|the\s+)?(?P<t>.+?)\s*\??\s*$",
    r"^\s*define\s+(?:an?\s+|the\s+)?(?P<t>.+?)\s*[.?]?\s*$",
    r"^\s*what\s+(?:does|do)\s+(?:an?\s+|the\s+)?(?P<t>.+?)\s+(?:mean|stand for|refer to)\s*\??\s*$",
    r"^\s*(?:what\s+is\s+)?(?:the\s+)?(?:meaning|definition)\s+of\s+(?:an?\s+|the\s+)?(?P<t>.+?)\s*\??\s*$",
    r"^\s*what\s+is\s+meant\s+by\s+(?:an?\s+|the\s+)?(?P<t>.+?)\s*\??\s*$",
    r"^\s*(?:explain|describe)\s+(?:what\s+)?(?:an?\s+|the\s+)?(?P<t>.+?)\s+(?:is|are|means)\s*[.?]?\s*$",
)]


def asked_term(question: str) -> str | None:
    """The term a definition question asks about, as written; None for any other question."""
    q = " ".join(question.replace("\u2019", "'").split())
    for pattern in ASKS:
        m = pattern.match(q)
        if m:
            return m.group("t").strip(" \"'`*_\u201c\u201d")
    return None


class DefinitionRoute:
    name = "definition"

    def answer(self, tree, question: str, budget: int) -> TargetedAnswer | None:
        asked = asked_term(question)
        if asked is None or not tree.hierarchy.terms:
            return None
        term = term_index(tree).get(asked)
        if term is None or term.definition is None:
            return None
        d = term.definition
        leaf = tree.node(d.node)
        text = excerpt(leaf.original or d.text, d.span[0] - (leaf.span[0] if leaf.span else 0),
                       d.span[1] - (leaf.span[0] if leaf.span else 0), budget)
        return TargetedAnswer(path=self.name, text=text, nodes=[leaf.id], tokens=count_tokens(text))


def excerpt(text: str, start: int, end: int, budget: int) -> str:
    """The definition text[start:end] and as much after, then before it, as `budget` tokens
    allow (the definition itself cut to the budget when it alone is longer)."""
    start, end = max(0, start), min(len(text), max(end, start))
    if count_tokens(text) <= budget:
        return text
    enc = encoding()
    core = text[start:end]
    if count_tokens(core) >= budget:
        return enc.decode(enc.encode_ordinary(core)[:budget])
    after = enc.encode_ordinary(text[end:])
    left = budget - count_tokens(core)
    tail = enc.decode(after[:left]) if after else ""
    left -= count_tokens(tail)
    head = ""
    if left > 0 and start > 0:
        before = enc.encode_ordinary(text[:start])
        head = enc.decode(before[-left:])
    out = head + core + tail
    while out and count_tokens(out) > budget:  # token counts of joined text can differ by one
        out = out[:-1]
    return out


ROUTES.append(DefinitionRoute)
