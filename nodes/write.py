"""write_outputs: assemble the tree, check it, and write it (or return it)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from pathlib import Path

from langgraph.runtime import Runtime

from chunker import __version__
from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import run_store, settings
from chunker.output.assemble import assemble
from chunker.output.hierarchy import RunMeta
from chunker.output.writer import foreign_stems, write_tree
from chunker.state.schema import ChunkerState

# Fields that describe where a run happens, not what it computes: they stay out of
# hierarchy.json so that the same input and settings give byte-identical trees.
_LOCAL_FIELDS = {"run_dir", "return_tree"}


def public_config(cfg) -> dict:
    return {k: v for k, v in dataclasses.asdict(cfg).items() if k not in _LOCAL_FIELDS}


def write_outputs(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = settings(runtime)
    source = state.get("path")
    meta = RunMeta(
        tool_version=__version__, model=cfg.model, doc_id=state["doc_id"], source=source,
        source_chars=state["doc_chars"], config=public_config(cfg),
        stats=dict(sorted((state.get("stats") or {}).items())),
        finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    hierarchy = assemble(run_store(state, runtime), state["leaf_count"], state["block_counts"],
                         state["root_id"], meta, cfg.slug_max_length,
                         taken=foreign_stems(cfg.run_dir) if cfg.run_dir else None)
    if cfg.run_dir:
        title = Path(source).stem if source else "Document"
        write_tree(cfg.run_dir, hierarchy, title)
    return {"tree": hierarchy.model_dump(mode="json") if cfg.return_tree else None}
