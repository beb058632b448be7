"""Choi-style test sets of any topic length, built from the shared corpus (seeded).

Choi (2000) made each test document from 10 segments, each the first n sentences of a
different Brown-corpus text, n drawn from a range (3-5, 6-8, 9-11, 3-11). Boundaries are
known by construction. This module does the same from other texts, so that a boundary
rule can be checked on topic lengths it was not chosen on:

- **sources**: every text is cut into *units*, the stretches one segment may be drawn
  from: an Emma chapter, a manifesto, a section of a Rust-book chapter or of a
  fastapi-docs page, one of Choi's own segments. Only prose is kept (no code, tables,
  headings, HTML or include directives) and inline Markdown is reduced to its words.
- **sentences**: pysbd (`chunker.evaluation.gold.split_sentences`) per paragraph, except in
  the Choi and manifesto files, which are one sentence a line already. A sentence keeps
  its words on one line, so the gold files read as one sentence a line, as Choi's do, and
  only sentences of 4-80 words that end with `.`, `!`, `?` or `…` are kept (see `_ENDS`).
- **a document**: `segments` segments; each picks a pool (the kind of text) uniformly
  among those that still hold an unused unit of at least n sentences, then a unit
  uniformly within it, then a random run of n consecutive sentences. No unit is used twice
  in one document, so neighbours always come from different texts; two neighbours may
  both come from Emma (different chapters), which is the hard case.

Everything follows from `random.Random(seed)`: the same corpus and seed give the same
files. Written as Choi's `.ref` files (segments separated by a line `==========`), which
`chunker eval segmentation` reads.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from chunker.evaluation.gold import parse_segments, split_sentences

SEPARATOR = "=========="
LENGTHS: dict[str, tuple[int, int]] = {"3-5": (3, 5), "6-8": (6, 8), "9-11": (9, 11), "3-11": (3, 11)}
"""Choi's four ranges of sentences per segment, by set name."""
MIN_WORDS, MAX_WORDS = 4, 80
"""A kept sentence has this many words (a shorter line is a caption or a fragment; a longer
one is a list or table that lost its layout)."""
_ENDS = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*$")
"""A kept sentence ends like one. A docs page's `... looks like this:` introduced a code block
that is gone; a chunker reads a line without a sentence end as wrapped, and joins it to the
next, which across a segment boundary would hide a gold boundary inside a sentence."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_SKIP_LINE = re.compile(r"^\s*(#|\||<|\{\*|\{\{|///|!!!|\[\^|---|\*\*\*|===|>\s*\[!)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_INLINE = re.compile(r"(\*\*|__|`|\*(?=\S)|(?<=\S)\*|\{ *#[^}]*\})")
_HTML = re.compile(r"<[^>]+>")
_LIST = re.compile(r"^\s*([-*+]|\d+[.)])\s+")


@dataclass(frozen=True)
class Unit:
    """A stretch of one text that a segment may be drawn from."""

    pool: str
    name: str
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class Segment:
    unit: str
    start: int
    sentences: tuple[str, ...]


def _one_line(text: str) -> str:
    return " ".join(_repaired(text).split())


def _repaired(text: str) -> str:
    """Undo UTF-8 read as cp1252 (the manifestos' `â€™` for `’`) where that round trip works.
    A closing `”` (bytes E2 80 9D) lost its last byte, which cp1252 does not define, to U+FFFD."""
    if "\u00e2\u20ac" not in text:
        return text
    try:
        raw = b"".join(b"\x9d" if c == "\ufffd" else c.encode("cp1252") for c in text)
        return raw.decode("utf-8")
    except UnicodeError:
        return text


def _distinct(sentences) -> tuple[str, ...]:
    """Sentences without a repeat of the one before (a docs page's tip repeated per example)."""
    out: list[str] = []
    for s in sentences:
        if not out or out[-1] != s:
            out.append(s)
    return tuple(out)


def _keep(sentence: str) -> bool:
    words = sentence.split()
    return (MIN_WORDS <= len(words) <= MAX_WORDS and any(c.isalpha() for c in sentence)
            and _ENDS.search(sentence) is not None)


def _sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in split_sentences(_one_line(paragraph)) if s.strip()]


def _prose_paragraphs(markdown: str) -> Iterator[tuple[str | None, str]]:
    """(heading that starts a section or None, paragraph) for every prose paragraph."""
    fenced, para = False, []
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            if para:
                yield None, " ".join(para)
                para = []
            continue
        if fenced:
            continue
        if line.lstrip().startswith("#"):
            if para:
                yield None, " ".join(para)
                para = []
            yield line.strip("# ").strip(), ""
            continue
        if not line.strip() or _SKIP_LINE.match(line) or _LIST.match(line):
            if para:
                yield None, " ".join(para)
                para = []
            continue
        clean = _HTML.sub("", _INLINE.sub("", _LINK.sub(r"\1", line)))
        para.append(clean.strip())
    if para:
        yield None, " ".join(para)


def markdown_units(pool: str, name: str, markdown: str) -> list[Unit]:
    """One unit per heading section of a Markdown text: its prose sentences, in order."""
    units, title, sents = [], name, []
    for heading, paragraph in _prose_paragraphs(markdown):
        if heading is not None:
            if sents:
                units.append(Unit(pool, f"{name}#{title}", _distinct(sents)))
            title, sents = heading, []
            continue
        sents.extend(s for s in _sentences(paragraph) if _keep(s))
    if sents:
        units.append(Unit(pool, f"{name}#{title}", _distinct(sents)))
    return units


def corpus_units(corpus: Path) -> list[Unit]:
    """Every unit of the shared corpus's prose, pool by pool, in a fixed order."""
    units: list[Unit] = []
    emma = (corpus / "emma" / "emma.md").read_text(encoding="utf-8")
    for unit in markdown_units("emma", "emma", emma):
        units.append(unit)
    for path in sorted((corpus / "manifesto").glob("*.txt")):
        sents = [s for seg in parse_segments(path.read_text(encoding="utf-8")) for s in map(_one_line, seg)
                 if _keep(s)]
        units.append(Unit("manifesto", path.name, _distinct(sents)))
    for path in sorted((corpus / "markdown").glob("rust-book-*.md")):
        units.extend(markdown_units("rust-book", path.stem, path.read_text(encoding="utf-8")))
    root = corpus / "folders" / "fastapi-docs"
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        units.extend(markdown_units("fastapi-docs", rel, path.read_text(encoding="utf-8")))
    for path in sorted((corpus / "choi-3-5").glob("*.ref"), key=lambda p: int(p.stem)):
        for i, seg in enumerate(parse_segments(path.read_text(encoding="utf-8"))):
            units.append(Unit("choi", f"{path.stem}/{i}", tuple(map(_one_line, seg))))
    return units


def document(units: Sequence[Unit], lengths: tuple[int, int], rng: random.Random,
             segments: int = 10) -> list[Segment]:
    """One Choi-style document: `segments` runs of consecutive sentences from distinct units."""
    used: set[str] = set()
    out: list[Segment] = []
    for _ in range(segments):
        n = rng.randint(*lengths)
        pools: dict[str, list[Unit]] = {}
        for unit in units:
            if unit.name not in used and len(unit.sentences) >= n:
                pools.setdefault(unit.pool, []).append(unit)
        if not pools:
            raise ValueError(f"no unused unit holds {n} sentences")
        pool = rng.choice(sorted(pools))
        unit = rng.choice(pools[pool])
        start = rng.randint(0, len(unit.sentences) - n)
        used.add(unit.name)
        out.append(Segment(unit.name, start, unit.sentences[start:start + n]))
    return out


def render(doc: Sequence[Segment]) -> str:
    """A `.ref` file: one sentence a line, segments separated by `==========`."""
    lines = [SEPARATOR]
    for seg in doc:
        lines.extend(seg.sentences)
        lines.append(SEPARATOR)
    return "\n".join(lines) + "\n"


def write_sets(corpus: Path, out: Path, *, seed: int, documents: int,
               names: Sequence[str] = tuple(LENGTHS),
               units: Sequence[Unit] | None = None) -> dict[str, list[Path]]:
    """`documents` files per topic-length set under out/<set>/, each seeded by (seed, set).
    `units`: `corpus_units(corpus)` when the caller has it already (cutting Emma into sentences
    is most of the cost)."""
    units = corpus_units(corpus) if units is None else units
    written: dict[str, list[Path]] = {}
    for name in names:
        rng = random.Random(f"{seed}:{name}")
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        written[name] = []
        for i in range(documents):
            path = folder / f"{i}.ref"
            path.write_text(render(document(units, LENGTHS[name], rng)), encoding="utf-8")
            written[name].append(path)
    return written
