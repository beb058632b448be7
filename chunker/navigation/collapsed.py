"""Collapsed search, then the tree: the navigator's default way to find what a question needs.

RAPTOR found that scoring every node of the tree at once (the collapsed tree) beats descending
level by level, where each level's miss compounds. So:

1. **Rank every unit at once** (`context_index`: the pieces of every leaf with their context,
   and every block's summary) by the reciprocal-rank fusion of BM25 and the embeddings
   provider's ranks (Cormack et al. 2009; `rrf_k`), a piece's own fused rank plus that of its
   whole leaf (two BM25 views of the leaf, and its best piece's vector). BM25 catches the names
   and rare words a question hinges on, embeddings the paraphrases; fusing ranks needs no
   calibration.
2. **Use the tree to decide what to read**, best unit first, until the budget is spent:
   - the whole leaf when it takes at most `leaf_share` of the budget still left (a large
     budget reads its best passages whole, in context), else the piece (a small budget, or the
     end of any budget, buys several places, not one); consecutive or overlapping pieces of one
     leaf merge, and a short leaf is one piece;
   - a section's summary (zoom out) when `zoom_hits` of the `zoom_window` best pieces lie under
     one block below the root: many passages of one section match, so the question is about the
     section, and its summary is read once, before them;
   - a block's summary, too, when the block itself ranks among the `zoom_window` best units
     (RAPTOR's collapsed tree reads summaries that match; a folder's is never read: too broad);
   - consecutive leaves of one file read together become one passage under one header (a
     neighbour read on is text that runs on, and the budget pays one header, not two).
3. **Return what was read in document order**, each passage with its path from the root and
   where it sits (document title, heading path), so the reader sees the passages as the
   document tells them. The budget bounds all of it: every passage's rendering counts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chunker.document.tokens import count_tokens
from chunker.navigation.context_index import (Unit, build_units, contextual_leaf_text, document_title,
                                              heading_path, heading_text)
from chunker.navigation.errors import NavigationError
from chunker.navigation.scope import nodes_under, normalise_prefix
from chunker.navigation.search import BM25_SPECS, Bm25Index, EmbeddingIndex, load_embeddings
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree
from chunker.navigation.views import Reading, ReadPassage


@dataclass
class UnitIndex:
    """Every unit of one tree, indexed for BM25 and for the embeddings provider."""

    units: list[Unit]
    halves: dict[str, list[tuple[int, int]]]
    """Each leaf's half-pieces (`pieces.windows`): what merged pieces are cut back into."""
    bm25: Bm25Index
    leaf_bm25: list[Bm25Index]
    """BM25 over whole leaves, one index per view: the source's words (the original with its
    context, `contextual_leaf_text`) and the tree's words for it (its summary and rewrite with
    the same context). Each view ranks on its own and the ranks are fused: a long original
    dilutes its summary's terms in a single text, and BM25 normalises by length. Together
    they are one vote in the fusion, as much as the embeddings' one."""
    embedded: EmbeddingIndex | None
    rrf_k: int

    def ranked(self, question: str, allowed: set[str] | None = None) -> list[tuple[Unit, float]]:
        """Units best first (only units of `allowed` nodes when given). A unit's score is the
        fused rank of the unit itself, plus, for a piece, the fused rank of its whole leaf:
        a passage is chosen for what it says and for what the leaf around it is about."""
        keep = [u for u in self.units if allowed is None or u.node in allowed]
        wanted = {u.id for u in keep}
        sims = self.embedded.scores(question) if self.embedded is not None else {}
        best: dict[str, float] = {}
        for key, value in sims.items():  # a piece's own vector and its rewrite's: the better
            uid = key[:-1] if key.endswith("~") else key
            best[uid] = max(value, best.get(uid, float("-inf")))
        unit_rankings = [_positive(self.bm25.scores(question))] + ([best] if sims else [])
        fused = _fuse(unit_rankings, wanted, self.rrf_k)
        leaves = {u.node for u in keep if u.kind == "piece"}
        leaf_sims: dict[str, float] = {}
        for u in keep:
            if u.kind == "piece" and u.id in best:
                leaf_sims[u.node] = max(best[u.id], leaf_sims.get(u.node, float("-inf")))
        leaf_rankings = [_positive(index.scores(question)) for index in self.leaf_bm25]
        weights = [1.0 / len(leaf_rankings)] * len(leaf_rankings)  # one vote for BM25's views
        if sims:
            leaf_rankings.append(leaf_sims)
            weights.append(1.0)
        leaf_fused = _fuse(leaf_rankings, leaves, self.rrf_k, weights)
        total = {u.id: fused[u.id] + (leaf_fused[u.node] if u.kind == "piece" else 0.0) for u in keep}
        by_id = {u.id: u for u in keep}
        order = sorted(total, key=lambda uid: -total[uid])  # stable: ties keep reading order
        return [(by_id[uid], total[uid]) for uid in order]


