"""`chunker eval navigation`: does the tree lead a reader to the passage a question needs?

On a finished run and a JSONL of questions (`question`, `must_contain`), every method
opens some passages for each question; it succeeds when one passage it opened contains
`must_contain` (compared after case-folding, straight quotes and collapsed whitespace;
when no passage of the document holds it verbatim, a fuzzy partial match of at least
`FUZZY_THRESHOLD` counts). Methods: the navigator (embeddings only; with a model), flat
top-k over the same leaves with the same embeddings, BM25 top-k, and flat top-k over
fixed-size chunks of the same source. For each: success, tokens read, LLM calls and
tokens, seconds; and for the navigator, where its first descent left the gold branch.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from chunker.document.tokens import count_tokens, encoding
from chunker.graph.navigator_ask import ask
from chunker.navigation.search import Bm25Index, EmbeddingIndex, load_embeddings, top_k
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree, open_tree

FUZZY_THRESHOLD = 90.0
"""rapidfuzz partial_ratio at or above which a passage counts as holding `must_contain`
(used only for questions whose `must_contain` is nowhere verbatim in the source)."""
FLAT_KS = (1, 3, 5)
CHILD_SCORINGS = ("node", "subtree", "hybrid")
"""Every `NavigatorSettings.child_scoring`: besides the configured one (`navigator-embeddings`),
the others run as `navigator-embeddings-NAME` so that one report compares them."""
FIXED_CHUNK_TOKENS = (200, 400)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"'})


@dataclass
class Question:
    question: str
    must_contain: str
    answer: str = ""


@dataclass
class Outcome:
    """One method on one question."""

    success: bool
    tokens_read: int
    opened: list[str]
    llm_calls: int = 0
    llm_tokens: int = 0
    seconds: float = 0.0
    path: list[str] = field(default_factory=list)
    """The navigator's walk (empty for flat retrieval)."""
    status: str = ""


@dataclass
class Matcher:
    """The success rule, exact (normalised) first, fuzzy only where exact is impossible."""

    must: str
    fuzzy: bool

    def __call__(self, passage: str) -> bool:
        text, must = normalise(passage), normalise(self.must)
        if must in text:
            return True
        if not self.fuzzy:
            return False
        from rapidfuzz import fuzz

        return fuzz.partial_ratio(must, text) >= FUZZY_THRESHOLD


@dataclass
class NavigationEval:
    run_dir: str
    embeddings: str
    model: str | None
    settings: dict
    questions: list[Question]
    outcomes: dict[str, list[Outcome]] = field(default_factory=dict)
    gold_leaves: list[list[str]] = field(default_factory=list)
    lost_at: list[str] = field(default_factory=list)
    fuzzy: list[bool] = field(default_factory=list)
    wall_s: float = 0.0

    def summary(self) -> dict[str, dict]:
        out = {}
        for name, rows in self.outcomes.items():
            n = len(rows) or 1
            out[name] = {"success_rate": sum(r.success for r in rows) / n,
                         "successes": sum(r.success for r in rows),
                         "tokens_read": sum(r.tokens_read for r in rows) / n,
                         "llm_calls": sum(r.llm_calls for r in rows) / n,
                         "llm_tokens": sum(r.llm_tokens for r in rows) / n,
                         "seconds": sum(r.seconds for r in rows) / n}
        return out

    def to_dict(self) -> dict:
        return {"run_dir": self.run_dir, "embeddings": self.embeddings, "model": self.model,
                "settings": self.settings, "wall_s": self.wall_s, "summary": self.summary(),
                "questions": [asdict(q) for q in self.questions], "gold_leaves": self.gold_leaves,
                "lost_at": self.lost_at, "fuzzy": self.fuzzy,
                "outcomes": {k: [asdict(o) for o in v] for k, v in self.outcomes.items()}}


def normalise(text: str) -> str:
    return " ".join(text.translate(_QUOTES).casefold().split())


def load_questions(path: Path) -> list[Question]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            out.append(Question(question=str(rec["question"]), must_contain=str(rec["must_contain"]),
                                answer=str(rec.get("answer", ""))))
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{path}:{number}: expected a JSON object with `question` and "
                             f"`must_contain`") from None
    if not out:
        raise ValueError(f"{path} holds no questions")
    return out


def fixed_chunks(text: str, size: int) -> list[str]:
    """Consecutive pieces of `size` tokens (cl100k_base), cut wherever the count says."""
    enc = encoding()
    ids = enc.encode_ordinary(text)
    return [enc.decode(ids[i:i + size]) for i in range(0, len(ids), size)]


def _flat(name: str, scores: Callable[[str], dict[str, float]], originals: dict[str, str],
          k: int) -> Callable[[Question, Matcher], Outcome]:
    def run(q: Question, match: Matcher) -> Outcome:
        started = time.perf_counter()
        ranked = {i: v for i, v in scores(q.question).items() if i in originals}
        ids = [i for i, _ in top_k(ranked, k)]
        return Outcome(success=any(match(originals[i]) for i in ids),
                       tokens_read=sum(count_tokens(originals[i]) for i in ids), opened=ids,
                       seconds=round(time.perf_counter() - started, 3))
    run.__name__ = name
    return run


