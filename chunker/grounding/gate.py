"""The gate between model prose and the tree: every text a model writes (rewrite, leaf
summary, block synthesis and summary) is checked against its evidence by
`chunker.grounding.check`; a rejection is counted by task and reason
(`grounding.<task>.<reason>`) and written beside the call in the call log, so that
`chunker inspect OUT --call N` shows why the model's text was not used."""

from __future__ import annotations

import json

from chunker.grounding import check
from chunker.grounding.policy import GroundingPolicy
from chunker.llm.calllog import annotate


def grounded(policy: GroundingPolicy, task: str, text: str, evidence: str | list[str],
             stats: dict[str, int], log_id: int | None, *, calls_dir: str | None) -> bool:
    """Whether `text` may enter the tree; counts the verdict, and logs it beside call
    `log_id` in the call log of `calls_dir` (the run's folder; None: not logged)."""
    if not text.strip():
        return False
    verdict = check(text, evidence, task=task, policy=policy)
    if verdict.ok:
        annotate(calls_dir, log_id, f"{task}: kept (support {verdict.support:.2f})")
        return True
    for reason in verdict.reasons:
        key = f"grounding.{task}.{reason}"
        stats[key] = stats.get(key, 0) + 1
    detail = {"task": task, "reasons": [str(r) for r in verdict.reasons],
              "support": round(verdict.support, 2),
              "unsupported_names": list(verdict.unsupported_names),
              "unsupported_numbers": list(verdict.unsupported_numbers),
              "fragments": list(verdict.fragments)}
    annotate(calls_dir, log_id, "rejected: " + json.dumps(detail, ensure_ascii=False))
    return False
