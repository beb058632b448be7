"""One document's update, planned: what changed, what is stale, what it will cost.

`plan_document` compares a document's old tree (its nodes, as hierarchy.json or a corpus's
record holds them) with its new text and the settings the update runs with, and says how the
update goes (`mode`), which old leaves and blocks it redoes, and the LLM calls it expects.
`--dry-run` prints exactly this; the update itself runs the document's graph with the plan's
reuse index (`index.build_index`), so what the dry run lists is what the update does, with
one exception it says: where an edited region's new passages end is chosen as the update
reads it (it rejoins the old boundaries as soon as it can).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.output.hierarchy import TreeNode
from chunker.update.diff import changed_chars
from chunker.update.index import ReuseIndex, build_index, leaf_order
from chunker.update.signature import stale as stale_shapes

Mode = Literal["unchanged", "patch", "rebuild", "fresh"]


@dataclass
class DocumentPlan:
    mode: Mode
    """unchanged: nothing to do; patch: the old shape kept, the changed passages and the
    blocks above them redone; rebuild: leaves kept, blocks grouped again (their settings
    changed); fresh: what shapes boundaries changed, so every output is redone."""
    stale: dict[str, list[str]]
    leaves: int
    leaves_stale: list[str] = field(default_factory=list)
    blocks: int = 0
    blocks_stale: list[str] = field(default_factory=list)
    chars_removed: int = 0
    chars_added: int = 0
    expected_calls: int = 0
    index: dict | None = None

    def as_dict(self) -> dict:
        return {"mode": self.mode, "stale": self.stale, "leaves": self.leaves,
                "leaves_stale": self.leaves_stale, "blocks": self.blocks,
                "blocks_stale": self.blocks_stale, "chars_removed": self.chars_removed,
                "chars_added": self.chars_added, "expected_calls": self.expected_calls}


def plan_document(nodes: list[TreeNode], root: str, old_config: dict, old_signature: dict | None,
                  new_text: str, new_sha256: str, ctx: ChunkerSettings, *, flat_tree: bool,
                  updates: list[dict] | None = None) -> DocumentPlan:
    """The plan for one document whose old tree is `nodes` (local ids) under `root`."""
    stale = {k: v for k, v in stale_shapes(old_config, old_signature, ctx.public_dict()).items() if v}
    leaves = [n for n in nodes if not n.children]
    blocks = [n for n in nodes if n.children]
    by_id = {n.id: n for n in nodes}
    old_text = "".join(by_id[i].original or "" for i in leaf_order(root, by_id))
    if "boundaries" in stale:
        mode: Mode = "fresh"
    elif old_text == new_text and not stale:
        return DocumentPlan(mode="unchanged", stale={}, leaves=len(leaves), blocks=len(blocks))
    else:
        mode = "rebuild" if "blocks" in stale else "patch"
    plan = DocumentPlan(mode=mode, stale=stale, leaves=len(leaves), blocks=len(blocks))
    # a fresh update is a rebuild that reuses no passage: its ids stay clear of the old ones
    index = build_index(nodes, root, new_text, mode="patch" if mode == "patch" else "rebuild",
                        leaf_text_stale="leaf_text" in stale or mode == "fresh",
                        may_split=not flat_tree, source_sha256=new_sha256, stale=stale, updates=updates)
    plan.index = index
    if mode == "fresh":
        for leaf in index["leaves"]:
            leaf["new"] = None
        plan.leaves_stale = [n.id for n in leaves]
        plan.blocks_stale = [n.id for n in blocks]
        plan.chars_removed, plan.chars_added = len(old_text), len(new_text)
        plan.expected_calls = text_calls(ctx, len(new_text), nodes)
        return plan
    ri = ReuseIndex(index)
    plan.chars_removed, plan.chars_added = changed_chars(ri.ranges, len(old_text), len(new_text))
    changed = {leaf["id"] for leaf in ri.leaves if leaf["new"] is None}
    plan.leaves_stale = [leaf["id"] for leaf in ri.leaves if leaf["id"] in changed or "leaf_text" in stale]
    stale_leaves = set(plan.leaves_stale)
    if mode == "rebuild":
        plan.blocks_stale = [b.id for b in blocks]
    else:
        above = set()
        for nid in stale_leaves:
            parent = ri.parent.get(nid)
            while parent is not None and parent not in above:
                above.add(parent)
                parent = ri.parent.get(parent)
        plan.blocks_stale = [b.id for b in blocks if b.id in above]
    plan.expected_calls = _update_calls(ctx, ri, new_text, stale_leaves, len(plan.blocks_stale), mode)
    return plan


def leaf_calls(ctx: ChunkerSettings) -> int:
    """Calls a new passage costs besides its boundary: its rewrite, and its summary unless
    the rewrite call answers it (combined) or the model is not asked."""
    llm = ctx.llm
    rewrite = 1 if llm.asks("rewrite") else 0
    summary = 1 if llm.asks("summary") and not (llm.combine_rewrite_and_summary and llm.asks("rewrite")) else 0
    return rewrite + summary


def _update_calls(ctx: ChunkerSettings, ri, new_text: str, stale_leaves: set[str], stale_blocks: int,
                  mode: Mode) -> int:
    """Expected calls: each passage written again, the boundaries chosen in changed regions
    (one per new passage but the last of each region, which rejoins an old boundary), and a
    synthesis per block redone (a rebuild also groups each level again)."""
    per_leaf = leaf_calls(ctx)
    old_tokens = [count_tokens(new_text[leaf["new"][0]:leaf["new"][1]]) for leaf in ri.leaves if leaf["new"]]
    mean = max(1.0, sum(old_tokens) / len(old_tokens)) if old_tokens else float(ctx.chunking.min_chunk_tokens)
    regions = _changed_regions(ri, len(new_text))
    boundary = 1 if ctx.llm.asks("boundary") else 0
    passages = boundaries = 0
    for start, end in regions:
        n = max(1, round(count_tokens(new_text[start:end]) / mean))
        passages += n
        boundaries += boundary * (n - 1)
    rewritten = passages + sum(1 for leaf in ri.leaves if leaf["id"] in stale_leaves and leaf["new"])
    synth = stale_blocks if ctx.llm.asks("synthesis") else 0
    group = 0
    if mode == "rebuild" and ctx.llm.asks("group"):
        group = math.ceil(stale_blocks / max(1, ctx.aggregation.max_group_size)) + 1
    return per_leaf * rewritten + boundaries + synth + group


def _changed_regions(ri, n: int) -> list[tuple[int, int]]:
    """The stretches of the new text no reusable old passage covers."""
    covered = sorted(tuple(leaf["new"]) for leaf in ri.leaves if leaf["new"])
    out, pos = [], 0
    for start, end in covered:
        if start > pos:
            out.append((pos, start))
        pos = max(pos, end)
    if pos < n:
        out.append((pos, n))
    return out


def text_calls(ctx: ChunkerSettings, chars: int, nodes: list[TreeNode]) -> int:
    """Expected calls of `chars` of new text read as a fresh run reads it, at the rates of the
    tree `nodes` (any tree: a document's, a corpus's): its characters per leaf, blocks per leaf,
    and share of boundaries the model chose; a call per passage written (two when the summary
    is asked apart), per boundary chosen, per block synthesised, per grouping."""
    leaves = [n for n in nodes if n.level == 0]
    if not leaves or chars <= 0:
        return 0
    per_leaf_chars = max(1.0, sum(len(n.original or "") for n in leaves) / len(leaves))
    blocks = sum(1 for n in nodes if n.children and n.kind != "folder")
    chosen = sum(1 for n in leaves if n.boundary in _CHOSEN) / len(leaves)
    n_leaves = math.ceil(chars / per_leaf_chars)
    n_blocks = math.ceil(n_leaves * blocks / len(leaves))
    boundary = chosen if ctx.llm.asks("boundary") else 0.0
    synth = n_blocks if ctx.llm.asks("synthesis") else 0
    group = math.ceil(n_blocks / 2) if ctx.llm.asks("group") else 0
    return math.ceil(n_leaves * (leaf_calls(ctx) + boundary)) + synth + group


_CHOSEN = frozenset({"match", "retry_match", "fallback"})
"""Boundary outcomes the model was asked for (the rest end at a section, the text's end, a
valve or an old boundary, without a choice)."""
