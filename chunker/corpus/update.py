"""A corpus's update: which files were added, deleted, moved or edited, and the new run.

`plan_corpus` walks the corpus again (its recorded paths, or `--source`, with the run's own
`--include`/`--exclude`) and matches what it finds with the tree's documents:
- the same path and bytes: **unchanged**, its old record is copied (no call);
- the same bytes under a path the tree no longer has: **moved** (renamed), copied too, under
  its old key, so its nodes keep their ids (its files follow it to its new folder);
- the same path, other bytes: **edited**, its old tree is brought up to date
  (`chunker/update/`: only the changed passages and the blocks above them are redone);
- a path the tree does not have: **added**, run as in a fresh run;
- a path of the tree that is gone: **deleted**, its nodes and their files go.
A changed setting or prompt that shapes what the documents hold makes every document
`edited` (its update then redoes what the setting shapes).

The new run is a *generation*: its record lives under run.json's `update.corpus` while it
runs, under a new corpus key, so the finished tree stays whole and readable until the new
one replaces it; syntheses of folders whose children are unchanged are taken from the old
generation (`UpperBuilder.previous`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from chunker.config.settings import ChunkerSettings
from chunker.corpus.discover import discover
from chunker.corpus.document_run import document_key, unit_of
from chunker.corpus.model import Discovery
from chunker.corpus.signals import find_toc, toc_sha256
from chunker.corpus.store import CorpusStore
from chunker.output.hierarchy import Hierarchy, UpdateRecord
from chunker.runs.record import CorpusRun, Unit, now
from chunker.runs.rundir import RunDir
from chunker.runs.runner import persistent_graph
from chunker.update.cleanup import drop_namespaces
from chunker.update.index import NAMESPACE
from chunker.update.signature import stale as stale_shapes


@dataclass
class CorpusPlan:
    discovery: Discovery
    units: list[Unit]
    paths: list[Path] = field(default_factory=list)
    """The corpus's paths as walked (moved with `--source`)."""
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    stale: dict[str, list[str]] = field(default_factory=dict)
    toc: str | None = None
    """Why the table of contents changed (added, removed, edited), when it did: the upper
    levels are planned again, the documents are not touched."""

    @property
    def changed(self) -> bool:
        return bool(self.added or self.deleted or self.moved or self.edited or self.stale or self.toc)

    def as_dict(self) -> dict:
        return {"added": self.added, "deleted": self.deleted,
                "moved": [{"from": a, "to": b} for a, b in self.moved], "edited": self.edited,
                "unchanged": len(self.unchanged), "stale": self.stale, "toc": self.toc}


def plan_corpus(record: CorpusRun, tree: Hierarchy, ctx: ChunkerSettings, *, out_dir: Path,
                moved_to: Path | None = None) -> CorpusPlan:
    """What changed since the tree was built, and the units of the run that updates it."""
    paths = [Path(p) for p in record.paths]
    if moved_to is not None:  # the corpus's root moved: its paths move with it
        old_root = Path(record.root)
        paths = [moved_to / Path(p).relative_to(old_root) if Path(p).is_relative_to(old_root) else moved_to
                 for p in paths]
    discovery = discover(paths, out_dir=out_dir, include=record.include, exclude=record.exclude,
                         encoding=ctx.input.encoding, max_bytes=ctx.input.max_bytes)
    stale = {k: v for k, v in stale_shapes(tree.meta.config, tree.meta.signature, ctx.public_dict()).items() if v}
    old = {d.rel: d for d in record.documents}
    done = {d.source: d.sha256 for d in tree.meta.corpus.documents}
    old = {rel: d for rel, d in old.items() if rel in done}  # files the tree holds (not skipped)
    found = {f.rel: f for f in discovery.files}
    plan = CorpusPlan(discovery=discovery, units=[], stale=stale, paths=paths)
    gone = [rel for rel in old if rel not in found]
    by_hash: dict[str, list[str]] = {}
    for rel in gone:
        by_hash.setdefault(old[rel].sha256, []).append(rel)
    used = {d.key for d in old.values()}
    toc = find_toc(discovery.root, [f.rel for f in discovery.files])
    for f in discovery.files:
        if toc is not None and f.rel == toc.source:  # the table of contents is no document
            continue
        before = old.get(f.rel)
        if before is not None:
            same = before.sha256 == f.sha256
            (plan.unchanged if same and not stale else plan.edited).append(f.rel)
            plan.units.append(unit_of(f, before.key, "copy" if same and not stale else "update"))
        elif by_hash.get(f.sha256):
            was = by_hash[f.sha256].pop(0)
            plan.moved.append((was, f.rel))
            plan.units.append(unit_of(f, old[was].key, "update" if stale else "copy"))
        else:
            plan.added.append(f.rel)
            plan.units.append(unit_of(f, document_key(f.rel, used)))
    moved_from = {a for a, _ in plan.moved}
    plan.deleted = [rel for rel in gone if rel not in moved_from]
    plan.toc = _toc_change(record, discovery)
    return plan


