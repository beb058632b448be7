"""Gold segmentations in the Choi / manifesto format, and the sentence units they are scored in.

A gold file is plain text with one sentence per line; a line of ten or more `=` (the
corpora use exactly `==========`) separates segments. Blank lines are ignored, and so are
separators at the start or end of the file and runs of separators (no empty segments).

**Sentence units.** By default the units are the file's non-blank lines: both corpora are
one sentence a line, and the gold boundaries are defined between lines. Re-splitting with
pysbd would disagree with the gold on Choi's tokenised Brown text (`etc .` and a lone `.`
are lines of their own), so it would move the reference itself. The alternative
`units="pysbd"` (for gold files whose lines are paragraphs) splits each line into pysbd
sentences; gold boundaries stay unit boundaries either way.

**Plain text.** The chunker and the baselines see the lines joined by `\\n` (one sentence a
line, separators and blank lines removed, a final newline). Unit `i` covers
`text[offsets[i]:offsets[i + 1]]`, its newline included, so the units tile the text.

**Mapping a segmentation to units.** A predicted boundary at character offset `c` (the
start of a leaf) goes to the nearest unit boundary (ties to the earlier one); boundaries
that land on the text's start or end, or on a boundary already taken, are dropped. The
distance moved is kept, so that a method which cuts inside sentences shows it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from chunker.evaluation.metrics import boundaries_to_masses, masses_to_boundaries

SEPARATOR = re.compile(r"^\s*={10,}\s*$")
GOLD_SUFFIXES = (".ref", ".txt")
Units = Literal["lines", "pysbd"]


@dataclass
class GoldDoc:
    """One gold document: its plain text, its sentence units and the reference segments."""

    name: str
    corpus: str
    text: str
    offsets: list[int]
    """Start offset of every unit, plus len(text) at the end (len(units) + 1 values)."""
    masses: list[int]
    """Reference segment sizes in units."""
    path: str | None = None
    units: list[str] = field(default_factory=list)

    @property
    def n_units(self) -> int:
        return len(self.offsets) - 1

    @property
    def boundaries(self) -> list[int]:
        """Unit indices where a reference segment starts (0 excluded)."""
        return masses_to_boundaries(self.masses)

    def snap(self, char_offsets: Iterable[int]) -> tuple[list[int], list[int]]:
        """Char offsets of segment starts -> (unit boundaries, distance in chars each moved)."""
        unit_bounds: set[int] = set()
        moved: list[int] = []
        for c in char_offsets:
            if c <= 0 or c >= len(self.text):
                continue
            j = bisect.bisect_left(self.offsets, c)
            # offsets[j-1] < c <= offsets[j]: pick the nearer, ties to the earlier one
            if j < len(self.offsets) and self.offsets[j] == c:
                best = j
            elif j == 0:
                best = 0
            elif j >= len(self.offsets):
                best = len(self.offsets) - 1
            else:
                before, after = self.offsets[j - 1], self.offsets[j]
                best = j - 1 if c - before <= after - c else j
            moved.append(abs(self.offsets[best] - c))
            if 0 < best < self.n_units:
                unit_bounds.add(best)
        return sorted(unit_bounds), moved

    def masses_from_chars(self, char_offsets: Iterable[int]) -> tuple[list[int], list[int]]:
        bounds, moved = self.snap(char_offsets)
        return boundaries_to_masses(bounds, self.n_units), moved

    def segment_texts(self, masses: Sequence[int]) -> list[str]:
        """The text of each segment of a unit segmentation (they concatenate to `text`)."""
        edges = [0, *masses_to_boundaries(masses), self.n_units]
        return [self.text[self.offsets[a]:self.offsets[b]] for a, b in zip(edges, edges[1:])]


def parse_segments(raw: str) -> list[list[str]]:
    """Gold file content -> segments, each a list of non-blank lines (newlines stripped)."""
    segments: list[list[str]] = []
    current: list[str] = []
    for line in raw.splitlines():
        if SEPARATOR.match(line):
            if current:
                segments.append(current)
            current = []
        elif line.strip():
            current.append(line.rstrip("\r\n"))
    if current:
        segments.append(current)
    return segments


def split_sentences(line: str) -> list[str]:
    """pysbd's sentences of one line, as they lie in it (spaces kept)."""
    from chunker.document.units import sentence_ends

    ends = sentence_ends(line)
    starts = [0, *ends[:-1]]
    return [line[a:b] for a, b in zip(starts, ends) if line[a:b]]


def gold_from_text(raw: str, name: str = "doc", corpus: str = "", *, units: Units = "lines",
                   path: str | None = None) -> GoldDoc:
    segments = parse_segments(raw)
    if not segments:
        raise ValueError(f"{name}: no text between the separators")
    unit_texts: list[str] = []
    masses: list[int] = []
    for seg in segments:
        count = 0
        for line in seg:
            pieces = [line] if units == "lines" else (split_sentences(line) or [line])
            pieces[-1] = pieces[-1] + "\n"
            unit_texts.extend(pieces)
            count += len(pieces)
        masses.append(count)
    offsets = [0]
    for u in unit_texts:
        offsets.append(offsets[-1] + len(u))
    return GoldDoc(name=name, corpus=corpus, text="".join(unit_texts), offsets=offsets,
                   masses=masses, path=path, units=unit_texts)


def _natural_key(p: Path):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]


def gold_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files given, and files with a gold suffix inside folders given (natural order)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted((f for f in p.iterdir() if f.is_file() and f.suffix in GOLD_SUFFIXES),
                              key=_natural_key))
        elif p.is_file():
            out.append(p)
        else:
            raise FileNotFoundError(f"no such gold file or folder: {p}")
    return out


def load_gold(paths: Iterable[str | Path], *, units: Units = "lines", limit: int | None = None,
              ) -> list[GoldDoc]:
    """Gold documents from files and folders; `limit` keeps the first N of each folder or file list."""
    docs: list[GoldDoc] = []
    per_corpus: dict[str, int] = {}
    for f in gold_files(paths):
        corpus = f.parent.name
        if limit is not None and per_corpus.get(corpus, 0) >= limit:
            continue
        per_corpus[corpus] = per_corpus.get(corpus, 0) + 1
        raw = f.read_text(encoding="utf-8", errors="replace")
        docs.append(gold_from_text(raw, name=f.stem, corpus=corpus, units=units, path=str(f)))
    return docs
