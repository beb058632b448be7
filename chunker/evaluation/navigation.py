"""`chunker eval navigation`: does the tree lead a reader to the passage a question needs,
reading no more than flat search would?

Every method runs on every question at every budget (`DEFAULT_BUDGETS`, or `--budgets`) and
never reads more than the budget: a method that overspends is a bug (`OverBudget`).

Methods:

- `navigator`: the navigator as `chunker ask` runs it (collapsed search, default settings, no
  model); `navigator-descend`: the walk from the root (`mode=descend`); `navigator-llm`, when a
  model is given: collapsed mode, the model choosing among the collapsed search's best branches.
  Their tokens read are the navigator's own `tokens_read` (everything it rendered: passages with
  their headers, and in descend mode the children's summaries shown at each choice).
- flat baselines (`navigation_flat`): {bm25, embeddings, fusion} x {leaves, fixed200, fixed400,
  contextual}, named `RANKER-UNITS`; they read units in rank order while they fit, the first
  that does not fit whole cut to what is left, then stop. Their tokens read are the text's.
- with `ablation`: the collapsed navigator with every contextual field, with none, with each
  removed alone (`ablation-no-FIELD`) and, with `ablation_alone`, each alone (`ablation-only-FIELD`).

Success is `navigation_questions.Judge`'s rule (reference spans covered by at least
`SPAN_SHARE`, else `must_contain` in a passage read). In a corpus tree every passage names its
file, fixed chunks are cut per file, and a question's `prefix` limits every method to the files
under it (the navigator through `ask(prefix=...)`, flat methods by filtering their ranking).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from chunker.evaluation.navigation_flat import flat_methods, read_within
from chunker.evaluation.navigation_questions import (Judge, Question, Read, file_texts,
                                                     load_questions, resolve)
from chunker.graph.navigator_ask import ask
from chunker.navigation.settings import CONTEXT_FIELDS, NavigatorSettings
from chunker.navigation.tree import Tree, open_tree

__all__ = ["DEFAULT_BUDGETS", "NavigationEval", "Outcome", "OverBudget", "evaluate_navigation",
           "load_questions", "navigator_methods"]

DEFAULT_BUDGETS = (500, 1000, 2000, 4000)
NAVIGATOR = "navigator"
"""The method the target is about: the navigator as users run it."""


class OverBudget(RuntimeError):
    """A method read more tokens than its budget: a bug in that method, never a result."""


@dataclass
class Outcome:
    """One method on one question at one budget."""

    success: bool
    tokens_read: int
    read: list[dict] = field(default_factory=list)
    """What it read: id, kind, file, span and tokens of each passage (not the text)."""
    llm_calls: int = 0
    llm_tokens: int = 0
    prompt_tokens: int = 0
    """Prompt plus completion tokens (the navigator's stats do not separate them)."""
    seconds: float = 0.0
    status: str = ""


@dataclass
class NavigationEval:
    run_dir: str
    embeddings: str
    model: str | None
    settings: dict
    budgets: list[int]
    questions: list[Question]
    groups: dict[str, str] = field(default_factory=dict)
    """Each method's group: navigator, flat or ablation (in the order they ran)."""
    fields: dict[str, list[str]] = field(default_factory=dict)
    """The context fields of each ablation method."""
    outcomes: dict[str, dict[int, list[Outcome]]] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)
    """Each question's success rule: spans, must_contain, must_contain (fuzzy)."""
    gold_leaves: list[list[str]] = field(default_factory=list)
    """Leaves that alone satisfy the rule (empty: the answer straddles leaves)."""
    corpus: bool = False
    wall_s: float = 0.0

    def methods(self, group: str | None = None) -> list[str]:
        return [m for m, g in self.groups.items() if group is None or g == group]

    def summary(self) -> dict[str, dict[int, dict]]:
        """Per method and budget: successes, rate and the means per question."""
        out: dict[str, dict[int, dict]] = {}
        for name, by_budget in self.outcomes.items():
            out[name] = {}
            for budget, rows in by_budget.items():
                n = len(rows) or 1
                out[name][budget] = {
                    "successes": sum(r.success for r in rows),
                    "success_rate": sum(r.success for r in rows) / n,
                    "tokens_read": sum(r.tokens_read for r in rows) / n,
                    "llm_calls": sum(r.llm_calls for r in rows) / n,
                    "llm_tokens": sum(r.llm_tokens for r in rows) / n,
                    "prompt_tokens": sum(r.prompt_tokens for r in rows) / n,
                    "seconds": sum(r.seconds for r in rows) / n}
        return out

    def to_dict(self) -> dict:
        return {"run_dir": self.run_dir, "embeddings": self.embeddings, "model": self.model,
                "settings": self.settings, "budgets": self.budgets, "corpus": self.corpus,
                "wall_s": self.wall_s, "groups": self.groups, "fields": self.fields,
                "summary": self.summary(), "rules": self.rules, "gold_leaves": self.gold_leaves,
                "questions": [asdict(q) for q in self.questions],
                "outcomes": {m: {b: [asdict(o) for o in rows] for b, rows in by.items()}
                             for m, by in self.outcomes.items()}}


