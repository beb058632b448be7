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
from chunker.state.slots import CallSlots
from chunker.document.prose import clean_line
from chunker.embeddings import get_embeddings, split_at_dips, summary_dips
from chunker.llm.invoke import call_llm
from chunker.state.schema import add_counts


def group_items(cfg: ChunkerSettings, cs: CorpusStore, key: str, summaries: Sequence[str], *,
                background: str, calls_dir: str | None, writer=None, ids: Sequence[str] = (),
                previous: CorpusStore | None = None, shaped_by: str = "",
                slots: CallSlots | None = None) -> tuple[list[list[int]], dict[str, int]]:
    """Contiguous groups of the indices of `summaries`, each of at least `min_group_size`.

    `previous`: an update's old corpus. Its grouping of the very same summaries holds as it
    is; when the items (`ids`) changed (a file added to the folder, one deleted or edited),
    the old groups are kept and the change is placed into them (`patch_groups`), so that
    the documents that did not change stay in their groups, under the same names."""
    plain = key
    key = f"{key}#{hashlib.sha256(json.dumps([shaped_by, list(summaries)]).encode()).hexdigest()[:16]}"
    done = cs.get_value("groups", key)
    if done is not None:
        return done["groups"], done["stats"]  # a resume counts what the run did once
    old = previous.get_value("groups", key) if previous is not None else None
    if old is not None:
        cs.put_value("groups", key, {**old, "stats": {}})  # its calls were the old run's
        cs.put_value("group-of", plain, {"ids": list(ids), "groups": old["groups"], "shaped_by": shaped_by})
        return old["groups"], {}
    before = previous.get_value("group-of", plain) if previous is not None and ids else None
    if before is not None and before.get("shaped_by") == shaped_by:
        patched = patch_groups(before["ids"], before["groups"], list(ids), cfg.aggregation.min_group_size,
                               cfg.aggregation.max_group_size)
        if patched is not None:
            stats = {"update.groups.patched": 1}
            cs.put_value("groups", key, {"groups": patched, "stats": stats})
            cs.put_value("group-of", plain, {"ids": list(ids), "groups": patched, "shaped_by": shaped_by})
            return patched, stats
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
                              background=background, writer=writer, memo=cs, calls_dir=calls_dir,
                              slots=slots)
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
    cs.put_value("group-of", plain, {"ids": list(ids), "groups": groups, "shaped_by": shaped_by})
    return groups, stats


def patch_groups(old_ids: list[str], old_groups: list[list[int]], ids: list[str], min_size: int,
                 max_size: int) -> list[list[int]] | None:
    """The old groups over the new items: each item that was there stays in its group, a new
    one joins its predecessor's (the first item's successor's); a group left smaller than
    `min_size` joins its neighbour; new items that grow a group past both `max_size` and its
    old size form a group of their own when they are enough for one and lie at its start or
    end (old members never move). None when no old item is left (a new grouping is needed)."""
    group_of = {old_ids[i]: g for g, members in enumerate(old_groups) for i in members if i < len(old_ids)}
    marks = [group_of.get(item) for item in ids]
    if all(m is None for m in marks):
        return None
    fresh = {i for i, m in enumerate(marks) if m is None}
    current = next(m for m in marks if m is not None)
    for i, m in enumerate(marks):  # new items follow their predecessor; groups stay in order
        current = current if m is None or m < current else m
        marks[i] = current
    runs: list[list[int]] = []
    for i, m in enumerate(marks):
        if runs and marks[runs[-1][0]] == m:
            runs[-1].append(i)
        else:
            runs.append([i])
    sizes = {g: len(members) for g, members in enumerate(old_groups)}
    out: list[list[int]] = []
    for run in runs:
        if out and len(run) < min_size:
            out[-1].extend(run)  # too small now: it joins the group before it
        elif len(run) > max(max_size, sizes.get(marks[run[0]], 0)):
            out.extend(_split_new(run, fresh, min_size))
        else:
            out.append(run)
    if len(out) > 1 and len(out[0]) < min_size:
        out[1] = out[0] + out[1]
        out.pop(0)
    return out


def _split_new(run: list[int], fresh: set[int], min_size: int) -> list[list[int]]:
    """A grown group: its new items at its end (or start) as a group of their own, when they
    are at least `min_size`; else the group stays whole (the size cap is soft)."""
    tail = 0
    while tail < len(run) and run[-1 - tail] in fresh:
        tail += 1
    if min_size <= tail < len(run):
        return [run[:-tail], run[-tail:]]
    head = 0
    while head < len(run) and run[head] in fresh:
        head += 1
    if min_size <= head < len(run):
        return [run[:head], run[head:]]
    return [run]