def _toc_change(record: CorpusRun, discovery: Discovery) -> str | None:
    toc = find_toc(discovery.root, [f.rel for f in discovery.files])
    source = toc.source if toc else None
    if source != record.toc:
        return f"table of contents: {record.toc or 'none'} -> {source or 'none'}"
    if source and record.toc_sha256 and toc_sha256(discovery.root, source) != record.toc_sha256:
        return f"table of contents {source} edited"
    return None


def corpus_update_records(generation, units: list[Unit], records: dict[str, dict], stats: dict,
                          source_sha256: str) -> list[UpdateRecord]:
    """hierarchy.json's updates: the old ones, and this one's counts, by kind of node."""
    counts = {status: {"documents": 0} for status in ("reused", "redone", "new", "removed")}
    for u in units:
        if u.rel in records:
            counts["reused" if u.reuse == "copy" else "redone" if u.reuse == "update" else "new"]["documents"] += 1
            if u.reuse is None:  # a new file: all its nodes are new
                tree = records[u.rel]["tree"]
                leaves = sum(1 for n in tree["nodes"] if not n["children"])
                counts["new"]["leaves"] = counts["new"].get("leaves", 0) + leaves
                counts["new"]["blocks"] = counts["new"].get("blocks", 0) + len(tree["nodes"]) - leaves
    counts["removed"]["documents"] = generation.record.deleted
    for kind, n in generation.record.deleted_nodes.items():
        counts["removed"][kind] = counts["removed"].get(kind, 0) + n
    for status in counts:
        for kind in ("leaves", "blocks", "folders"):
            n = stats.get(f"update.{kind}.{status}", 0)
            if n:
                counts[status][kind] = counts[status].get(kind, 0) + n
    clean = {status: {k: v for k, v in c.items() if v} for status, c in counts.items()}
    this = UpdateRecord(at=now(), source_sha256=source_sha256, reused=clean["reused"], redone=clean["redone"],
                        added=clean["new"], removed=clean["removed"], calls=stats.get("calls.total", 0),
                        stale=generation.record.stale)
    return [*generation.updates, this]


def deleted_nodes(tree: Hierarchy, deleted: list[str]) -> dict[str, int]:
    """The leaves and blocks of the deleted files, which the update removes."""
    gone = set(deleted)
    leaves = sum(1 for n in tree.nodes if n.source in gone and not n.children)
    blocks = sum(1 for n in tree.nodes if n.source in gone and n.children)
    return {"leaves": leaves, "blocks": blocks}


def drop_generation(run: RunDir, ctx: ChunkerSettings, generation) -> None:
    """After an update: the old generation's records, the runs of the files it no longer
    holds as they were (edited or deleted: a copied file's run is still its text's), and
    the reuse indexes."""
    with persistent_graph(run, ctx) as graph:
        store = graph.store
        new, old = CorpusStore(store, generation.record.corpus_key), CorpusStore(store, generation.previous)
        kept = {d["run_key"] for d in (new.document(u.key) for u in generation.record.documents) if d}
        for item in store.search(old.ns("documents"), limit=1_000_000):
            if item.value.get("run_key") not in kept:
                drop_namespaces(store, ("chunker", item.value["run_key"]))
                drop_namespaces(store, ("chunker", f"{item.value['run_key']}/final"))
        drop_namespaces(store, ("corpus", generation.previous))
        for u in generation.record.documents:
            drop_namespaces(store, (NAMESPACE, f"{generation.record.corpus_key}:{u.key}"))
