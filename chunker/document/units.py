"""Split units with character offsets: sentences (pysbd), paragraphs and words.

Every unit boundary is an offset into the original text; units tile the text with
no gap and no overlap, so chunks cut at these offsets are always lossless.
"""

from __future__ import annotations

import bisect
import hashlib
import threading
import re
from dataclasses import dataclass, field

import pysbd

from chunker.document.processes import idle_workers, map_in_processes

_PARA_BREAK = re.compile(r"\n(?:[ \t\r\f\v]*\n)+")
_PARA_END = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_WORD = re.compile(r"\s*\S+\s*")
_WORD_END = re.compile(r"\S+\s*")
_TERMINAL = re.compile(r"[.!?\u2026\u3002\uff01\uff1f]")
# pysbd is quadratic on long spans without a sentence end, so it is fed blocks of at
# most this many characters, cut where a sentence most likely ends.
_BLOCK_CHARS = 4000
_LIKELY_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*\s+")
PARALLEL_CHARS = 200_000
"""A text of at least this many characters is segmented in processes, a batch of blocks
each (`processes.py`): pysbd holds the GIL, and a book's segmentation (several seconds for
Emma's 880 KB) comes before the first call of the run. Blocks are segmented alone either way,
so the sentences are the same."""
_BATCHES_PER_WORKER = 4
"""Batches per worker process: blocks differ in cost, so a worker that finishes early takes
another batch."""


def line_copy(text: str) -> str:
    """A same-length copy with one `\n` per line break, whatever the convention: CRLF
    becomes " \n" and a lone CR (old Mac files) becomes "\n"."""
    return text.replace("\r\n", " \n").replace("\r", "\n")


def detection_copy(text: str) -> str:
    """A same-length copy in which hard line wraps are spaces.

    pysbd ends a sentence at every single newline, which shreds hard-wrapped text;
    paragraph breaks (a blank line) are kept.
    """
    return _single_newlines_to_spaces(line_copy(text))


# A line that ends with terminal punctuation ends its sentence: the newline is kept so
# that pysbd splits there (one-sentence-a-line corpora such as Choi's, where "1 ." or
# "Sen." would otherwise glue sentences together); other single newlines are wraps.
_ENDS_SENTENCE = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*[ \t]*$")


