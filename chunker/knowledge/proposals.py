"""Terms proposed by the model (where `model_tasks` holds `terms`), kept only when grounded.

Over the finished tree, consecutive leaves of each file are shown to the model in batches (their
original text, up to `knowledge.propose_window_share` of the window a call); it answers terms and
their definitions (`prompts/propose_terms.md`). A proposal is kept only when the source bears it
out: the term occurs in one of the batch's leaves (as written, or its plural or singular), and
the definition is a span of that same leaf, verbatim or with only its whitespace differing. Kept,
it is a `Candidate` of kind `model` beside the patterns' (`patterns.py`): its spans are the
source's, so a proposal adds a place the registry points at, never a word of the model's. What
was dropped, and why, is counted in the tree's stats and noted on the call in the call log.

A corpus asks per file, when each file's tree is written; its assembly carries the files' kept
proposals over (`carried`) rather than asking again. An update asks for its changed leaves only:
the unchanged ones keep the proposals of the tree it replaces (`reused`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from chunker import prompts
from chunker.config.sections import LLMSettings
from chunker.document.tokens import count_tokens
from chunker.knowledge.documents import Documents
from chunker.knowledge.patterns import Candidate
from chunker.knowledge.settings import KnowledgeSettings
from chunker.knowledge.terms import is_acronym, variants
from chunker.llm.calllog import annotate as note_call
from chunker.llm.invoke import CallMemo, call_llm
from chunker.output.hierarchy import Hierarchy, TreeNode

TASK = "propose_terms"
MEMO_KIND = "term_proposals"
"""The run store's kind for a batch's answer: a re-run of the write (after a crash) asks no more."""

Proposed = tuple[str | None, Candidate]
"""A kept proposal: the file it lies in, and its candidate (spans in that file's text)."""


@dataclass(frozen=True)
class Verdict:
    """What grounding made of one proposal."""

    candidate: Candidate | None
    reason: str  # kept, term-absent, not-a-span, too-long


def _loose(text: str) -> str:
    """`text` as a pattern that lets any run of whitespace stand for any other."""
    return r"\s+".join(re.escape(part) for part in text.split())


def ground(leaf_text: str, offset: int, term: str, definition: str, max_chars: int) -> Verdict:
    """A proposal checked against one leaf's original text (`offset`: where the leaf starts in
    its file): its candidate with the source's spans, or why it is dropped."""
    term = " ".join(term.split()).strip("\"'\u201c\u201d*_`")
    definition = definition.strip().strip("\"\u201c\u201d").strip()
    if not term or not definition:
        return Verdict(None, "not-a-span" if term else "term-absent")
    if len(definition) > max_chars:
        return Verdict(None, "too-long")
    flags = 0 if is_acronym(term) else re.I
    forms = "|".join(_loose(v) for v in sorted(variants(term), key=len, reverse=True))
    occurrences = [m.span() for m in re.finditer(rf"(?<![\w-])(?:{forms})(?![\w-])", leaf_text, flags)]
    if not occurrences:
        return Verdict(None, "term-absent")
    found = re.search(_loose(definition), leaf_text)
    if found is None:
        return Verdict(None, "not-a-span")
    start, end = found.span()
    inside = [span for span in occurrences if start <= span[0] and span[1] <= end]
    t0, t1 = (inside or occurrences)[0]
    return Verdict(Candidate(term=leaf_text[t0:t1], term_span=(offset + t0, offset + t1),
                             definition=(offset + start, offset + end), how="model"), "kept")


def batches(leaves: list[TreeNode], max_tokens: int) -> list[list[TreeNode]]:
    """Consecutive leaves with text, up to `max_tokens` of it a batch (a longer leaf alone)."""
    out: list[list[TreeNode]] = []
    size = 0
    for leaf in leaves:
        if not (leaf.original or "").strip():
            continue
        tokens = count_tokens(leaf.original)
        if out and size + tokens <= max_tokens:
            out[-1].append(leaf)
            size += tokens
        else:
            out.append([leaf])
            size = tokens
    return out


def passages(batch: list[TreeNode]) -> str:
    return "\n\n".join(f"[passage {i}]\n{leaf.original}" for i, leaf in enumerate(batch, 1))


class TermProposer:
    """Asks the run's model for terms over a finished tree, and keeps the grounded ones."""

    def __init__(self, llm: LLMSettings, settings: KnowledgeSettings, *, calls_dir: str | None = None,
                 slots=None, writer: Callable[[dict], None] | None = None, memo: CallMemo | None = None):
        self.llm, self.cfg = llm, settings
        self.calls_dir, self.slots, self.writer, self.memo = calls_dir, slots, writer, memo

    def propose(self, h: Hierarchy, skip: frozenset[str] = frozenset()) -> tuple[list[Proposed], dict[str, int]]:
        """The kept proposals of every file of `h` (but the leaves in `skip`, whose proposals
        are known: `reused`), and the counts (calls, kept, dropped by why)."""
        kept: list[Proposed] = []
        stats: dict[str, int] = {}
        budget = max(1, int(self.cfg.propose_window_share * self.llm.model_window))
        for doc in Documents(h):
            for batch in batches([leaf for leaf in doc.leaves if leaf.id not in skip], budget):
                for cand in self._ask(batch, stats):
                    kept.append((doc.source, cand))
        return kept, stats

    def _ask(self, batch: list[TreeNode], stats: dict[str, int]) -> list[Candidate]:
        user = prompts.render(TASK, passages=passages(batch), max_terms=self.cfg.propose_max_terms)
        key = hashlib.sha256(user.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        answer = self.memo.get_value(MEMO_KIND, key) if self.memo is not None else None
        log_id = None
        if answer is None:
            result = call_llm(self.llm, node="write_outputs", task=TASK, user=user,
                              background="", writer=self.writer, memo=self.memo,
                              calls_dir=self.calls_dir, slots=self.slots)
            _add_all(stats, result.stats)
            terms = result.parsed.terms if result.parsed is not None else []
            answer = {"terms": [{"term": t.term, "definition": t.definition} for t in terms]}
            if self.memo is not None:
                self.memo.put_value(MEMO_KIND, key, answer)
            log_id = result.log_id
        out, verdicts = [], []
        for proposal in answer["terms"][: self.cfg.propose_max_terms]:
            verdict = self._ground(batch, proposal["term"], proposal["definition"])
            verdicts.append(f"{proposal['term']!r}: {verdict.reason}")
            _add(stats, f"proposed_terms.{verdict.reason}", 1)
            if verdict.candidate is not None:
                out.append(verdict.candidate)
        if verdicts:
            note_call(self.calls_dir, log_id, "terms: " + ", ".join(verdicts))
        return out

    def _ground(self, batch: list[TreeNode], term: str, definition: str) -> Verdict:
        """The first leaf of the batch that bears the proposal out, else the most telling
        reason it is dropped (a term that occurs somewhere, with a definition nowhere:
        not-a-span)."""
        reasons = []
        for leaf in batch:
            verdict = ground(leaf.original or "", leaf.span[0], term, definition,
                             self.cfg.propose_max_definition_chars)
            if verdict.candidate is not None:
                return verdict
            reasons.append(verdict.reason)
        for reason in ("too-long", "not-a-span"):
            if reason in reasons:
                return Verdict(None, reason)
        return Verdict(None, "term-absent")


def carried(trees: Iterable[tuple[str | None, Hierarchy]]) -> list[Proposed]:
    """The kept model proposals of already written trees (a corpus's files, each `(its path in
    the corpus, its tree)`), as candidates again: their spans are the file's own."""
    out: list[Proposed] = []
    for source, tree in trees:
        text = {leaf.id: leaf for leaf in tree.nodes if not leaf.children}
        for term in tree.terms:
            for d in term.definitions:
                if d.how != "model" or d.term_span is None or d.node not in text:
                    continue
                leaf = text[d.node]
                a, b = d.term_span[0] - leaf.span[0], d.term_span[1] - leaf.span[0]
                out.append((source, Candidate(term=(leaf.original or "")[a:b], term_span=d.term_span,
                                              definition=d.span, how="model")))
    return out


def reused(old: Hierarchy, h: Hierarchy) -> tuple[list[Proposed], frozenset[str]]:
    """What an update need not ask again: from the tree it replaces (when that tree's model was
    asked for terms), the kept proposals of the leaves whose text is unchanged, moved to where
    those leaves lie in `h`, and the ids of those leaves in `h` (every unchanged leaf: one with
    no kept proposal had none to keep)."""
    if "terms" not in (old.meta.config.get("model_tasks") or ()):
        return [], frozenset()
    unchanged: dict[tuple[str | None, str], list[TreeNode]] = {}
    for leaf in h.nodes:
        if not leaf.children and leaf.span is not None:
            unchanged.setdefault((leaf.source, leaf.original or ""), []).append(leaf)
    moved: dict[str, TreeNode] = {}  # an old leaf's id -> the new leaf with its text
    for leaf in old.nodes:
        same = unchanged.get((leaf.source, leaf.original or "")) if not leaf.children else None
        if same:
            moved[leaf.id] = same.pop(0)
    olds = old.by_id()
    out: list[Proposed] = []
    for term in old.terms:
        for d in term.definitions:
            if d.how != "model" or d.term_span is None or d.node not in moved:
                continue
            was = olds[d.node]
            shift = moved[d.node].span[0] - was.span[0]
            a, b = d.term_span
            out.append((d.source, Candidate(term=(was.original or "")[a - was.span[0]:b - was.span[0]],
                                            term_span=(a + shift, b + shift),
                                            definition=(d.span[0] + shift, d.span[1] + shift), how="model")))
    return out, frozenset(leaf.id for leaf in moved.values())


def _add(stats: dict[str, int], key: str, n: int) -> None:
    stats[key] = stats.get(key, 0) + n


def _add_all(stats: dict[str, int], more: dict[str, int]) -> None:
    for key, n in more.items():
        _add(stats, key, n)
