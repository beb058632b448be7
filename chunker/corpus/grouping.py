"""Grouping a flat folder's many documents: the model proposes contiguous groups of their
summaries, with the embedding dips as suggested breaks, exactly as a document's sweeps do
(the same prompt, the same validity rules, one retry, then the dips decide).

The answer is kept in the corpus store under the node's key, so a resume never asks again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from chunker import prompts
from chunker.aggregation.groups import break_hints, grouping_problem
from chunker.config.settings import ChunkerSettings
from chunker.corpus.store import CorpusStore
from chunker.document.prose import clean_line
from chunker.embeddings import get_embeddings, split_at_dips, summary_dips
from chunker.llm.invoke import call_llm
from chunker.state.schema import add_counts


def group_items(cfg: ChunkerSettings, cs: CorpusStore, key: str, summaries: Sequence[str], *,
                background: str, calls_dir: str | None, writer=None,
                previous: CorpusStore | None = None, shaped_by: str = "") -> tuple[list[list[int]], dict[str, int]]:
    """Contiguous groups of the indices of `summaries`, each of at least `min_group_size`;
    `previous`: an update's old corpus, whose grouping of the very same summaries holds."""
    key = f"{key}#{hashlib.sha256(json.dumps([shaped_by, list(summaries)]).encode()).hexdigest()[:16]}"
    done = cs.get_value("groups", key)
    if done is not None:
        return done["groups"], done["stats"]  # a resume counts what the run did once
    old = previous.get_value("groups", key) if previous is not None else None
    if old is not None:
        cs.put_value("groups", key, {**old, "stats": {}})  # its calls were the old run's
        return old["groups"], {}
    agg = cfg.aggregation
    n = len(summaries)
    lines = [clean_line(s) for s in summaries]
    embeddings = get_embeddings(cfg.embedding.provider) if cfg.embedding.provider else None
    dips = summary_dips(lines, embeddings) if embeddings is not None else [0.0] * (n - 1)
    stats: dict[str, int] = {}
    groups = None
    if cfg.llm.asks("group"):
        nudge = ""
        for attempt in range(2):
            user = prompts.render("group", items="\n".join(f"[{i}] {s}" for i, s in enumerate(lines)),
                                  count=n, min_group_size=agg.min_group_size,
                                  max_group_size=agg.max_group_size,
                                  hints=break_hints(dips, n, agg.max_group_size), nudge=nudge)
            result = call_llm(cfg.llm, node="corpus_group", task="group", user=user,
                              background=background, writer=writer, memo=cs, calls_dir=calls_dir)
            stats = add_counts(stats, result.stats)
            proposed = result.parsed.groups if result.parsed else None
            problem = grouping_problem(proposed, n, agg.min_group_size)
            if problem is None and len(proposed) > 1:
                groups = proposed
                stats["kept.group"] = 1
                break
            problem = problem or "one group of everything does not organise them"
            nudge = f"\nYour previous grouping was invalid: {problem}."
            stats["group.invalid"] = stats.get("group.invalid", 0) + 1
        if groups is None:
            stats["group.fallback"] = 1
    else:
        stats["extracted.group"] = 1
    if groups is None:
        groups = split_at_dips(n, dips, agg.min_group_size, agg.max_group_size)
    cs.put_value("groups", key, {"groups": groups, "stats": stats})
    return groups, stats
