"""The corpus's upper levels: a node per folder, section or group of the plan, each with a
synthesis of its children's summaries (grounded like every block), bottom up.

A plan node with more children than `max_group_size` is first split into contiguous groups
(`grouping.group_items`: the model, with the summaries' dips as hints), one level at a time,
as a document's sweeps do: runs of loose documents first; when only the authors' folders and
sections are left and still too many, consecutive ones of them are grouped, each kept whole. Each node's synthesis is kept in the corpus store under its plan
key: a resume redoes none that finished, so a kill costs at most the call in flight.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Callable, TypeVar

from chunker.aggregation.synthesis import synthesize
from chunker.config.settings import ChunkerSettings
from chunker.corpus.fanout import run_all
from chunker.corpus.grouping import group_items
from chunker.corpus.model import PlanNode
from chunker.corpus.store import CorpusStore
from chunker.document.tokens import count_tokens
from chunker.grounding import document_overview
from chunker.state.schema import add_counts
from chunker.state.slots import CallSlots
from chunker.update.signature import signature_of

ROOT_ID = "F-root"
T = TypeVar("T")


def _digest(value) -> str:
    data = json.dumps(value, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def folder_id(key: str) -> str:
    """A stable id from the plan key: the same folder keeps its id across runs."""
    return ROOT_ID if key == "" else "F" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]


@dataclass
class Item:
    """A child as its parent's synthesis sees it: a document's node, or an upper node."""

    id: str
    title: str
    level: int
    summary: str
    summary_tokens: int
    rewritten: str
    rewritten_tokens: int


@dataclass
class UpperNode(Item):
    key: str = ""
    signal: str = "folder"
    children: list[str] = field(default_factory=list)
    summary_kept: bool = False
    slug_hint: str = ""
    name: str | None = None
    """The source folder's own name, for the node's file (folders mirror the source)."""


class UpperBuilder:
    """Synthesises the plan's nodes over finished documents; `nodes` in reading order."""

    def __init__(self, cfg: ChunkerSettings, cs: CorpusStore, corpus_title: str, *,
                 calls_dir: str | None, writer: Callable[[dict], None] | None = None,
                 previous: CorpusStore | None = None, slots: CallSlots | None = None):
        """`previous`: an update's old corpus, whose syntheses and groupings of the very same
        children are taken as they are. `slots`: the run's cap on calls in flight; sibling
        folders are built at once, up to its limit (a folder's background is its path, never
        a sibling's synthesis, so the order changes nothing)."""
        self.cfg, self.cs, self.corpus_title, self.previous = cfg, cs, corpus_title, previous
        self.slots = slots
        sig = signature_of(cfg.public_dict())  # a memo holds only under what shaped it
        self.shaped_by = f"{sig['settings']['blocks']}:{sig['prompts']['blocks']}"
        self.calls_dir, self.writer = calls_dir, writer
        self.nodes: list[UpperNode] = []
        self.stats: dict[str, int] = {}

    def build(self, root: PlanNode, documents: dict[str, Item]) -> Item:
        """The root item: an upper node, or the only document of a one-document corpus."""
        if len(root.children) == 1 and isinstance(root.children[0], str):
            return documents[root.children[0]]
        return self._node(root, documents, [])

    def _node(self, plan: PlanNode, documents: dict[str, Item], path: list[str]) -> UpperNode:
        here = path + ([plan.title] if plan.key else [])
        items = self._children(plan, documents, here)
        round_ = 0
        while len(items) > self.cfg.aggregation.max_group_size:
            grouped = self._grouped(plan, items, here, round_)
            if len(grouped) == len(items):
                # only the authors' folders and sections are left side by side: too many for
                # one listing, so consecutive ones are grouped too (each stays whole)
                grouped = self._split_run(plan, items, here, f"{plan.key}#r{round_}.all")
                if len(grouped) == len(items):
                    break
            items = grouped
            round_ += 1
        name = plan.key[4:].rsplit("/", 1)[-1] if plan.key.startswith("dir:") else None
        return self._synthesised(plan.key, plan.title, plan.signal, items, here, name)

    def _at_once(self, jobs: list[Callable[["UpperBuilder"], T]]) -> list[T]:
        """Each job done by a builder of its own, several at once (up to the run's cap), their
        nodes and counts then taken in the jobs' order: what one builder doing them in turn
        would have made. The jobs never read each other's results (a node's background is its
        path, never a sibling's synthesis), so the order changes nothing but the wall time."""
        limit = self.slots.limit if self.slots is not None else 1
        if len(jobs) < 2 or limit < 2:
            return [job(self) for job in jobs]
        subs = [UpperBuilder(self.cfg, self.cs, self.corpus_title, calls_dir=self.calls_dir, writer=self.writer,
                             previous=self.previous, slots=self.slots) for _ in jobs]
        done: dict[int, T] = {}

        def work(i: int) -> None:
            done[i] = jobs[i](subs[i])

        run_all(list(range(len(jobs))), work, limit)
        for sub in subs:
            self.nodes.extend(sub.nodes)
            self._add(sub.stats)
        return [done[i] for i in range(len(jobs))]

    def _children(self, plan: PlanNode, documents: dict[str, Item], here: list[str]) -> list[Item]:
        """The plan node's children as items: its documents, and its sub-plans built (several
        at once)."""
        subplans = [c for c in plan.children if isinstance(c, PlanNode)]
        built = iter(self._at_once([lambda b, c=c: b._node(c, documents, here) for c in subplans]))
        return [next(built) if isinstance(c, PlanNode) else documents[c] for c in plan.children]

    def _grouped(self, plan: PlanNode, items: list[Item], path: list[str], round_: int) -> list[Item]:
        """Each run of consecutive loose documents (or groups of them) long enough to split
        is split into contiguous groups (the runs at once); folders and sections stay as the
        authors made them."""
        agg = self.cfg.aggregation
        parts: list[list[Item]] = [[]]  # loose runs, between the authors' folders and sections
        for item in items:
            if isinstance(item, UpperNode) and item.signal != "llm":
                parts += [[item], []]
            else:
                parts[-1].append(item)
        runs = [p for p in parts if p and not (isinstance(p[0], UpperNode) and p[0].signal != "llm")
                and len(p) >= 2 * agg.min_group_size]
        split = iter(self._at_once([lambda b, r=r, n=n: b._split_run(plan, r, path, f"{plan.key}#r{round_}.{n}")
                                    for n, r in enumerate(runs)]))
        return [item for p in parts for item in (next(split) if any(p is r for r in runs) else p)]

    def _split_run(self, plan: PlanNode, run: list[Item], path: list[str], key: str) -> list[Item]:
        groups, stats = group_items(self.cfg, self.cs, key, [i.summary for i in run],
                                    background=self._background(path), calls_dir=self.calls_dir,
                                    writer=self.writer, ids=[i.id for i in run], previous=self.previous,
                                    shaped_by=self.shaped_by, slots=self.slots)
        self._add(stats)
        self._add({"signals.llm_groups": sum(1 for m in groups if len(m) > 1 and len(groups) > 1)})
        if len(groups) == 1:
            return list(run)
        made = iter(self._at_once([  # the groups' syntheses at once
            lambda b, g=g, kids=[run[i] for i in members]: b._synthesised(
                f"{key}.g{g}", f"{kids[0].title} \u2026 {kids[-1].title}", "llm", kids, path, None)
            for g, members in enumerate(groups) if len(members) > 1]))
        return [next(made) if len(members) > 1 else run[members[0]] for members in groups]

    def _synthesised(self, key: str, title: str, signal: str, kids: list[Item], path: list[str],
                     name: str | None) -> UpperNode:
        # kept under the plan key and what it synthesises: the same children (ids and
        # summaries) give the same node, in this run after a resume or in a later update
        memo = f"{key}#{_digest([self.shaped_by, title, [(k.id, k.summary) for k in kids]])}"
        done = self.cs.get_value("upper", memo)
        if done is None and self.previous is not None:
            done = self.previous.get_value("upper", memo)
            if done is not None:  # taken from the tree being updated; its calls were that run's
                done = {**done, "stats": {}, "reused": True}
                self.cs.put_value("upper", memo, done)
        if done is not None and done.get("reused"):
            self._add({"update.folders.reused": 1})
        if done is None:
            if self.previous is not None:
                self._add({"update.folders.redone": 1})
            made = synthesize(self.cfg, kids, node="synthesize_folder", background=self._background(path),
                              full_budget=0, memo=self.cs, calls_dir=self.calls_dir, writer=self.writer,
                              slots=self.slots)
            summary, kept = made.summary, made.summary_kept
            if key == "" and not kept:  # the corpus's overview: drawn from all of its parts
                summary = document_overview([k.summary for k in kids],
                                            max_chars=self.cfg.output.summary_max_chars,
                                            policy=self.cfg.grounding) or summary
            done = {"text": made.text, "summary": summary, "summary_kept": kept,
                    "slug_hint": made.slug_hint, "stats": made.stats}
            self.cs.put_value("upper", memo, done)
        self._add(done["stats"])
        self._add({f"blocks.{'root' if key == '' else 'folder'}": 1})
        node = UpperNode(id=folder_id(key), title=title, level=1 + max(k.level for k in kids),
                         summary=done["summary"], summary_tokens=count_tokens(done["summary"]),
                         rewritten=done["text"], rewritten_tokens=count_tokens(done["text"]),
                         key=key, signal=signal, children=[k.id for k in kids],
                         summary_kept=done["summary_kept"], slug_hint=done["slug_hint"], name=name)
        self.nodes.append(node)
        return node

    def _background(self, path: list[str]) -> str:
        """Where the node sits: the collection and the sections above it (a few words)."""
        line = f"These are documents of the collection \u201c{self.corpus_title}\u201d"
        if path:
            line += ", in the section " + " > ".join(path[-4:])
        return line + "."

    def _add(self, stats: dict[str, int]) -> None:
        self.stats = add_counts(self.stats, stats)
