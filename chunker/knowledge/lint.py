"""The knowledge checks, each a `chunker.output.checks.Check` with every location it involves:
`term-conflict` (one term defined differently in two places), `dangling-reference` (a
reference or link whose target the tree does not hold), `unused-term` (defined, never
mentioned), `orphan-note` (in a corpus, a file nothing links to). Recorded, never fixed.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from chunker.output.checks import Check, CheckLocation
from chunker.output.graph import Definition, Edge, Term, Unresolved


def _at(d: Definition) -> CheckLocation:
    return CheckLocation(node=d.node, source=d.source, span=d.span, quote=d.text[:300])


def term_checks(terms: list[Term], similarity: float) -> list[Check]:
    out = []
    for t in terms:
        explicit = [d for d in t.definitions if d.how != "emphasis"]
        first = explicit[0] if explicit else None
        for other in explicit[1:]:
            if fuzz.token_set_ratio(_without(first.text, t), _without(other.text, t)) < similarity:
                out.append(Check(kind="term-conflict", message=(
                    f"{t.name!r} is defined differently in {first.source or 'the document'} and "
                    f"{other.source or 'the document'}"), locations=[_at(first), _at(other)]))
        if t.definitions and t.mentions == 0:
            d = t.definitions[0]
            out.append(Check(kind="unused-term", message=f"{t.name!r} is defined but never used",
                             locations=[_at(d)]))
    return out


def _without(text: str, t: Term) -> str:
    """A definition's words without the term's own: what two definitions of it share is
    what they say about it, not its name."""
    text = text.casefold()
    for form in sorted([t.name, *t.aliases], key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(form.casefold())}s?(?!\w)", " ", text)
    return " ".join(re.sub(r"[*_`\"'()]", " ", text).split())


def dangling_checks(unresolved: list[Unresolved]) -> list[Check]:
    return [Check(kind="dangling-reference", message=f"{u.text!r} resolves nowhere: {u.reason}",
                  locations=[CheckLocation(node=u.node, source=u.file, span=u.span, quote=u.text)])
            for u in unresolved]


def orphan_checks(documents: list[tuple[str, str]], edges: list[Edge], node_source: dict[str, str | None]
                  ) -> list[Check]:
    """`documents`: (file, its document node) of a corpus; a file is an orphan when no link
    from another file points into it."""
    linked = {node_source.get(e.target) for e in edges
              if e.kind == "links_to" and node_source.get(e.target) != e.file}
    return [Check(kind="orphan-note", message=f"nothing links to {source}",
                  locations=[CheckLocation(node=node, source=source)])
            for source, node in documents if source not in linked]