def navigator_methods(settings: NavigatorSettings, model: str | None, ablation: bool,
                      ablation_alone: bool) -> list[tuple[str, str, NavigatorSettings]]:
    """(name, group, settings) of every navigator run: the three navigators, then the ablation."""
    base = replace(settings, model=None, mode="collapsed")
    out = [(NAVIGATOR, "navigator", base),
           ("navigator-descend", "navigator", replace(base, mode="descend"))]
    if model:
        out.append(("navigator-llm", "navigator", replace(base, model=model)))
    if ablation:
        out.append(("ablation-all", "ablation", replace(base, context_fields=CONTEXT_FIELDS)))
        out.append(("ablation-none", "ablation", replace(base, context_fields=())))
        out += [(f"ablation-no-{f}", "ablation",
                 replace(base, context_fields=tuple(x for x in CONTEXT_FIELDS if x != f)))
                for f in CONTEXT_FIELDS]
        if ablation_alone:
            out += [(f"ablation-only-{f}", "ablation", replace(base, context_fields=(f,)))
                    for f in CONTEXT_FIELDS]
    return out


def _file_of(tree: Tree, default: str):
    def file_of(node_id: str) -> str | None:
        n = tree.node(node_id)
        return None if n.kind == "folder" else (n.source or default)
    return file_of


def _navigate(tree: Tree, q: Question, cfg: NavigatorSettings, judge: Judge,
              file_of: Callable[[str], str | None]) -> Outcome:
    r = ask(str(tree.path), q.question, cfg, prefix=q.prefix)
    reads = [Read(p["id"], p["kind"], file_of(p["id"]),
                  tuple(p["span"]) if p.get("span") is not None else None, p["text"],
                  p.get("tokens", 0)) for p in r.passages]
    return Outcome(success=judge.success(reads), tokens_read=r.tokens_read, read=_brief(reads),
                   llm_calls=r.llm_calls, llm_tokens=r.llm_tokens,
                   prompt_tokens=r.prompt_tokens, seconds=r.seconds,
                   status=r.status)


def _brief(reads: list[Read]) -> list[dict]:
    return [{"id": r.id, "kind": r.kind, "file": r.source,
             "span": list(r.span) if r.span else None, "tokens": r.tokens} for r in reads]


def _check(name: str, budget: int, q: Question, outcome: Outcome) -> Outcome:
    if outcome.tokens_read > budget:
        raise OverBudget(f"{name} read {outcome.tokens_read} tokens at a budget of {budget} on "
                         f"question {q.line} ({q.question[:60]!r}): a bug in that method")
    return outcome


def evaluate_navigation(run_dir: Path, questions: list[Question], *, settings: NavigatorSettings,
                        model: str | None = None, budgets: tuple[int, ...] = DEFAULT_BUDGETS,
                        methods: list[str] | None = None, ablation: bool = False,
                        ablation_alone: bool = False, questions_path: Path = Path("questions"),
                        on_question: Callable[[int, dict[str, dict[int, Outcome]]], None] | None = None
                        ) -> NavigationEval:
    """Every method on every question at every budget (`methods` filters the navigator and
    flat methods by name prefix; the ablation runs when asked). ValueError for questions the
    tree cannot answer (a file it does not hold, a span out of range, a prefix no file has)."""
    started = time.perf_counter()
    if not budgets or any(b < 1 for b in budgets):
        raise ValueError("budgets must be positive token counts")
    budgets = tuple(sorted(set(budgets)))
    tree = open_tree(run_dir)
    files = file_texts(tree)
    questions = resolve(questions, tree, files, questions_path)
    wanted = lambda name: not methods or any(name.startswith(m) for m in methods)  # noqa: E731
    navs = [(n, g, cfg) for n, g, cfg in navigator_methods(settings, model, ablation, ablation_alone)
            if g == "ablation" or wanted(n)]
    flats = flat_methods(tree, files, settings, wanted)
    result = NavigationEval(run_dir=str(run_dir), embeddings=settings.embeddings, model=model,
                            settings=asdict(settings), budgets=list(budgets), questions=questions,
                            corpus=tree.is_corpus)
    for name, group, cfg in navs:
        result.groups[name] = group
        if group == "ablation":
            result.fields[name] = list(cfg.context_fields)
    for flat in flats:
        result.groups[flat.name] = "flat"
    result.outcomes = {m: {b: [] for b in budgets} for m in result.groups}
    # the ablation's `all` is the navigator itself when its fields are all: not run twice
    same = {"ablation-all": NAVIGATOR} if (NAVIGATOR in result.groups and "ablation-all" in result.groups
                                           and settings.context_fields == CONTEXT_FIELDS) else {}
    file_of = _file_of(tree, next(iter(files), ""))
    leaves = tree.hierarchy.leaves()
    for number, q in enumerate(questions):
        judge = Judge.of(q, files)
        result.rules.append(judge.rule)
        result.gold_leaves.append([
            leaf.id for leaf in leaves
            if judge.success([Read(leaf.id, "leaf", file_of(leaf.id), leaf.span, leaf.original or "", 0)])])
        this: dict[str, dict[int, Outcome]] = {}
        for name, _, cfg in navs:
            if name in same:
                this[name] = this[same[name]]
                continue
            this[name] = {b: _check(name, b, q, _navigate(tree, q, replace(cfg, budget_tokens=b),
                                                          judge, file_of)) for b in budgets}
        for flat in flats:
            ranked, seconds = flat.ranked(q.question, q.prefix)
            this[flat.name] = {}
            for b in budgets:
                reads, tokens = read_within(ranked, b)
                this[flat.name][b] = _check(flat.name, b, q, Outcome(
                    success=judge.success(reads), tokens_read=tokens, read=_brief(reads),
                    seconds=round(seconds, 4)))
        for name, by_budget in this.items():
            for b, outcome in by_budget.items():
                result.outcomes[name][b].append(outcome)
        if on_question is not None:
            on_question(number, this)
    result.wall_s = round(time.perf_counter() - started, 1)
    return result
