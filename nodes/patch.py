"""patch_tree and synthesize_patched: an update's levels above the leaves, in the old shape.

patch_tree (pure) puts the update's leaves in the old tree's place (`chunker/update/patch.py`)
and writes the final records: every leaf, and every block that is reused as it was, under
its final id, in a namespace of their own (`final_store`: the leaf phase's records keep
their counter ids, so a resume re-running this step reads them unchanged). The blocks
above a change are left to synthesize_patched, one per step (a crash costs at most one
call), children before parents, each grounded like every block.
"""

from __future__ import annotations

import dataclasses

from langgraph.runtime import Runtime

from chunker.aggregation.synthesis import synthesize
from chunker.background.policy import block_background
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.nodes.common import run_store
from chunker.nodes.reuse import index_of
from chunker.state.records import NodeRecord
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore, node_id
from chunker.update.patch import NewLeaf, patch

PLAN = ("patch", "plan")


def final_store(rs: RunStore) -> RunStore:
    """Where an update's final records live, under their final ids."""
    return dataclasses.replace(rs, run_key=f"{rs.run_key}/final")


def patch_tree(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    index = index_of(state, runtime)
    records = [rs.get_node(node_id(0, i)) for i in range(state["leaf_count"])]
    leaves = [NewLeaf(record=r.id, start=r.span[0], origin=r.origin, reused=r.reused) for r in records]
    patched = patch(index, leaves, cfg.aggregation.max_group_size)
    final = final_store(rs)
    by_record = {r.id: r for r in records}
    spans: dict[str, tuple[int, int]] = {}
    for nid in patched.post_order():
        node = patched.nodes[nid]
        if node.record is not None:
            r = by_record[node.record]
            final.put_node(r.model_copy(update={"id": nid, "index": 0}))
            spans[nid] = r.span
            continue
        spans[nid] = (spans[node.children[0]][0], spans[node.children[-1]][1])
        if node.status == "reused":
            old = index.blocks[node.old]
            final.put_node(NodeRecord(
                id=nid, level=node.level, index=0, span=spans[nid], children=list(node.children),
                rewritten=old["rewritten"], rewritten_tokens=count_tokens(old["rewritten"]),
                tokens=count_tokens(old["rewritten"]), summary=old["summary"],
                summary_tokens=count_tokens(old["summary"]), slug_hint=old["slug"], title=old["title"],
                origin=node.old, reused=True))
    plan = {nid: {"level": n.level, "children": n.children, "status": n.status, "old": n.old}
            for nid, n in patched.nodes.items()}
    rs.put_value(*PLAN, {"order": patched.post_order(), "root": patched.root, "nodes": plan})
    return {"patch_todo": patched.todo, "root_id": patched.root, "stats": patched.stats}


def synthesize_patched(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    final = final_store(rs)
    index = index_of(state, runtime)
    nid, rest = state["patch_todo"][0], state["patch_todo"][1:]
    node = rs.get_value(*PLAN)["nodes"][nid]
    level = node["level"]
    children = [final.get_node(c) for c in node["children"]]
    background = block_background(rs, cfg, level - 1, index.latest_ids(children[0].span[0]),
                                  (children[0].span[0], children[-1].span[1]))
    full_budget = cfg.llm.model_window // 2 if level <= cfg.aggregation.synthesize_full_text_levels else 0
    made = synthesize(cfg, children, node="synthesize_block", background=background,
                      full_budget=full_budget, memo=rs, calls_dir=rs.calls_dir, writer=runtime.stream_writer,
                      slots=rs.slots)
    old = index.blocks.get(node["old"] or "")
    final.put_node(NodeRecord(
        id=nid, level=level, index=0, span=(children[0].span[0], children[-1].span[1]),
        children=[c.id for c in children], rewritten=made.text, rewritten_tokens=count_tokens(made.text),
        tokens=count_tokens(made.text), summary=made.summary, summary_tokens=count_tokens(made.summary),
        summary_kept=made.summary_kept, call_id=made.log_id, slug_hint=made.slug_hint,
        origin=old["id"] if old else None))
    return {"patch_todo": rest, "stats": {**made.stats, f"blocks.L{level}": 1}}


def updated_records(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                    ) -> tuple[list[NodeRecord], str, dict[str, int]]:
    """An update's final records (leaves in order, then blocks by level), the root's id,
    and the update's counts of reused, redone, new and removed nodes.

    A patch's records are final already. A rebuild's blocks are new (their ids are the
    sweep's counters, at levels above the leaves), and each leaf takes its old id when it
    is an old passage, or a fresh one past the old tree's: never an id an old node had."""
    rs = run_store(state, runtime)
    index = index_of(state, runtime)
    if index.patch:
        final = final_store(rs)
        plan = rs.get_value(*PLAN)
        root = plan["root"]
        records = [final.get_node(nid) for nid in plan["order"]]
        counts = {k: v for k, v in (state.get("stats") or {}).items() if k.startswith("update.")}
    else:
        records = [rs.get_node(node_id(0, i)) for i in range(state["leaf_count"])]
        for level, count in enumerate(state["block_counts"]):
            if level > 0:
                records.extend(rs.get_node(node_id(level, i)) for i in range(count))
        top = int(index.raw["top_index"].get("0", -1))
        ids: dict[str, str] = {}
        for r in records:
            if r.is_leaf:
                if r.origin is None:
                    top += 1
                ids[r.id] = r.origin or f"L0-{top:05d}"
        records = [r.model_copy(update={"id": ids.get(r.id, r.id), "children": [ids.get(c, c) for c in r.children]})
                   for r in records]
        root = ids.get(state["root_id"], state["root_id"])
        kept = {r.id for r in records}
        leaves = [r for r in records if r.is_leaf]
        counts = {"update.leaves.reused": sum(r.reused for r in leaves),
                  "update.leaves.redone": sum(bool(r.origin) and not r.reused for r in leaves),
                  "update.leaves.new": sum(r.origin is None for r in leaves),
                  "update.leaves.removed": sum(leaf["id"] not in kept for leaf in index.leaves),
                  "update.blocks.new": len(records) - len(leaves),
                  "update.blocks.removed": len(index.blocks)}
    records.sort(key=lambda r: (r.level, r.span[0]))
    return records, root, counts