def _navigator(tree: Tree, settings: NavigatorSettings) -> Callable[[Question, Matcher], Outcome]:
    def run(q: Question, match: Matcher) -> Outcome:
        r = ask(str(tree.path), q.question, settings)
        return Outcome(success=any(match(tree.node(i).original or "") for i in r.leaves),
                       tokens_read=r.tokens_read, opened=r.leaves, llm_calls=r.llm_calls,
                       llm_tokens=r.llm_tokens, seconds=r.seconds, path=r.path,
                       status=r.status)
    return run


def lost_at(tree: Tree, path: list[str], gold: list[str]) -> str:
    """Where the first descent left every branch holding a gold leaf ('' if it never did)."""
    if not gold:
        return "no single leaf holds the passage"
    good = {a for g in gold for a in tree.ancestors(g)}
    for step, node_id in enumerate(path):
        if node_id not in good:
            parent = tree.node(node_id).parent
            want = next((c for c in tree.node(parent).children if c in good), "?") if parent else "?"
            return f"level {tree.node(node_id).level}: took {node_id}, gold under {want}"
        if tree.is_leaf(node_id):
            return ""
    return ""


def evaluate_navigation(run_dir: Path, questions: list[Question], *, embeddings: str,
                        model: str | None, settings: NavigatorSettings,
                        methods: list[str] | None = None,
                        on_question: Callable[[int, str, Outcome], None] | None = None
                        ) -> NavigationEval:
    """Every method on every question (`methods` filters by name prefix)."""
    started = time.perf_counter()
    tree = open_tree(run_dir)
    leaves = tree.leaf_ids()
    originals = {i: tree.node(i).original or "" for i in leaves}
    source = "".join(originals[i] for i in leaves)
    index = tree.index(embeddings, settings.piece_tokens, settings.cache_embeddings)
    bm25 = Bm25Index({i: tree.search_text(i) for i in leaves})
    wanted = lambda name: not methods or any(name.startswith(m) for m in methods)  # noqa: E731
    runs: dict[str, Callable[[Question, Matcher], Outcome]] = {}
    if wanted("navigator-embeddings"):
        runs["navigator-embeddings"] = _navigator(tree, replace(settings, model=None))
    for scoring in CHILD_SCORINGS:
        name = f"navigator-embeddings-{scoring}"
        if scoring != settings.child_scoring and wanted(name):
            runs[name] = _navigator(tree, replace(settings, model=None, child_scoring=scoring))
    if model and wanted("navigator-llm"):
        runs["navigator-llm"] = _navigator(tree, replace(settings, model=model))
    for k in FLAT_KS:
        if wanted(f"flat-leaves-k{k}"):
            runs[f"flat-leaves-k{k}"] = _flat(f"k{k}", index.scores, originals, k)
    for k in FLAT_KS:
        if wanted(f"bm25-leaves-k{k}"):
            runs[f"bm25-leaves-k{k}"] = _flat(f"bm25{k}", bm25.scores, originals, k)
    emb = load_embeddings(embeddings)
    for size in FIXED_CHUNK_TOKENS:
        names = [f"flat-fixed{size}-k{k}" for k in FLAT_KS if wanted(f"flat-fixed{size}-k{k}")]
        if not names:
            continue
        chunks = {f"F{size}-{n:05d}": t for n, t in enumerate(fixed_chunks(source, size))}
        cache = tree.path / ".chunker" / "navigation" if settings.cache_embeddings else None
        fixed = (EmbeddingIndex(emb, chunks, method=embeddings, piece_tokens=settings.piece_tokens,
                                cache_dir=cache) if emb is not None else Bm25Index(chunks))
        for name in names:
            runs[name] = _flat(name, fixed.scores, chunks, int(name.rsplit("k", 1)[1]))

    result = NavigationEval(run_dir=str(run_dir), embeddings=embeddings, model=model,
                            settings=asdict(settings), questions=questions,
                            outcomes={name: [] for name in runs})
    for n, q in enumerate(questions):
        exact = normalise(q.must_contain) in normalise(source)
        result.fuzzy.append(not exact)
        match = Matcher(q.must_contain, fuzzy=not exact)
        gold = [i for i in leaves if match(originals[i])]
        result.gold_leaves.append(gold)
        for name, run in runs.items():
            outcome = run(q, match)
            result.outcomes[name].append(outcome)
            if on_question is not None:
                on_question(n, name, outcome)
        nav = result.outcomes.get("navigator-embeddings")
        result.lost_at.append(lost_at(tree, nav[-1].path, gold) if nav else "")
    result.wall_s = round(time.perf_counter() - started, 1)
    return result
