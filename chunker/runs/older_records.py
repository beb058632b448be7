"""run.json as earlier versions wrote it, read as today's record (`record.RunRecord` runs
`from_older` before it validates).

- Rounds 1 to 3 wrote no `kind`: such a record is a document's. `eval --keep-runs` wrote one of
  only `status`, `model`, `wall_s` and `stats` (a tree made in memory: no file, no thread).
- Round 1 named three settings otherwise (`ROUND_1_NAMES`).
- Round 3 named an extracted run's original `pdf` and `pdf_sha256` (`ROUND_3_KEYS`), in the
  record and in an update's `extra`.
- Keys added later take their defaults in the models (round 1 recorded no `source_sha256`,
  the first corpora no `toc_sha256`, `include` or `exclude`).
"""

from __future__ import annotations

from typing import Any

ROUND_1_NAMES = {"context_budget_tokens": "background_budget_tokens", "context_order": "background_order",
                 "context_window": "model_window"}
"""Round 1's setting names, renamed in round 2 (without a legacy name then: its runs resumed
with the defaults); read as today's, so such a record resumes with the values it ran with."""

ROUND_3_KEYS = {"pdf": "original", "pdf_sha256": "original_sha256"}
"""Round 3's names of an extracted run's original file (a PDF was the only one)."""


def from_older(data: Any) -> Any:
    """A record of any earlier shape as today's (see the module's docstring)."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    data.setdefault("kind", "document")
    if data["kind"] == "document" and "thread_id" not in data:
        # `eval --keep-runs` wrote a tree made in memory with only its status, model, wall
        # time and stats (no source file, no thread)
        data = {"source": "", "thread_id": "", "config": {}, **data}
    if data["kind"] == "document":
        for old, new in ROUND_3_KEYS.items():
            if old in data:
                data.setdefault(new, data.pop(old))
        update = data.get("update")
        if isinstance(update, dict):
            extra = dict(update.get("extra") or {})
            for old, new in ROUND_3_KEYS.items():
                if old in extra:
                    extra.setdefault(new, extra.pop(old))
            data["update"] = {**update, "extra": extra, "config": _config(update.get("config"))}
    data["config"] = _config(data.get("config"))
    return data


def _config(config: Any) -> Any:
    if not isinstance(config, dict):
        return config
    return {ROUND_1_NAMES.get(k, k): v for k, v in config.items()
            if not (k in ROUND_1_NAMES and ROUND_1_NAMES[k] in config)}
