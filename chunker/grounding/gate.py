"""The gate between model prose and the tree: every text a model writes (rewrite, leaf
summary, block synthesis and summary) is checked against its evidence by
`chunker.grounding.check`; a rejection is counted by task and reason
(`grounding.<task>.<reason>`) and written beside the call in the call log, so that
`chunker inspect OUT --call N` shows why the model's text was not used."""

from __future__ import annotations

import json

from chunker.config.settings import ChunkerSettings
from chunker.grounding import check
from chunker.llm.calllog import annotate


def grounded(cfg: ChunkerSettings, task: str, text: str, evidence: str | list[str],
             stats: dict[str, int], log_id: int | None) -> bool:
    """Whether `text` may enter the tree; counts and logs the verdict either way."""
    if not text.strip():
        return False
    verdict = check(text, evidence, task=task, policy=cfg.grounding)
    if verdict.ok:
        annotate(cfg.run_dir, log_id, f"{task}: kept (support {verdict.support:.2f})")
        return True
    for reason in verdict.reasons:
        key = f"grounding.{task}.{reason}"
        stats[key] = stats.get(key, 0) + 1
    detail = {"task": task, "reasons": [str(r) for r in verdict.reasons],
              "support": round(verdict.support, 2),
              "unsupported_names": list(verdict.unsupported_names),
              "unsupported_numbers": list(verdict.unsupported_numbers),
              "fragments": list(verdict.fragments)}
    annotate(cfg.run_dir, log_id, "rejected: " + json.dumps(detail, ensure_ascii=False))
    return False
