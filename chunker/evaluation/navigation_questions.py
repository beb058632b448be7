"""Questions for `chunker eval navigation`, and the rule that says whether a method found it.

A JSONL line holds `question` and what locates its answer, either or both of:

- `must_contain`: a text the passage must hold (Emma's questions);
- reference spans: `spans: [{"start": int, "end": int, "file": "path/in/corpus.md"}]`
  (characters, `[start, end)` in the file as the tree holds it; `file` may be left out when
  the tree holds one document, or given once at the top level; a single `start`/`end`/`file`
  at the top level is one span).

It may also carry `prefix`: the search is then limited to files whose path starts so (a
question about one part of a corpus), and `answer` (kept for the report).

Success, for one method on one question, over everything that method read:

- with spans (they win when a line has both): the characters read in the span's file (the
  union of the passages' spans there) cover at least `SPAN_SHARE` of some reference span. A
  summary passage has no characters of the source, so it never counts here.
- with `must_contain` only: some passage's text contains it, compared after case-folding,
  straight quotes and collapsed whitespace; only when `must_contain` is nowhere verbatim in
  the question's file (or, without a file, in the whole tree) does a fuzzy partial match of at
  least `FUZZY_THRESHOLD` count. A summary passage counts if its own text contains it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from chunker.navigation.errors import NavigationError
from chunker.navigation.scope import nodes_under, normalise_prefix
from chunker.navigation.tree import Tree

SPAN_SHARE = 0.5
"""Share of a reference span the characters read must cover for the question to count as found."""
FUZZY_THRESHOLD = 90.0
"""rapidfuzz partial_ratio at or above which a passage counts as holding `must_contain`
(used only for questions whose `must_contain` is nowhere verbatim in the source)."""
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"'})


@dataclass(frozen=True)
class Span:
    """Reference characters `[start, end)` of one file."""

    file: str | None
    start: int
    end: int


@dataclass
class Question:
    question: str
    must_contain: str = ""
    spans: list[Span] = field(default_factory=list)
    prefix: str | None = None
    file: str | None = None
    """The top-level `file`: where `must_contain` is looked for verbatim (and the default of spans)."""
    answer: str = ""
    line: int = 0
    """Its line in the question file (for error messages)."""


@dataclass(frozen=True)
class Read:
    """One passage a method read: its file and characters (None for a summary), its text."""

    id: str
    kind: str
    """leaf | piece | summary | chunk"""
    source: str | None
    span: tuple[int, int] | None
    text: str
    tokens: int


def normalise(text: str) -> str:
    return " ".join(text.translate(_QUOTES).casefold().split())


def _int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"`{what}` must be an integer, not {value!r}")
    return value


def _spans(rec: dict) -> list[Span]:
    top_file = rec.get("file")
    if top_file is not None and not isinstance(top_file, str):
        raise ValueError("`file` must be a string")
    raw = rec.get("spans")
    if raw is None:
        if "start" not in rec and "end" not in rec:
            return []
        raw = [{"start": rec.get("start"), "end": rec.get("end")}]
    if not isinstance(raw, list) or not raw:
        raise ValueError("`spans` must be a non-empty list of {start, end, file}")
    out = []
    for item in raw:
        if not isinstance(item, dict):
            raise ValueError("each span must be an object {start, end, file}")
        file = item.get("file", top_file)
        if file is not None and not isinstance(file, str):
            raise ValueError("a span's `file` must be a string")
        start, end = _int(item.get("start"), "start"), _int(item.get("end"), "end")
        if not 0 <= start < end:
            raise ValueError(f"span {start}-{end} is empty or negative (need 0 <= start < end)")
        out.append(Span(file, start, end))
    return out


def parse_line(raw: str, number: int) -> Question:
    """One JSONL line; ValueError (without the file's name) saying what is wrong."""
    try:
        rec = json.loads(raw)
    except ValueError:
        raise ValueError("not JSON") from None
    if not isinstance(rec, dict):
        raise ValueError("expected a JSON object")
    question = rec.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("`question` must be a non-empty string")
    must = rec.get("must_contain", "")
    if not isinstance(must, str):
        raise ValueError("`must_contain` must be a string")
    spans = _spans(rec)
    if not must.strip() and not spans:
        raise ValueError("expected `must_contain` or reference spans (`spans`, or `start` and `end`)")
    prefix = rec.get("prefix")
    if prefix is not None and not isinstance(prefix, str):
        raise ValueError("`prefix` must be a string")
    return Question(question=question, must_contain=must, spans=spans,
                    prefix=normalise_prefix(prefix), file=rec.get("file"),
                    answer=str(rec.get("answer", "")), line=number)


def load_questions(path: Path) -> list[Question]:
    """Every question of a JSONL file; ValueError `FILE:LINE: what is wrong` on a bad line."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(parse_line(line, number))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
    if not out:
        raise ValueError(f"{path} holds no questions")
    return out


def file_texts(tree: Tree) -> dict[str, str]:
    """Each file's text as the tree holds it: its leaves' originals at their spans (a lossless
    tree tiles every file), files in reading order."""
    default = Path(tree.hierarchy.meta.source or "document").name
    parts: dict[str, list[str]] = {}
    for leaf in tree.hierarchy.leaves():
        source = leaf.source or default
        texts = parts.setdefault(source, [])
        at = sum(len(t) for t in texts)
        if leaf.span is not None and leaf.span[0] != at:
            raise ValueError(f"{tree.path}: leaf {leaf.id} starts at {leaf.span[0]} in {source}, "
                             f"not at {at}: the tree does not tile its file (not lossless)")
        texts.append(leaf.original or "")
    return {source: "".join(texts) for source, texts in parts.items()}


def resolve(questions: list[Question], tree: Tree, files: dict[str, str], path: Path) -> list[Question]:
    """The questions checked against the tree: every span names a file the tree holds (the
    only one, when left out) and lies inside it, every prefix matches a file."""
    only = next(iter(files)) if len(files) == 1 else None
    shown = ", ".join(list(files)[:6]) + (", ..." if len(files) > 6 else "")

    def known(file: str, where: str) -> str:
        if file in files:
            return file
        if only is not None and Path(file).name == only:  # a single document by its path
            return only
        raise ValueError(f"{where}: the tree holds no file {file!r} (it holds {shown})")

    for q in questions:
        where = f"{path}:{q.line}"
        if q.file is not None:
            q.file = known(q.file, where)
        spans = []
        for span in q.spans:
            if span.file is None and only is None:
                raise ValueError(f"{where}: a span needs `file`: this tree holds {len(files)} files")
            file = known(span.file if span.file is not None else only, where)
            if span.end > len(files[file]):
                raise ValueError(f"{where}: span {span.start}-{span.end} is out of range: {file} "
                                 f"has {len(files[file])} characters")
            spans.append(Span(file, span.start, span.end))
        q.spans = spans
        if q.prefix is not None:
            try:
                nodes_under(tree.hierarchy, q.prefix)
            except NavigationError as exc:
                raise ValueError(f"{where}: {exc}") from None
    return questions


@dataclass
class Judge:
    """The success rule of one question (see the module docstring)."""

    question: Question
    fuzzy: bool
    """`must_contain` is nowhere verbatim in the source: a fuzzy match counts."""

    @classmethod
    def of(cls, question: Question, files: dict[str, str]) -> Judge:
        if question.spans or not question.must_contain:
            return cls(question, fuzzy=False)
        source = files[question.file] if question.file in files else "\n".join(files.values())
        return cls(question, fuzzy=normalise(question.must_contain) not in normalise(source))

    @property
    def rule(self) -> str:
        if self.question.spans:
            return "spans"
        return "must_contain (fuzzy)" if self.fuzzy else "must_contain"

    def holds(self, text: str) -> bool:
        """`text` contains `must_contain` (the must_contain rule on one passage)."""
        text, must = normalise(text), normalise(self.question.must_contain)
        if must in text:
            return True
        if not self.fuzzy:
            return False
        from rapidfuzz import fuzz

        return fuzz.partial_ratio(must, text) >= FUZZY_THRESHOLD

    def covers(self, reads: list[tuple[str | None, tuple[int, int] | None]]) -> bool:
        """The characters of `reads` (file, span) cover `SPAN_SHARE` of a reference span."""
        for ref in self.question.spans:
            intervals = sorted((max(a, ref.start), min(b, ref.end)) for f, s in reads
                               if s is not None and f == ref.file for a, b in [s])
            covered, reach = 0, ref.start
            for a, b in intervals:
                a = max(a, reach)
                if b > a:
                    covered += b - a
                    reach = b
            if covered >= SPAN_SHARE * (ref.end - ref.start):
                return True
        return False

    def success(self, reads: list[Read]) -> bool:
        if self.question.spans:
            return self.covers([(r.source, r.span) for r in reads if r.kind != "summary"])
        return any(self.holds(r.text) for r in reads)
