"""How a walk without a model ranks a block's children (`NavigatorSettings.child_scoring`).

- `node`: cosine similarity of the child's own summary and rewritten text (what a reader
  of the listing sees).
- `subtree`: the best similarity of any node below the child, the child included
  (RAPTOR's collapsed view guiding the walk).
- `hybrid`: the same collapsed view, but each node's relevance is the reciprocal-rank
  fusion (Cormack et al., SIGIR 2009) of its BM25 rank and its embedding rank over the
  whole tree. Sentence embeddings of summaries miss names and rare words that the
  questions hinge on ("Maple Grove", "puppies"); BM25 catches them, and fusing ranks
  rather than scores needs no calibration between the two scales.

Inside one document of a corpus the ranks (and BM25's term statistics) are the document's
own, as if it stood alone: the other files' words and nodes neither shift its ranks nor
dilute its rare terms. At the folders, the whole corpus is ranked.

Only the ranking of children changes: the walk still descends from the root, pays for the
children's listing at every choice, and opens at most `max_leaves` leaves within budget.
Every score is higher-is-better and on one scale per method, so `best_first` backtracking
can compare branches taken at different depths.
"""

from __future__ import annotations

from chunker.navigation.search import BM25, BM25_SPECS
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree


def similarities(tree: Tree, cfg: NavigatorSettings, question: str,
                 source: str | None = None) -> dict[str, float]:
    """Similarity of every node (of `source`'s nodes, when given) to the question."""
    scores = tree.index(cfg.embeddings, cfg.piece_tokens, cfg.cache_embeddings, source=source).scores(question)
    if source is not None:  # a whole-tree index (sentence embeddings): the file's nodes only
        keep = set(tree.document_node_ids(source))
        scores = {nid: v for nid, v in scores.items() if nid in keep}
    return scores


def fused(tree: Tree, cfg: NavigatorSettings, question: str, source: str | None = None) -> dict[str, float]:
    """Reciprocal-rank fusion of BM25 and embedding ranks: sum of 1 / (rrf_k + rank).

    With `embeddings` set to BM25 itself there is one ranking to fuse (no double count)."""
    bm25 = tree.index(BM25, cfg.piece_tokens, cfg.cache_embeddings, source=source).scores(question)
    # A node that shares no word with the question is not ranked by BM25 at all: ranking
    # the tied zeros would hand out credit by tree order.
    rankings = [{nid: v for nid, v in bm25.items() if v > 0}]
    if cfg.embeddings not in BM25_SPECS:
        rankings.append(similarities(tree, cfg, question, source))
    out = {nid: 0.0 for nid in (tree.nodes if source is None else tree.document_node_ids(source))}
    for scores in rankings:
        order = sorted(scores, key=lambda nid: -scores[nid])  # stable: ties keep tree order
        for rank, nid in enumerate(order, 1):
            out[nid] += 1.0 / (cfg.rrf_k + rank)
    return out


def node_scores(tree: Tree, cfg: NavigatorSettings, question: str,
                source: str | None = None) -> dict[str, float]:
    """Each node's own relevance under the configured method (before any subtree max)."""
    if cfg.child_scoring == "hybrid":
        return fused(tree, cfg, question, source)
    return similarities(tree, cfg, question, source)


def child_scores(tree: Tree, cfg: NavigatorSettings, question: str,
                 children: list[str]) -> list[float]:
    """One score per child, in the children's order (higher: descend there first)."""
    every = node_scores(tree, cfg, question, tree.scope_of(children))
    if cfg.child_scoring == "node":
        return [every[c] for c in children]
    return [max(every[d] for d in tree.descendants(c)) for c in children]
