"""synthesize_block: one summary block per group, one LLM call per step.

One group per step keeps "a crash costs at most one LLM call" true during
aggregation. A block of level `synthesize_full_text_levels` or below is synthesised
from its children's full rewritten texts (whole items, while they fit half the model's
window; the rest by their summaries); higher blocks from their children's summaries,
which already condense everything below them and keep prompts small.

The block itself is `write_block`, and its place in the levels' bookkeeping `placed`:
under `background.context: source` a sweep's groups are written by parallel tasks with
the same two functions (`nodes/synthesize_groups.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph.runtime import Runtime

from chunker.aggregation.synthesis import synthesize
from chunker.background.policy import block_background
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.nodes.common import run_store
from chunker.state.records import NodeRecord
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore, node_id
from chunker.structured.extract import run_records
from chunker.structured.guard import findings_in


def synthesize_block(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    slot = state["agg_level"] + 1
    group, rest = state["groups_todo"][0], state["groups_todo"][1:]
    (level, index), = block_places(state, [group])
    background = block_background(rs, cfg, level - 1, list(state.get("latest") or []), span_of(rs, group))
    record, stats = write_block(cfg, rs, level, index, group, background, runtime.stream_writer)
    return {"groups_todo": rest, **placed(state, slot, [record]), "stats": stats}


def span_of(rs: RunStore, ids: list[str]) -> tuple[int, int]:
    """The text that consecutive nodes `ids` cover."""
    return rs.get_node(ids[0]).span[0], rs.get_node(ids[-1]).span[1]


def next_index(state: ChunkerState, level: int) -> int:
    """The number the next block of `level` gets."""
    counts = state["block_counts"]
    return counts[level] if level < len(counts) else 0


def block_level(group: list[str]) -> int:
    """A block's level: one above its highest child (ids say their level: `node_id`). Under
    the section tree a pending level may hold lower nodes (a section's own leaves beside its
    subsections' blocks), so this is not always the swept level + 1."""
    return 1 + max(int(nid[1:nid.index("-")]) for nid in group)


def block_places(state: ChunkerState, groups: list[list[str]]) -> list[tuple[int, int]]:
    """(level, index) of the blocks over `groups`, numbered on from each level's count."""
    taken: dict[int, int] = {}
    places = []
    for group in groups:
        level = block_level(group)
        index = next_index(state, level) + taken.get(level, 0)
        taken[level] = taken.get(level, 0) + 1
        places.append((level, index))
    return places


def write_block(cfg: ChunkerSettings, rs: RunStore, level: int, index: int, group: list[str],
                background: str, writer: Callable[[dict], None] | None) -> tuple[NodeRecord, dict[str, int]]:
    """Synthesise the block `node_id(level, index)` over the records `group`, given
    `background`, and store it; returns its record and the counts."""
    children = [rs.get_node(cid) for cid in group]
    full_budget = cfg.llm.model_window // 2 if level <= cfg.aggregation.synthesize_full_text_levels else 0
    span = (children[0].span[0], children[-1].span[1])
    checks, disputed = findings_in(run_records(rs), span)  # the data checks its tables failed
    made = synthesize(cfg, children, node="synthesize_block", background=background,
                      full_budget=full_budget, memo=rs, calls_dir=rs.calls_dir, slots=rs.slots,
                      writer=writer, findings=[c.message for c in checks], disputed=frozenset(disputed))
    stats, block_text, summary = made.stats, made.text, made.summary
    record = NodeRecord(
        id=node_id(level, index), level=level, index=index,
        span=(children[0].span[0], children[-1].span[1]), children=[c.id for c in children],
        rewritten=block_text, rewritten_tokens=count_tokens(block_text), tokens=count_tokens(block_text),
        summary=summary, summary_tokens=count_tokens(summary), summary_kept=made.summary_kept,
        call_id=made.log_id, slug_hint=made.slug_hint,
    )
    rs.put_node(record)
    stats[f"blocks.L{level}"] = 1
    return record, stats


def placed(state: ChunkerState, slot: int, blocks: list[NodeRecord]) -> dict:
    """The levels' bookkeeping once `blocks` (new blocks of a sweep of level `slot` - 1, in
    order) are written: each is pending on `slot` and counted on its own level, the last of
    a level is its latest."""
    counts = list(state["block_counts"])
    pending = [list(items) for items in state["pending"]]
    latest = list(state.get("latest") or [])
    top = max([slot] + [record.level for record in blocks])
    while len(counts) <= top:
        counts.append(0)
    while len(pending) <= top:
        pending.append([])
    while len(latest) <= top:
        latest.append(None)
    for record in blocks:
        counts[record.level] += 1
        pending[slot].append([record.id, record.summary_tokens])
        latest[record.level] = record.id
    return {"block_counts": counts, "pending": pending, "latest": latest}
