"""Grouping a flat folder's many documents: the grouping loop a document's sweeps run
(chunker/aggregation/grouping.py: the same prompt, the same rules, the same retries and
fallback), over the documents' summaries, with the embedding dips as suggested breaks.

The corpus keeps what the graph's checkpoints keep for a document: every answer of the
model, in the corpus store under its prompt (`group-answers`), so a resume replays the
answers it has and asks only the call that was in flight; and the groups chosen, under
the node's key (`groups`), so a resume asks nothing for a finished grouping. An update
keeps the old groups: the same summaries' grouping as it is, or, when the folder's documents
changed, the old groups with the change placed into them (`patch_groups`), so that the
documents that did not change stay in their groups, under the same names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from chunker.aggregation.grouping import Groups, choose_groups
from chunker.config.settings import ChunkerSettings
from chunker.corpus.store import CorpusStore
from chunker.state.slots import CallSlots
from chunker.document.prose import clean_line
from chunker.embeddings import get_embeddings, summary_dips
from chunker.llm.invoke import call_llm

ANSWERS = "group-answers"
"""The corpus store's kind for the model's grouping answers, by prompt."""


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
    lines = [clean_line(s) for s in summaries]
    embeddings = get_embeddings(cfg.embedding.provider) if cfg.embedding.provider else None
    dips = summary_dips(lines, embeddings) if embeddings is not None else []

    def ask(prompt: str) -> tuple[Groups | None, dict[str, int]]:
        memo = hashlib.sha256(f"{background}\x00{prompt}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
        said = cs.get_value(ANSWERS, memo)
        if said is None:  # asked once: a resume replays the answer and its counts
            result = call_llm(cfg.llm, node="corpus_group", task="group", user=prompt, background=background,
                              writer=writer, memo=cs, calls_dir=calls_dir, slots=slots)
            said = {"groups": result.parsed.groups if result.parsed else None, "stats": result.stats}
            cs.put_value(ANSWERS, memo, said)
        return said["groups"], said["stats"]

    # one group of all would leave a folder of more items than a group may hold as it was
    groups, stats = choose_groups(lines, dips, agg, ask if cfg.llm.asks("group") else None,
                                  must_split=len(lines) > agg.max_group_size)
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