def _positive(scores: dict[str, float]) -> dict[str, float]:
    """BM25 scores above zero: a text sharing no word with the question is not ranked at all
    (ranking the tied zeros would hand out credit by reading order)."""
    return {k: v for k, v in scores.items() if v > 0}


def _fuse(rankings: list[dict[str, float]], wanted: set[str], rrf_k: int,
          weights: list[float] | None = None) -> dict[str, float]:
    """Reciprocal-rank fusion over `wanted` ids: the sum of weight / (rrf_k + rank) per ranking
    (weight 1 each unless given: several views of one retriever share one vote, so that BM25
    and the embeddings weigh alike however many views each has)."""
    fused = {uid: 0.0 for uid in wanted}
    for scores, weight in zip(rankings, weights or [1.0] * len(rankings)):
        order = sorted((uid for uid in scores if uid in wanted), key=lambda uid: -scores[uid])
        for rank, uid in enumerate(order, 1):
            fused[uid] += weight / (rrf_k + rank)
    return fused


def unit_index(tree: Tree, cfg: NavigatorSettings) -> UnitIndex:
    """The tree's unit index for these settings, built once per tree (and cached on disk for
    the embeddings, like every other index)."""
    key = ("units", cfg.embeddings, cfg.context_fields, cfg.piece_tokens, cfg.context_tokens)
    cached = tree.cached_index(key)
    if cached is not None:
        return cached
    units, long_texts, short_texts, halves = build_units(tree, cfg.context_fields, cfg.piece_tokens,
                                                 cfg.context_tokens)
    embedded = None
    embeddings = None if cfg.embeddings in BM25_SPECS else load_embeddings(cfg.embeddings)
    if embeddings is not None:
        cache_dir = tree.path / ".chunker" / "navigation" if cfg.cache_embeddings and tree.path else None
        # the short texts already fit the model: no second cut into pieces
        embedded = EmbeddingIndex(embeddings, short_texts, method=cfg.embeddings,
                                  piece_tokens=cfg.piece_tokens * 4 + cfg.context_tokens,
                                  cache_dir=cache_dir)
    views = [{leaf: contextual_leaf_text(tree, leaf, cfg.context_fields, cfg.context_tokens, view)
              for leaf in halves} for view in ("source", "tree")]
    index = UnitIndex(units, halves, Bm25Index(long_texts), [Bm25Index(v) for v in views], embedded,
                      cfg.rrf_k)
    return tree.cache_index(key, index)


def where_of(tree: Tree, node_id: str) -> str:
    """Where a node sits, as a reader says it: document title > heading path (a heading that
    repeats the one before it, such as a file's title heading, said once)."""
    n = tree.node(node_id)
    parts = [document_title(tree, node_id), *heading_path(tree, node_id)]
    if n.children and n.title:
        parts.append(heading_text(n.title))
    deduped: list[str] = []
    for part in parts:
        if part and (not deduped or part.casefold() != deduped[-1].casefold()):
            deduped.append(part)
    return " > ".join(deduped) or node_id


