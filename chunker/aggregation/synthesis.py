"""One synthesis: a block's text and summary from its children, grounded.

Shared by the graph's `synthesize_block` (a document's blocks) and a corpus's folder and
group nodes: the same prompt, the same grounding, the same extractive stand-ins. A block of
level `synthesize_full_text_levels` or below is synthesised from its children's full
rewritten texts (whole items, while they fit `full_budget` tokens; the rest by their
summaries); higher ones from their summaries, which condense everything below them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

from chunker import prompts
from chunker.config.settings import ChunkerSettings
from chunker.grounding import summary_of_summaries
from chunker.grounding.gate import grounded
from chunker.llm.invoke import CallMemo, CallResult, call_llm
from chunker.document.prose import cap_text
from chunker.document.readable import plain_line
from chunker.state.slots import CallSlots
from chunker.structured.guard import states_disputed, strip_disputed


class Child(Protocol):
    id: str
    rewritten: str
    rewritten_tokens: int
    summary: str
    summary_tokens: int


@dataclass
class Synthesis:
    text: str
    summary: str
    summary_kept: bool
    slug_hint: str
    log_id: int | None
    stats: dict[str, int] = field(default_factory=dict)


def children_text(children: Sequence[Child], budget_tokens: int) -> str:
    parts, used = [], 0
    for child in children:
        full, tokens = child.rewritten, child.rewritten_tokens
        if used + tokens > budget_tokens:
            full, tokens = child.summary, child.summary_tokens
        parts.append(f"[passage {child.id}]\n{full}")
        used += tokens
    return "\n\n".join(parts)


def synthesize(cfg: ChunkerSettings, children: Sequence[Child], *, node: str, background: str,
               full_budget: int, memo: CallMemo | None, calls_dir: str | None,
               writer: Callable[[dict], None] | None = None, slots: CallSlots | None = None,
               findings: Sequence[str] = (), disputed: frozenset[str] = frozenset()) -> Synthesis:
    """Ask for the block (unless the profile's model is not asked), then keep only what the
    children support: else their summaries in order, and a summary of their summaries.
    `findings`: the data checks its passages' tables failed, told to the model; the summary
    may not state one of the `disputed` numbers (`chunker.structured.guard`)."""
    asked = cfg.llm.asks("synthesis")
    if not asked:  # the profile's model never writes a usable synthesis
        result = CallResult(parsed=None, stats={"extracted.synthesis": 1})
    else:
        user = prompts.render("synthesize", children=children_text(children, full_budget))
        if findings:
            user += "\n\n" + prompts.render("synthesize_checks",
                                            findings="\n".join(f"- {f}" for f in findings))
        # an in-process model's cap: a block is about as long as a chunk
        result = call_llm(cfg.llm, node=node, task="synthesize", user=user,
                          background=background, writer=writer, memo=memo,
                          max_output_tokens=max(256, round(1.5 * cfg.chunking.max_chunk_tokens)),
                          calls_dir=calls_dir, slots=slots)
    stats = dict(result.stats)
    answer = result.parsed
    text = answer.rewritten.strip() if answer else ""
    summary = plain_line(answer.summary if answer else "")  # the model may copy markup
    evidence = [c.rewritten for c in children] + [c.summary for c in children]
    if grounded(cfg.grounding, "synthesize", text, evidence, stats, result.log_id, calls_dir=calls_dir):
        stats["kept.synthesize"] = 1
    else:  # the children's own summaries, in order, say what the section holds
        text = "\n\n".join(c.summary for c in children)
        if asked:
            stats["fallback.synthesize"] = 1
    kept = grounded(cfg.grounding, "block_summary", summary, evidence, stats, result.log_id,
                    calls_dir=calls_dir)
    if kept and disputed and states_disputed(summary, set(disputed)):
        kept = False  # a number a data check disputes is no fact
        stats["grounding.block_summary.disputed_number"] = stats.get("grounding.block_summary.disputed_number", 0) + 1
    if kept:
        summary = cap_text(summary, cfg.output.summary_max_chars)
        stats["kept.block_summary"] = 1
    else:
        summaries = [c.summary for c in children]
        if disputed:
            summaries = [strip_disputed(x, set(disputed)) for x in summaries]
            summaries = [x for x in summaries if x] or ["The figures of this section's tables do not agree."]
        summary = summary_of_summaries(summaries, max_chars=cfg.output.summary_max_chars,
                                       policy=cfg.grounding) or summaries[0]
        if asked:
            stats["fallback.block_summary"] = 1
    return Synthesis(text=text, summary=summary, summary_kept=kept,
                     slug_hint=(answer.slug if answer else "") or "", log_id=result.log_id, stats=stats)
