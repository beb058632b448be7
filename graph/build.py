"""The chunker graph: one function builds it, with or without persistence.

    load_document -> [the policy reads the signal] embed_document -> plan_regions
    -> the run's pipeline [fresh | update | source | regions] -> write_outputs

A pipeline (`graph/pipelines.py`) composes the subgraphs: `cut` (the cursor, the boundary
policy, the section shortcut, the safety valve, an update's copies and rejoins:
`graph/cut.py`), `write` (one leaf's rewrite and summary: `graph/write.py`) and `aggregate`
(the sweeps and syntheses up to the root: `graph/aggregate.py`). Which pipeline a run takes
is chosen once, from its settings and input (`routes.pipeline`). A document planned in
regions (`plan_regions`) takes `regions` (`graph/regions.py`): each region is read by the
pipeline the whole document would take, all at once, and the levels above them after. The pictures of every graph
are drawn from the compiled graphs (`get_graph(xray=True)`): see the docs' graphs page
(`docs/reference/graphs.md`).

Every conditional edge's targets come from its route's `Literal` return type
(`routes.targets`; a fan-out's `Literal` names the node its `Send`s go to), so the pictures
and the graph cannot drift apart.

The CLI compiles it with SqliteSaver + SqliteStore; `langgraph dev` serves it with the
platform's persistence; a parent graph can add it as a node (subgraph). The subgraphs have
no checkpointer of their own: they checkpoint into the graph's, so a killed run resumes
inside the subgraph it was in.
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START
from langgraph.store.base import BaseStore
from langgraph.types import RetryPolicy

from chunker.config.settings import LLMSettings
from chunker.graph import routes
from chunker.graph.pipelines import build_fresh, build_source, build_update
from chunker.graph.regions import build_regions
from chunker.graph.wiring import Wiring
from chunker.llm.errors import is_transient
from chunker.nodes.embed import embed_document
from chunker.nodes.load_document import load_document
from chunker.nodes.regions import plan_regions
from chunker.nodes.write import write_outputs
from chunker.state.schema import ChunkerInput, ChunkerOutput

_LLM_DEFAULTS = LLMSettings.model_fields


def llm_retry_policy(max_attempts: int = _LLM_DEFAULTS["max_attempts"].default,
                     initial_s: float = _LLM_DEFAULTS["retry_initial_s"].default) -> RetryPolicy:
    """Transient LLM failures: exponential backoff with jitter, bounded attempts."""
    return RetryPolicy(initial_interval=initial_s, backoff_factor=2.0, max_interval=30.0,
                       max_attempts=max_attempts, jitter=True, retry_on=is_transient)


def build_graph(checkpointer: BaseCheckpointSaver | None = None, store: BaseStore | None = None,
                *, llm_retry: RetryPolicy | None = None, name: str = "chunker"):
    retry = llm_retry or llm_retry_policy()
    w = Wiring(retry, input_schema=ChunkerInput, output_schema=ChunkerOutput)
    w.plain(load_document=load_document, plan_regions=plan_regions, fresh=build_fresh(retry),
            update=build_update(retry), source=build_source(retry), regions=build_regions(retry))
    w.llm(embed_document=embed_document)  # a call to an embeddings server
    w.llm(write_outputs=write_outputs)  # asks for terms where `model_tasks` says (idempotent)
    w.edge(START, "load_document").route("load_document", routes.after_load)
    w.edge("embed_document", "plan_regions").route("plan_regions", routes.pipeline)
    for pipeline in ("fresh", "update", "source", "regions"):
        w.edge(pipeline, "write_outputs")
    w.edge("write_outputs", END)
    return w.compile(name, checkpointer=checkpointer, store=store)