def _passage(tree: Tree, unit_node: str, kind: str, span, offset, score: float) -> ReadPassage:
    n = tree.node(unit_node)
    if kind == "summary":
        text = " ".join(n.summary.split())
    else:
        text = (n.original or "")[offset[0]:offset[1]]
        if offset == (0, len(n.original or "")):
            kind = "leaf"
    passage = ReadPassage(id=n.id, ids=[] if kind == "summary" else [n.id], kind=kind, text=text,
                          where=where_of(tree, n.id),
                          path=tree.ancestors(n.id), span=span if kind != "summary" else n.span,
                          source=n.source if tree.is_corpus else None, score=round(score, 6),
                          location=n.location.model_dump(mode="json") if n.location is not None else None)
    passage.tokens = count_tokens(passage.render())
    return passage


def zoom_targets(tree: Tree, ranked: list[tuple[Unit, float]], cfg: NavigatorSettings) -> dict[str, float]:
    """Sections to read the summary of: a block (below the root) that itself ranks among the
    `zoom_window` best units, or that holds `zoom_hits` of the `zoom_window` best pieces (the
    lowest such block of each cluster); each with the best score that put it there."""
    if cfg.zoom_hits < 1:
        return {}
    top = ranked[:cfg.zoom_window]
    pieces = [(u, s) for u, s in ranked if u.kind == "piece"][:cfg.zoom_window]
    hits: dict[str, list[float]] = {}
    for unit, score in pieces:
        for block in tree.ancestors(unit.node)[1:-1]:  # not the root, not the leaf itself
            if tree.node(block).kind != "folder":  # a folder's summary is too broad to read
                hits.setdefault(block, []).append(score)
    dense = {b: max(v) for b, v in hits.items() if len(v) >= cfg.zoom_hits}
    # the lowest dense block: an ancestor of one adds nothing a reader did not get from it
    out = {b: s for b, s in dense.items()
           if not any(d != b and d in dense for d in tree.descendants(b))}
    for unit, score in top:
        if unit.kind == "summary" and unit.node != tree.root_id and tree.node(unit.node).kind != "folder":
            out.setdefault(unit.node, score)
    return out


def collapsed_read(tree: Tree, question: str, cfg: NavigatorSettings,
                   allowed: set[str] | None = None) -> Reading:
    """Everything the collapsed search reads for `question` within `cfg.budget_tokens`."""
    index = unit_index(tree, cfg)
    ranked = index.ranked(question, allowed)
    budget = cfg.budget_tokens
    chosen: dict[str, list[tuple[Unit, float]]] = {}  # leaf id -> its chosen pieces
    summaries: dict[str, float] = {}
    zoom = zoom_targets(tree, ranked, cfg)

    def cost() -> int:
        return sum(p.tokens for p in _render(tree, index, chosen, summaries))

    for block, score in sorted(zoom.items(), key=lambda kv: -kv[1]):
        summaries[block] = score
        if cost() > cfg.zoom_share * budget:  # summaries may take only a small share
            del summaries[block]
    skipped = 0
    for unit, score in ranked:
        if unit.kind != "piece":
            continue
        pick = unit
        if tree.node(unit.node).token_count <= cfg.leaf_share * (budget - cost()):  # all of it
            last = len(index.halves[unit.node]) - 1
            pick = Unit(unit.id, unit.node, unit.kind, unit.span, unit.offset, (0, last))
        chosen.setdefault(unit.node, []).append((pick, score))
        if cost() > budget:
            chosen[unit.node].pop()
            if not chosen[unit.node]:
                del chosen[unit.node]
            skipped += 1
            if skipped >= cfg.scan_after_full:  # nothing small enough is left near the top
                break
    passages = _render(tree, index, chosen, summaries)
    return Reading(question=question, passages=passages, tokens=sum(p.tokens for p in passages))