def _single_newlines_to_spaces(text: str) -> str:
    out = []
    last = 0
    for m in _PARA_BREAK.finditer(text):
        out.append(_unwrap(text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_unwrap(text[last:]))
    return "".join(out)


def _unwrap(text: str) -> str:
    lines = text.split("\n")
    return "".join(line + ("\n" if _ENDS_SENTENCE.search(line) else " ") for line in lines[:-1]) + lines[-1]


def _blocks(copy: str):
    """(start, end, real) blocks of at most _BLOCK_CHARS, cut at paragraph or likely sentence
    ends; `real` is False when the cut had to fall at a plain space (not a sentence end)."""
    start, n = 0, len(copy)
    while start < n:
        end = min(n, start + _BLOCK_CHARS)
        real = True
        if end < n:
            window = copy[start:end]
            cut = None
            for m in _PARA_BREAK.finditer(window):
                cut = m.end()
            if cut is None:
                for m in _LIKELY_END.finditer(window):
                    cut = m.end()
            if cut is None:
                real = False
                ws = window.rfind(" ")
                cut = ws + 1 if ws > 0 else None
            if cut:
                end = start + cut
        yield start, end, real
        start = end


_LOCAL = threading.local()
"""One pysbd segmenter per thread: `Segmenter.segment` keeps the text it works on in the
instance, so runs segmenting on two threads at once corrupted each other's sentences."""

_PAGE_ENDS: dict[str, tuple[int, ...]] = {}
"""Page end offsets by text digest, registered by whoever extracted the text from a PDF."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def register_page_ends(text: str, ends: list[int] | tuple[int, ...]) -> None:
    """Tell `Units.of` where the pages of `text` end (a PDF's page map), so that the `page`
    unit can grow a window by whole pages. The text is keyed by its content, so a page map
    can never attach to another text; the graph state and store stay free of it."""
    _PAGE_ENDS[_digest(text)] = tuple(sorted(set(e for e in ends if 0 < e <= len(text))))


def sentence_ends(text: str) -> list[int]:
    """Sorted offsets where a sentence ends (trailing whitespace included); last is len(text)."""
    copy = detection_copy(text)
    blocks = list(_blocks(copy))
    pieces = [copy[start:end] for start, end, _ in blocks]
    workers = idle_workers() if len(copy) >= PARALLEL_CHARS else 1
    if workers > 1:
        size = max(1, -(-len(pieces) // (workers * _BATCHES_PER_WORKER)))
        batches = [pieces[i:i + size] for i in range(0, len(pieces), size)]
        found = [ends for batch in map_in_processes(segment_blocks, batches, workers) for ends in batch]
    else:
        found = segment_blocks(pieces)
    ends: list[int] = []
    for (start, end, real), block_ends in zip(blocks, found):
        block_ends = [start + e for e in block_ends] + [end]
        if not real:  # the block's end is an arbitrary space, not a sentence end
            block_ends = [e for e in block_ends if e != end]
        ends.extend(block_ends)
    # pysbd spans tile each block; duplicates and a zero offset are dropped.
    out = sorted(set(e for e in ends if 0 < e <= len(text)))
    if not out or out[-1] != len(text):
        out.append(len(text))
    return out


def segment_blocks(blocks: list[str]) -> list[list[int]]:
    """Where pysbd ends each block's sentences (offsets into the block; none in a block
    without terminal punctuation). Module-level: a worker process runs it."""
    segmenter = getattr(_LOCAL, "segmenter", None)
    if segmenter is None:
        segmenter = _LOCAL.segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return [[span.end for span in segmenter.segment(block)] if _TERMINAL.search(block) else []
            for block in blocks]


@dataclass
class Units:
    """Boundary look-ups over one text."""

    text: str
    sentences: list[int] = field(default_factory=list)
    lines: str = ""
    """`line_copy(text)`: paragraph breaks are searched here, so CR-only and CRLF files
    break into paragraphs like LF files do."""
    pages: list[int] = field(default_factory=list)
    """Offsets where a PDF's pages end (see `register_page_ends`); empty for other texts."""

    @classmethod
    def of(cls, text: str) -> "Units":
        return cls(text=text, sentences=sentence_ends(text), lines=line_copy(text),
                   pages=list(_PAGE_ENDS.get(_digest(text), ())))

    def next_end(self, pos: int, unit: str) -> int:
        """The first boundary of `unit` strictly after `pos` (the text's end at most)."""
        n = len(self.text)
        if pos >= n:
            return n
        if unit == "sentence":
            i = bisect.bisect_right(self.sentences, pos)
            return self.sentences[i] if i < len(self.sentences) else n
        if unit == "page":
            if not self.pages:
                raise ValueError("split_unit page needs the page map of a PDF's text")
            i = bisect.bisect_right(self.pages, pos)
            return self.pages[i] if i < len(self.pages) else n
        if unit == "paragraph":
            m = _PARA_END.search(self.lines or line_copy(self.text), pos + 1)
            return m.end() if m else n
        m = _WORD.match(self.text, pos)
        return m.end() if m and m.end() > pos else n

    def last_sentence_end(self, lo: int, hi: int) -> int | None:
        """The largest sentence end e with lo < e <= hi, or None."""
        i = bisect.bisect_right(self.sentences, hi) - 1
        if i >= 0 and self.sentences[i] > lo:
            return self.sentences[i]
        return None

    def word_ends(self, lo: int, hi: int) -> list[int]:
        """Word boundaries (after trailing whitespace) in (lo, hi]."""
        n = len(self.text)
        ends = [m.end() for m in _WORD_END.finditer(self.text, lo, hi) if lo < m.end() <= hi]
        # A match ending at `hi` may be a word cut by the search limit, not a boundary.
        if ends and ends[-1] == hi and hi < n and not self.text[hi - 1].isspace():
            ends.pop()
        return ends
