"""The knowledge passes over a finished tree, run when it is written (one document, or a
corpus's assembly): the term registry, references and links resolved into edges, what resolves
nowhere, and the checks. An update re-runs them over its whole new tree, so terms and
references of changed nodes are redone and an edge into a deleted file is listed as broken.

Every offset is one of the tree's own: the text of a file is its leaves' originals joined
(the lossless invariant), so nothing here re-reads a source file.
"""

from __future__ import annotations

from collections.abc import Iterable

from chunker.knowledge.documents import Documents
from chunker.knowledge.links import SKIP, LinkResolver
from chunker.knowledge.patterns import Candidate
from chunker.knowledge.lint import dangling_checks, orphan_checks, term_checks
from chunker.knowledge.references import Targets, find_references
from chunker.knowledge.settings import KnowledgeSettings
from chunker.knowledge.syntax import find_links
from chunker.knowledge.terms import build_terms, candidates
from chunker.output.checks import Check
from chunker.output.graph import Edge, Unresolved
from chunker.output.hierarchy import Hierarchy

KNOWLEDGE_KINDS = ("term-conflict", "dangling-reference", "unused-term", "orphan-note")
"""The check kinds these passes own: a re-run replaces them and keeps every other kind."""


def annotate(h: Hierarchy, settings: KnowledgeSettings | None = None,
             proposed: Iterable[tuple[str | None, Candidate]] = ()) -> Hierarchy:
    """`h` with its terms, edges, unresolved references and knowledge checks (recomputed).
    `settings`: the run's knowledge section (the defaults without one); `proposed`: a model's
    grounded proposals, each with the file it lies in (`proposals.TermProposer`)."""
    cfg = settings or KnowledgeSettings()
    kept = [c for c in h.checks if c.kind not in KNOWLEDGE_KINDS]
    if not cfg.enabled:
        return h.model_copy(update={"terms": [], "edges": [], "unresolved": [], "checks": kept})
    docs = Documents(h)
    found = candidates(docs) + [(cand, docs.get(source)) for source, cand in proposed
                                if docs.get(source) is not None]
    terms, term_edges = build_terms(docs, found, cfg.max_definitions)
    edges, unresolved = link_edges(docs)
    ref_edges, ref_unresolved = reference_edges(docs, cfg)
    edges += ref_edges
    unresolved += ref_unresolved
    checks: list[Check] = [*term_checks(terms, cfg.conflict_similarity), *dangling_checks(unresolved)]
    if docs.is_corpus:
        node_source = {n.id: n.source for n in h.nodes}
        documents = [(d.source, d.node.id) for d in docs if d.source is not None]
        checks += orphan_checks(documents, edges, node_source)
    return h.model_copy(update={"terms": terms, "edges": [*term_edges, *edges], "unresolved": unresolved,
                                "checks": [*kept, *checks]})


def link_edges(docs: Documents) -> tuple[list[Edge], list[Unresolved]]:
    """Each wiki-link and Markdown link of the originals to a file of the tree, as a
    `links_to` edge; one to a note the tree does not hold, listed."""
    resolver = LinkResolver(docs)
    edges, unresolved = [], []
    for doc in docs:
        for link in find_links(doc.text, doc.code):
            got = resolver.resolve(link, doc.source)
            if got is SKIP:
                continue
            leaf = doc.leaf_at(link.start)
            if got.node is None:
                unresolved.append(Unresolved(ref=link.kind, node=leaf.id, file=doc.source,
                                             span=(link.start, link.end), text=link.raw, reason=got.reason))
            else:
                edges.append(Edge(kind="links_to", source=leaf.id, target=got.node, file=doc.source,
                                  span=(link.start, link.end), text=link.raw, ref=link.kind))
    return edges, unresolved


def reference_edges(docs: Documents, cfg: KnowledgeSettings) -> tuple[list[Edge], list[Unresolved]]:
    """Each explicit reference as a `refers_to` edge to the node holding its target, or
    listed with its span and why it resolves nowhere."""
    targets = Targets(docs)
    edges, unresolved = [], []
    for doc in docs:
        for ref in find_references(doc):
            if targets.is_label(doc.source, ref.start):
                continue  # "Table 4:" in Table 4's own caption names it, it refers to nothing
            if ref.direction is not None:
                target = targets.nearby(ref.kind, ref.direction, doc.source, ref.start, cfg.nearby_chars)
                reason = f"no {ref.kind} {ref.direction} within {cfg.nearby_chars} characters"
            else:
                target, reason = targets.lookup(ref.kind, ref.number, doc.source)
            leaf = doc.leaf_at(ref.start)
            if target is None:
                unresolved.append(Unresolved(ref=ref.kind, node=leaf.id, file=doc.source,
                                             span=(ref.start, ref.end), text=ref.text, reason=reason))
            else:
                edges.append(Edge(kind="refers_to", source=leaf.id, target=target.node, file=doc.source,
                                  span=(ref.start, ref.end), text=ref.text, ref=ref.kind))
    return edges, unresolved