def _render(tree: Tree, index: UnitIndex, chosen: dict[str, list[tuple[Unit, float]]],
            summaries: dict[str, float]) -> list[ReadPassage]:
    """The passages in document order: each leaf's chosen pieces, consecutive ones merged,
    a zoomed-out section's summary before the passages it holds."""
    order = tree.reading_order()
    out: list[tuple[tuple, ReadPassage]] = []
    for block, score in summaries.items():
        out.append(((order[block], 0), _passage(tree, block, "summary", None, None, score)))
    for leaf, picks in chosen.items():
        spans = index.halves[leaf]
        taken = sorted({h for unit, _ in picks for h in range(unit.halves[0], unit.halves[1] + 1)})
        best = {h: max(s for u, s in picks if u.halves[0] <= h <= u.halves[1]) for h in taken}
        runs: list[list[int]] = []
        for h in taken:  # consecutive (or overlapping) pieces merge into one passage
            if runs and h == runs[-1][-1] + 1:
                runs[-1].append(h)
            else:
                runs.append([h])
        base = tree.node(leaf).span[0] if tree.node(leaf).span else 0
        for run in runs:
            offset = (spans[run[0]][0], spans[run[-1]][1])
            span = (base + offset[0], base + offset[1])
            out.append(((order[leaf], 1, offset[0]),
                        _passage(tree, leaf, "piece", span, offset, max(best[h] for h in run))))
    return _merged([p for _, p in sorted(out, key=lambda item: item[0])])


def _merged(passages: list[ReadPassage]) -> list[ReadPassage]:
    """Consecutive passages of one file whose characters meet (the end of one leaf, the start
    of the next) as one passage under one header: the reader gets the text as it runs, and
    the budget pays for one header instead of several."""
    out: list[ReadPassage] = []
    for p in passages:
        last = out[-1] if out else None
        if (last is not None and p.kind != "summary" and last.kind != "summary"
                and last.source == p.source and last.span[1] == p.span[0]):
            last.text += p.text
            last.span = (last.span[0], p.span[1])
            last.ids += p.ids
            last.kind = "piece" if "piece" in (last.kind, p.kind) else "leaf"
            last.score = max(last.score, p.score)
            last.tokens = count_tokens(last.render())
        else:
            out.append(p)
    return out


def ranked_branches(tree: Tree, question: str, cfg: NavigatorSettings,
                    allowed: set[str] | None = None) -> list[tuple[str, float]]:
    """Where a model should start: the blocks directly holding the best pieces' leaves (a
    leaf itself when its parent is the root), distinct, best first, at most `cfg.branches`,
    each with the best score that named it. The model chooses among these instead of
    among the root's children, so a miss high in the tree costs nothing."""
    out: dict[str, float] = {}
    for unit, score in unit_index(tree, cfg).ranked(question, allowed):
        if unit.kind != "piece":
            continue
        parent = tree.node(unit.node).parent
        branch = parent if parent is not None and parent != tree.root_id else unit.node
        if allowed is not None and branch not in allowed:
            branch = unit.node
        out.setdefault(branch, score)
        if len(out) >= cfg.branches:
            break
    return list(out.items())


def find(tree: Tree, question: str, cfg: NavigatorSettings, budget: int | None = None,
         prefix: str | None = None) -> Reading:
    """The `find` tool: the collapsed search's reading for `question` within `budget` tokens
    (the settings' budget when None), in the files under `prefix` when given."""
    if not question.strip():
        raise NavigationError("the question is empty")
    if budget is not None and budget < 1:
        raise NavigationError("budget must be at least 1 token")
    prefix = normalise_prefix(prefix)
    allowed = nodes_under(tree.hierarchy, prefix) if prefix is not None else None
    settings = replace(cfg, budget_tokens=budget) if budget is not None else cfg
    if prefix is None:  # a question about a table's row: its record answers (the tools' find too)
        from chunker.structured.lookup import targeted_reading  # noqa: PLC0415

        got = targeted_reading(tree, " ".join(question.split()), settings.budget_tokens)
        if got is not None:
            return got[0]
    return collapsed_read(tree, " ".join(question.split()), settings, allowed)
