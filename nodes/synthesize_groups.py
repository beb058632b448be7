"""synthesize_group and place_blocks: under `background.context: source`, the groups of one
sweep are synthesised at once.

The grouping (group_summaries, validate_groups, fallback_grouping, group_all) stays as it
is, one call at a time. Its groups then go out as one `synthesize_group` task each
(`group_jobs`), each with the id its place in the sweep gives it (never its completion
order), the level summaries as they were when the sweep began and, in place of its
preceding sibling's synthesis, which is not written yet, the summaries of that sibling's
children (`chunker/background/policy.py`, `group_background`). place_blocks joins them
and does the levels' bookkeeping that synthesize_block does one group at a time.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Send

from chunker.background.policy import group_background
from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import run_store, run_store_for
from chunker.nodes.synthesize import block_places, placed, span_of, write_block
from chunker.state.schema import ChunkerState, GroupJob
from chunker.state.store import node_id


def group_jobs(state: ChunkerState) -> list[Send]:
    """One `synthesize_group` task per group of the sweep, in order."""
    groups = state["groups_todo"]
    latest = list(state.get("latest") or [])
    return [Send("synthesize_group", GroupJob(run_key=state["run_key"], region=state.get("region"),
                                              joined=bool(state.get("joined")), level=level, index=index,
                                              group=group, sibling=groups[k - 1] if k else None,
                                              latest=latest))
            for k, (group, (level, index)) in enumerate(zip(groups, block_places(state, groups)))]


def synthesize_group(job: GroupJob, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store_for(runtime, job["run_key"], job.get("region"), bool(job.get("joined")))
    level = job["level"]
    background = group_background(rs, cfg, level - 1, job["latest"], job["sibling"], span_of(rs, job["group"]))
    _, stats = write_block(cfg, rs, level, job["index"], job["group"], background, runtime.stream_writer)
    return {"stats": stats}


def place_blocks(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """The sweep's blocks, written by their tasks, placed in order."""
    rs = run_store(state, runtime)
    places = block_places(state, state["groups_todo"])
    blocks = [rs.get_node(node_id(level, index)) for level, index in places]
    return {"groups_todo": [], **placed(state, state["agg_level"] + 1, blocks)}
