"""The pipelines: how a run composes `cut`, `write` and `aggregate`, one per kind of run,
chosen once by `routes.pipeline`.

    fresh:   cut -> [a leaf] write | [copied leaves] aggregate;
             write -> [the levels have work] aggregate | [more text] cut | end
             aggregate -> [more text] cut | end
    update:  (a patch: the old tree's levels are patched, not swept)
             cut -> [a leaf] write | [more text] cut | patch_tree; write -> cut | patch_tree
    source:  (`background.context: source`: the cursor only cuts, then every leaf is written at
             once, then the sweeps are replayed in leaf order)
             cut -> [a leaf] record_cut | [more text] cut | write_leaf x every leaf not written
                 | leaves_written;  record_cut -> the same but record_cut
             leaves_written -> [a patch] patch_tree | [sweeps] replay_leaf | aggregate
             replay_leaf -> aggregate -> [leaves left] replay_leaf | end
    patch_tree -> [blocks to synthesise] synthesize_patched (one per step) | end

An update that rebuilds the levels takes `fresh` (its `cut` copies the unchanged passages).

Each pipeline also reads one region of a document read in regions (`graph/regions.py`):
from the region's start to its end (`text_end`), its sweeps inside it, and no root and no
patch, which are made once the regions are joined.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import START
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy, Send

from chunker.chunking.strategy import tree_strategy
from chunker.config.settings import ChunkerSettings
from chunker.graph.aggregate import build_aggregate, due
from chunker.graph.cut import build_cut
from chunker.graph.wiring import Wiring
from chunker.graph.write import build_write
from chunker.nodes.cut import record_cut
from chunker.nodes.patch import patch_tree, synthesize_patched
from chunker.nodes.replay import replay_leaf
from chunker.nodes.reuse import index_of
from chunker.nodes.write_leaf import leaf_jobs, leaves_written, write_leaf
from chunker.state.schema import ChunkerState, in_region, read


def _decided(state: ChunkerState) -> bool:
    """`cut` ended with a leaf's end decided, not (after copied leaves) with none."""
    return state.get("chunk_end") is not None



# ---- fresh
def fresh_after_cut(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                    ) -> Literal["write", "aggregate"]:
    return "write" if _decided(state) else "aggregate"


def fresh_after_write(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                      ) -> Literal["aggregate", "cut", "__end__"]:
    """A leaf that leaves the levels nothing to do (`aggregate.due`) goes on to the next."""
    return "aggregate" if due(state, runtime) else fresh_after_aggregate(state, runtime)


def fresh_after_aggregate(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                          ) -> Literal["cut", "__end__"]:
    return "__end__" if read(state) else "cut"


def build_fresh(retry: RetryPolicy):
    """A run that reads, writes and sweeps leaf by leaf: 3 nodes."""
    w = Wiring(retry)
    w.plain(cut=build_cut(retry), write=build_write(retry), aggregate=build_aggregate(retry))
    w.edge(START, "cut").route("cut", fresh_after_cut)
    w.route("write", fresh_after_write).route("aggregate", fresh_after_aggregate)
    return w.compile("fresh")


# ---- update (a patch)
def update_after_write(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                       ) -> Literal["cut", "patch_tree", "__end__"]:
    """Read on; once the text is read, the old tree's levels are patched (a region's leaves
    are patched once the regions are joined: `graph/regions.py`)."""
    if not read(state):
        return "cut"
    return "__end__" if in_region(state) else "patch_tree"


def update_after_cut(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                     ) -> Literal["write", "cut", "patch_tree", "__end__"]:
    return "write" if _decided(state) else update_after_write(state, runtime)


def after_patch(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                ) -> Literal["synthesize_patched", "__end__"]:
    return "synthesize_patched" if state.get("patch_todo") else "__end__"


def add_patch(w: Wiring) -> None:
    """The patch of an update's levels: patch_tree, then synthesize_patched per block."""
    w.plain(patch_tree=patch_tree).llm(synthesize_patched=synthesize_patched)
    w.route("patch_tree", after_patch).route("synthesize_patched", after_patch)


def build_update(retry: RetryPolicy):
    """An update that patches the old tree: 4 nodes."""
    w = Wiring(retry)
    w.plain(cut=build_cut(retry), write=build_write(retry))
    add_patch(w)
    w.edge(START, "cut").route("cut", update_after_cut).route("write", update_after_write)
    return w.compile("update")


# ---- source
def read_on_or_write(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                     ) -> Literal["cut", "write_leaf", "leaves_written"] | list[Send]:
    """After each cut: read on; at the end, write every leaf not written yet at once (one
    `write_leaf` task each), or with none to write go straight on."""
    if not read(state):
        return "cut"
    return leaf_jobs(state, runtime) or "leaves_written"


def source_after_cut(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                     ) -> Literal["record_cut", "cut", "write_leaf", "leaves_written"] | list[Send]:
    return "record_cut" if _decided(state) else read_on_or_write(state, runtime)


def after_leaves_written(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                         ) -> Literal["patch_tree", "replay_leaf", "aggregate", "__end__"]:
    """The levels, as after `written`'s last leaf: an update's patch (a region's, once the
    regions are joined), the sweeps (replayed leaf by leaf), or the flat strategy's one block."""
    index = index_of(state, runtime)
    if index is not None and index.patch:
        return "__end__" if in_region(state) else "patch_tree"
    return "replay_leaf" if tree_strategy(state).sweeps else "aggregate"


def source_after_aggregate(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                           ) -> Literal["replay_leaf", "__end__"]:
    return "__end__" if read(state) else "replay_leaf"


def build_source(retry: RetryPolicy):
    """`background.context: source`: 8 nodes."""
    w = Wiring(retry)
    w.plain(cut=build_cut(retry), record_cut=record_cut, leaves_written=leaves_written,
            replay_leaf=replay_leaf, aggregate=build_aggregate(retry, at_once=True))
    w.llm(write_leaf=write_leaf)
    add_patch(w)
    w.edge(START, "cut").route("cut", source_after_cut).route("record_cut", read_on_or_write)
    w.edge("write_leaf", "leaves_written").route("leaves_written", after_leaves_written)
    w.edge("replay_leaf", "aggregate").route("aggregate", source_after_aggregate)
    return w.compile("source")
