"""A document read in regions: each region cut, written and grouped by its own cursor, all at
once, then the levels above them.

    regions: [one Send per region] region x every region -> join_regions
             join_regions -> [a patch] patch_tree | aggregate;  aggregate -> number_nodes -> end
             patch_tree -> [blocks to synthesise] synthesize_patched (one per step) | end
    region:  [the run's pipeline] fresh | update | source -> hand_up -> end

A `region` reads its region with the pipeline the whole document would take (`routes.reading`:
`fresh`, `update` or `source`), from its start to its end, and hands up what it left
ungrouped (`nodes/regions.py`). LangGraph runs the `Send`s of one step as parallel tasks, at
most the invocation's `max_concurrency` at a time (each call also holds one of the run's
`CallSlots`); each region's subgraph checkpoints in a namespace of its own, so a killed run
resumes every region from its own last step, and a region that had finished is not run
again (its task's writes were saved). Nothing a region does depends on another region or on
timing: the tree is the same at every concurrency.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from langgraph.graph import END, START
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy, Send

from chunker.config.settings import ChunkerSettings
from chunker.graph import routes
from chunker.graph.aggregate import build_aggregate
from chunker.graph.pipelines import add_patch, build_fresh, build_source, build_update
from chunker.graph.wiring import Wiring
from chunker.nodes.regions import hand_up, join_regions, number_nodes, region_jobs
from chunker.nodes.reuse import index_of
from chunker.state.schema import ChunkerState, StepState, add_counts


class RegionOutput(TypedDict, total=False):
    """What a region's task writes to the regions graph: its counts alone (its nodes and what
    it hands up are in the store), so that the regions' tasks never write one key twice."""

    stats: Annotated[dict[str, int], add_counts]


def build_region(retry: RetryPolicy):
    """One region, read by the run's pipeline: 4 nodes."""
    w = Wiring(retry, input_schema=StepState, output_schema=RegionOutput)
    w.plain(fresh=build_fresh(retry), update=build_update(retry), source=build_source(retry),
            hand_up=hand_up)
    w.route(START, routes.reading)
    for pipeline in ("fresh", "update", "source"):
        w.edge(pipeline, "hand_up")
    w.edge("hand_up", END)
    return w.compile("region")


def read_regions(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                 ) -> Literal["region"] | list[Send]:
    """Every region at once: one `region` task each."""
    return region_jobs(state, runtime)


def after_join(state: ChunkerState, runtime: Runtime[ChunkerSettings]
               ) -> Literal["patch_tree", "aggregate"]:
    """An update's patch puts the joined leaves in the old tree's place; any other run builds
    the levels above the regions, as the section tree closes a section."""
    index = index_of(state, runtime)
    return "patch_tree" if index is not None and index.patch else "aggregate"


def build_regions(retry: RetryPolicy):
    """A document read in regions: 6 nodes."""
    w = Wiring(retry)
    w.plain(region=build_region(retry), join_regions=join_regions, aggregate=build_aggregate(retry),
            number_nodes=number_nodes)
    add_patch(w)
    w.route(START, read_regions)
    w.edge("region", "join_regions").route("join_regions", after_join)
    w.edge("aggregate", "number_nodes").edge("number_nodes", END)
    return w.compile("regions")
