"""The run's routes: which pipeline a run takes, chosen once, and `targets`, which draws
every graph's edges from its routes.

Each route returns the name of the next node, typed as a `Literal` of its possible targets
(`"__end__"`: the subgraph ends, its parent goes on); the `Literal` is what the graphs
draw their edges from (`targets`); a fan-out route returns `Send`s instead, to the node its
`Literal` names. The routes of a subgraph live beside it (`graph/cut.py`, `graph/write.py`,
`graph/aggregate.py`, `graph/pipelines.py`). Where the way on depends on the run's mode, a
route asks the run's policy (`boundary_policy`, `tree_strategy`, `context_policy`), and the
modes that shape the whole run (`written` or `source`, a fresh run or an update's patch, one
cursor or regions) are asked once, here, by the choice of the pipeline.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Literal, Union, get_args, get_origin, get_type_hints

from langgraph.runtime import Runtime

from chunker.background.policy import context_policy
from chunker.chunking.boundary import boundary_policy
from chunker.config.settings import ChunkerSettings
from chunker.nodes.reuse import index_of
from chunker.state.schema import ChunkerState


def targets(route: Callable) -> list[str]:
    """The nodes a route may lead to: the names in the `Literal` of its return type. A route
    that may also send tasks (`list[Send]`, a fan-out) names their node in its `Literal`
    too, so that the drawn graph shows the fan-out's edge."""
    hint = get_type_hints(route)["return"]
    parts = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    return [name for part in parts if get_origin(part) is Literal for name in get_args(part)]


def reading(state: ChunkerState, runtime: Runtime[ChunkerSettings]
            ) -> Literal["fresh", "update", "source"]:
    """How a cursor reads (`graph/pipelines.py`), the whole document's or a region's:
    `background.context: source` cuts first and writes after; an update that patches the old
    tree's levels builds none of its own; any other run (an update that rebuilds the levels
    too) reads, writes and sweeps leaf by leaf."""
    if context_policy(runtime.context).defers_writing:
        return "source"
    index = index_of(state, runtime)
    return "update" if index is not None and index.patch else "fresh"


def pipeline(state: ChunkerState, runtime: Runtime[ChunkerSettings]
             ) -> Literal["fresh", "update", "source", "regions"]:
    """The run's pipeline: a document planned in regions is read in them, at once
    (`graph/regions.py`), each region as `reading` says; any other by one cursor."""
    if (state.get("regions") or 1) > 1:
        return "regions"
    return reading(state, runtime)


def after_load(state: ChunkerState, runtime: Runtime[ChunkerSettings]
               ) -> Literal["embed_document", "plan_regions"]:
    """A policy that reads the embedding signal needs the document embedded first (so do the
    regions of a text without headings). An update embeds only when a window first needs the
    signal: most of its passages are copied or rejoin an old boundary, and a book takes
    minutes to embed."""
    if not state.get("reuse_key") and boundary_policy(runtime.context.chunking).reads_signal:
        return "embed_document"
    return "plan_regions"
