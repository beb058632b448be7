"""write_leaf and leaves_written: under `background.context: source`, every cut leaf is
rewritten and summarised at once, once the cursor reached the end.

The route after the last cut sends one `write_leaf` task per leaf still to write (`leaf_jobs`:
an update's copied leaves are written already); LangGraph runs them in one step, at most
the invocation's `max_concurrency` at a time, and each LLM call also holds one of the run's
`CallSlots`. A task is a pure function of its leaf's cut and the source (its backgrounds
are the predecessor's original text, `chunker/background/policy.py`), so the leaves come out
the same whatever order the tasks finish in. A run killed during the step resumes it:
LangGraph keeps the writes of the tasks that finished, and a task that had rewritten its
leaf before it was killed finds that rewrite in the store (`REWRITTEN`), so a resume repeats
at most the calls that were in flight.

leaves_written joins the tasks and hands the leaves to the levels: an update's patch, the
flat strategy's one block, or the sweeps replayed in leaf order (`nodes/replay.py`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Send

from chunker.background.policy import leaf_background
from chunker.chunking.strategy import tree_strategy
from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import run_store, run_store_for
from chunker.nodes.reuse import index_of
from chunker.nodes.rewrite import rewrite_leaf
from chunker.nodes.summarize import summarize_leaf
from chunker.state.records import LeafCut
from chunker.state.schema import ChunkerState, LeafJob, add_counts
from chunker.state.store import node_id

REWRITTEN = "leaf_rewrites"
"""Per leaf whose rewrite is stored: that call's counts, so that a task re-run after a crash
in its summary call goes straight to the summary and counts the rewrite as it was."""


def leaf_jobs(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> list[Send]:
    """One `write_leaf` task per cut leaf that is not written yet, in leaf order."""
    rs = run_store(state, runtime)
    return [Send("write_leaf", LeafJob(run_key=state["run_key"], doc_id=state["doc_id"], leaf=i,
                                       region=state.get("region")))
            for i in range(state["leaf_count"]) if not _cut(rs, i).reused]


def write_leaf(job: LeafJob, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store_for(runtime, job["run_key"], job.get("region"))
    index, doc_id = job["leaf"], job["doc_id"]
    key = LeafCut.key(index)
    done = rs.get_local(REWRITTEN, key)
    if done is None:
        background = leaf_background(rs, cfg, index, [], "rewrite", doc_id)
        stats = rewrite_leaf(cfg, rs, doc_id, _cut(rs, index), background, runtime.stream_writer)
        rs.put_local(REWRITTEN, key, {"stats": stats})
    else:
        stats = done["stats"]
    _, summarized = summarize_leaf(cfg, rs, index,
                                   lambda: leaf_background(rs, cfg, index, [], "summarize", doc_id),
                                   runtime.stream_writer)
    return {"stats": add_counts(stats, summarized)}


def leaves_written(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """Every leaf is written: a sweeping strategy's levels start empty and are fed the leaves
    one by one (`replay_leaf`); a flat tree's one block takes them all; a patch reads the
    records themselves."""
    index = index_of(state, runtime)
    if index is not None and index.patch:
        return {}
    if tree_strategy(state).sweeps:
        return {"pending": [[]], "replayed": 0}
    rs = run_store(state, runtime)
    records = [rs.get_node(node_id(0, i)) for i in range(state["leaf_count"])]
    return {"pending": [[[r.id, r.summary_tokens] for r in records]]}


def _cut(rs, index: int) -> LeafCut:
    cut = LeafCut.load(rs, index)
    if cut is None:
        raise LookupError(f"leaf {index} of run {rs.run_key} was never cut")
    return cut
