"""The tree's knowledge records for a reader: `define(term)` (the definition and where it
stands), `mentions(term)` (the places a term occurs), `follow(reference)` (the node a
reference or link points at), and a node's outgoing references. Read-only, over
`hierarchy.json`'s `terms` and `edges` (an older tree has none: every lookup says so).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from chunker.document.tokens import count_tokens
from chunker.knowledge.terms import key, variants
from chunker.navigation.errors import NavigationError
from chunker.output.graph import Edge, Term


class TermView(BaseModel):
    term: str
    aliases: list[str] = Field(default_factory=list)
    definition: str | None = None
    node: str | None = Field(default=None, description="the leaf that defines it")
    source: str | None = None
    span: tuple[int, int] | None = None
    how: str | None = None
    mentions: int = 0
    tokens: int = 0

    def render(self) -> str:
        head = self.term + (f" (also: {', '.join(self.aliases)})" if self.aliases else "")
        if self.definition is None:
            return f"{head}: no definition in this tree; mentioned {self.mentions} times"
        where = ", ".join(x for x in (self.source, self.span and f"chars {self.span[0]}-{self.span[1]}") if x)
        return (f"{head}\ndefinition ({self.how}): {self.definition}\n"
                f"defined in [{self.node}]" + (f" ({where})" if where else "")
                + f"; mentioned {self.mentions} times")


class MentionsView(BaseModel):
    term: str
    places: list[dict] = Field(default_factory=list, description="node, source, span, text")
    total: int = 0
    tokens: int = 0

    def render(self) -> str:
        if not self.places:
            return f"{self.term}: mentioned nowhere"
        lines = [f"{self.term}: {self.total} mentions"]
        for p in self.places:
            where = ", ".join(x for x in (p.get("source"), f"chars {p['span'][0]}-{p['span'][1]}") if x)
            lines.append(f"- [{p['node']}] ({where}): {p['text']}")
        if self.total > len(self.places):
            lines.append(f"- ... and {self.total - len(self.places)} more")
        return "\n".join(lines)


class TermIndex:
    """Every form of every term (name, aliases, plural and singular) by its folded key."""

    def __init__(self, terms: list[Term]):
        self.terms = terms
        self.by_key: dict[str, Term] = {}
        for t in terms:
            for form in [t.name, *t.aliases]:
                for v in variants(form):
                    self.by_key.setdefault(key(v), t)
                    self.by_key.setdefault(v.casefold(), t)

    def get(self, name: str) -> Term | None:
        name = " ".join(name.strip().strip("?.!\"'`*_\u201c\u201d").split())
        return self.by_key.get(name.casefold()) or self.by_key.get(key(name))


def term_index(tree) -> TermIndex:
    cached = tree.cached_index(("terms",))
    return cached if cached is not None else tree.cache_index(("terms",), TermIndex(tree.hierarchy.terms))


def lookup(tree, term: str) -> Term:
    found = term_index(tree).get(term)
    if found is None:
        known = ", ".join(t.name for t in tree.hierarchy.terms[:10])
        raise NavigationError(f"no term {term!r} in this tree" + (f"; some it has: {known}" if known else
                                                                  " (it has no term registry)"))
    return found


def define(tree, term: str) -> TermView:
    t = lookup(tree, term)
    d = t.definition
    view = TermView(term=t.name, aliases=t.aliases, mentions=t.mentions,
                    **({} if d is None else {"definition": " ".join(d.text.split()), "node": d.node,
                                            "source": d.source if tree.is_corpus else None,
                                            "span": d.span, "how": d.how}))
    view.tokens = count_tokens(view.render())
    return view


def mentions(tree, term: str, k: int = 20) -> MentionsView:
    t = lookup(tree, term)
    places = [e for e in tree.hierarchy.edges if e.kind == "mentions" and e.target == f"term:{t.id}"]
    view = MentionsView(term=t.name, total=len(places), places=[
        {"node": e.source, "source": e.file if tree.is_corpus else None, "span": e.span,
         "text": _context(tree, e)} for e in places[:k]])
    view.tokens = count_tokens(view.render())
    return view


def _context(tree, e: Edge, width: int = 60) -> str:
    n = tree.node(e.source)
    if n.original is None or n.span is None or e.span is None:
        return e.text
    lo, hi = e.span[0] - n.span[0], e.span[1] - n.span[0]
    return " ".join(n.original[max(0, lo - width):hi + width].split())


def outgoing(tree, node_id: str) -> list[str]:
    """The nodes a node's references and links point at (of it and its leaves), in order."""
    cached = tree.cached_index(("outgoing",))
    if cached is None:
        table: dict[str, dict[str, None]] = {}
        for e in tree.hierarchy.edges:
            if e.kind in ("refers_to", "links_to") and e.target != e.source:
                table.setdefault(e.source, {})[e.target] = None
        cached = tree.cache_index(("outgoing",), table)
    return [t for t in cached.get(node_id, {}) if t in tree.nodes and t != node_id]


def follow(tree, reference: str, node_id: str | None = None):
    """The node `reference` points at (a reference or link as the text writes it: "Table
    3-1", "Section 2", "[[Note#Heading]]"); from `node_id` first when given."""
    want = _fold(reference)
    edges = [e for e in tree.hierarchy.edges if e.kind in ("refers_to", "links_to") and _fold(e.text) == want]
    if node_id is not None:
        tree.node(node_id)
        own = [e for e in edges if e.source == node_id or node_id in tree.ancestors(e.source)]
        edges = own or edges
    targets = list(dict.fromkeys(e.target for e in edges))
    if not targets:
        gone = [u for u in tree.hierarchy.unresolved if _fold(u.text) == want]
        if gone:
            raise NavigationError(f"{reference!r} resolves nowhere in this tree: {gone[0].reason}")
        raise NavigationError(f"no reference {reference!r} in this tree")
    if len(targets) > 1:
        raise NavigationError(f"{reference!r} points at {len(targets)} nodes ({', '.join(targets[:5])}): "
                              f"give the node_id it is read from")
    return tree.open_node(targets[0])


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().strip(".,;:()")).casefold()
