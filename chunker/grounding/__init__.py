"""Grounding: model prose enters the tree only when the text it describes supports it.

- `check(text, evidence, task=, policy=)` -> `Verdict`: names, numbers, content-word support,
  meta talk, first person, placeholders, markup.
- `extractive_summary`, `summary_of_summaries`, `document_overview`: LexRank fallbacks that
  pass the check by construction.
- `grounded_slug`: the model's slug when its words are the node's, else YAKE key phrases.
- `fallback_advice`: one line per task when most of its outputs fell back.
"""

from chunker.grounding.advice import TaskCounts, fallback_advice
from chunker.grounding.check import Reason, Verdict, check
from chunker.grounding.extractive import document_overview, extractive_summary, summary_of_summaries
from chunker.grounding.policy import GroundingPolicy
from chunker.grounding.slugs import grounded_slug

__all__ = ["GroundingPolicy", "Reason", "TaskCounts", "Verdict", "check", "document_overview",
           "extractive_summary", "fallback_advice", "grounded_slug", "summary_of_summaries"]
