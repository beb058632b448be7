"""The navigator's two LLM tasks: choose a child, judge a leaf.

Both go through `chunker.llm.invoke.call_llm` (structured output, one repair turn, call
log, token counts), and both return `None` when the model's answer cannot be used, so
the caller falls back to embeddings: a weak model never stops a walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chunker import prompts
from chunker.config.profiles import profile_for
from chunker.config.sections import LLMSettings
from chunker.llm.invoke import call_llm
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.views import NodeRef


@dataclass
class Judgement:
    found: bool
    answer: str


@dataclass
class LlmOutcome:
    value: object | None
    stats: dict[str, int] = field(default_factory=dict)


def llm_settings(cfg: NavigatorSettings) -> LLMSettings:
    """How the navigator's model is called: its temperature and timeout, the window (and the
    rest, which a navigator call does not read) from the model's profile."""
    assert cfg.model is not None
    profile = profile_for(cfg.model)
    return LLMSettings(model=cfg.model, model_window=profile.model_window,
                       temperature=cfg.temperature, timeout_s=cfg.llm_timeout_s,
                       combine_rewrite_and_summary=profile.combine_rewrite_and_summary,
                       model_tasks=profile.model_tasks)


def children_listing(children: list[NodeRef]) -> str:
    """The numbered summaries a reader (model or person) chooses from; in a corpus each
    also names its kind and title (a document its file), so folders and documents are
    chosen by what they are called as well as by what they hold."""
    return "\n".join(f"[{i}] " + (f"{c.choice()}: " if c.choice() else "") + c.summary
                      for i, c in enumerate(children, 1))


def choose_child(cfg: NavigatorSettings, question: str, children: list[NodeRef]) -> LlmOutcome:
    """The index (0-based) of the child the model picks, or None if it picked nothing usable."""
    user = prompts.render("navigate_choose", question=question,
                          children=children_listing(children))
    result = call_llm(llm_settings(cfg), node="choose_child", task="navigate_choose", user=user,
                      background="", max_output_tokens=16, calls_dir=cfg.calls_dir)
    choice = getattr(result.parsed, "choice", None)
    if isinstance(choice, int) and 1 <= choice <= len(children):
        return LlmOutcome(choice - 1, result.stats)
    return LlmOutcome(None, result.stats)


def judge_leaf(cfg: NavigatorSettings, question: str, passage: str) -> LlmOutcome:
    """Whether the passage answers the question, with the answer; None if unusable."""
    user = prompts.render("navigate_answer", question=question, passage=passage)
    result = call_llm(llm_settings(cfg), node="judge_leaf", task="navigate_answer", user=user,
                      background="", max_output_tokens=cfg.answer_max_tokens,
                      calls_dir=cfg.calls_dir)
    parsed = result.parsed
    if parsed is None:
        return LlmOutcome(None, result.stats)
    answer = " ".join(str(getattr(parsed, "answer", "")).split())
    found = bool(getattr(parsed, "found", False)) and bool(answer)
    return LlmOutcome(Judgement(found=found, answer=answer), result.stats)
