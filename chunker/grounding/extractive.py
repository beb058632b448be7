"""Extractive fallbacks: sentences picked by LexRank centrality (sumy), never written anew.

When a model's summary is rejected, the node still needs a summary worth reading. These
functions copy whole sentences (or, when even the best sentence is too long, its head cut
at a word boundary) from the node's own evidence, so the result passes the grounding check
by construction: every word, name and number is the evidence's own.

sumy's own tokenizer needs NLTK data that cannot be downloaded here; its summarizers accept
any document model, so sentences come from pysbd (`chunker.document.units`) and words from
a regex. Output is deterministic: LexRank's power method has no randomness, and ties keep
document order (a stable sort).
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from chunker.document.units import sentence_ends
from chunker.grounding.check import check
from chunker.grounding.patterns import has_first_person, placeholders_and_markup
from chunker.grounding.policy import GroundingPolicy
from chunker.grounding.text import STOP_WORDS, SUMY_IMPORTS, WORD, content_stems, plain, stem

if TYPE_CHECKING:
    from sumy.summarizers.lex_rank import LexRankSummarizer

MIN_SENTENCE_WORDS = 8
"""A sentence with fewer words ("Out with the kitchen-wench.", "And you, cinderella, said he,
what will you have.") is chosen only when nothing longer fits: it rarely says what a
passage is about, and LexRank's cosine favours short sentences."""
MIN_SENTENCE_CONTENT_WORDS = 3
"""Likewise a sentence with fewer distinct content words: mostly dialogue tags and pronouns."""
MAX_OVERLAP = 0.5
"""A sentence sharing more than this share of its content stems with one already picked
(Jaccard) is skipped: two near-identical sentences ("cut the toe off" / "cut a bit off her
heel") waste the summary's second slot."""
_TRAILING = ",;:-\u2013\u2014 ("


class _Tokenizer:
    """The two methods sumy's document model calls: pysbd sentences, regex words."""

    language = "english"

    def to_sentences(self, paragraph: str) -> tuple[str, ...]:
        return tuple(sentences(paragraph))

    def to_words(self, sentence: str) -> tuple[str, ...]:
        return tuple(WORD.findall(plain(sentence)))


_TOKENIZER = _Tokenizer()


def warm_up() -> None:
    """Import sumy and nltk (the stemmer and LexRank) now, before a run's tasks need them on
    several threads: a resumed document read in regions summarises in every region at once,
    and nltk's circular imports deadlock when two threads import it together. Every path into
    nltk takes `SUMY_IMPORTS` (here, `grounding/text.py`, `embeddings/lexical.py`)."""
    _summarizer()
    stem("warm")


def warm_up_in_background() -> threading.Thread:
    """`warm_up` on a thread of its own, started now: the imports (1.3 s on an idle core, about
    3 s under load: nltk imports scipy.stats) overlap the reading of the document, whose
    sentences are split in worker processes while this process waits (`document/processes.py`).
    A task that needs sumy or nltk first waits on the lock the thread holds."""
    thread = threading.Thread(target=warm_up, name="chunker-warm-up", daemon=True)
    thread.start()
    return thread


def _summarizer() -> LexRankSummarizer:
    with SUMY_IMPORTS:  # the first summary imports sumy and nltk: one thread at a time
        return _built()


@cache
def _built() -> LexRankSummarizer:
    # built at the first summary: sumy's stemmer imports nltk, and nltk scipy.stats (about 1 s)
    from sumy.models.dom import ObjectDocumentModel  # noqa: F401  (imported here, under the lock)
    from sumy.nlp.stemmers import Stemmer
    from sumy.summarizers.lex_rank import LexRankSummarizer

    summarizer = LexRankSummarizer(Stemmer("english"))
    summarizer.stop_words = STOP_WORDS
    return summarizer


def sentences(text: str) -> list[str]:
    """The text's sentences (pysbd), whitespace collapsed, those without a word dropped."""
    return [piece for piece, _ in _spans(text)]


def _spans(text: str) -> list[tuple[str, tuple[int, int]]]:
    """`sentences(text)`, each with its characters in `text`."""
    out, start = [], 0
    for end in sentence_ends(text):
        piece = " ".join(text[start:end].split())
        if WORD.search(piece):  # its own characters: the spaces around it are not its
            head = len(text[start:end]) - len(text[start:end].lstrip())
            out.append((piece, (start + head, start + len(text[start:end].rstrip()))))
        start = end
    return out


@dataclass(frozen=True)
class _Ranked:
    index: int
    """Position in document order."""
    rating: float
    clean: bool
    """Long enough, no markup, no placeholder, no first person: preferred over the rest."""


def _clean(sentence: str) -> bool:
    holes, markup = placeholders_and_markup(sentence, "")
    return (len(WORD.findall(sentence)) >= MIN_SENTENCE_WORDS and not holes and not markup
            and len(content_stems(sentence, 3)) >= MIN_SENTENCE_CONTENT_WORDS
            and not has_first_person(sentence))


def rank(items: list[str], written: list[str] | None = None) -> list[_Ranked]:
    """The sentences best first: clean ones before the rest, then by LexRank rating.
    `written`: each sentence as its source writes it (see `extractive_summary`), judged
    clean in its place."""
    import numpy

    summarizer = _summarizer()  # first: sumy and nltk imported once, under its lock
    from sumy.models.dom import ObjectDocumentModel, Paragraph, Sentence

    document = ObjectDocumentModel([Paragraph([Sentence(s, _TOKENIZER) for s in items])])
    order: list = []

    def keep_all(infos):  # sumy passes the sentence infos sorted by rating, best first
        order.extend(infos)
        return infos

    # LexRank's power iteration divides by a zero norm when no two sentences share a word:
    # the ratings are then NaN, which rank as 0 (the document order decides)
    with numpy.errstate(invalid="ignore", divide="ignore"):
        summarizer(document, keep_all)
    rating = {info.order: _finite(float(info.rating)) for info in order}  # order: index in `items`
    judged = written or items
    ranked = [_Ranked(i, rating.get(i, 0.0), _clean(s) and _clean(judged[i])) for i, s in enumerate(items)]
    return sorted(ranked, key=lambda r: (not r.clean, -r.rating, r.index))


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def _redundant(sentence: str, picked: list[str]) -> bool:
    mine = content_stems(sentence, 3)
    for other in picked:
        theirs = content_stems(other, 3)
        if mine and len(mine & theirs) / len(mine | theirs) > MAX_OVERLAP:
            return True
    return False


def cut(sentence: str, max_chars: int) -> str:
    """The sentence's head within max_chars, cut at a word boundary (no ellipsis added:
    the result stays a verbatim piece of the evidence)."""
    if len(sentence) <= max_chars:
        return sentence
    head = sentence[:max_chars + 1]
    space = head.rfind(" ")
    head = head[:space] if space > 0 else sentence[:max_chars]
    return head.rstrip(_TRAILING) or head


def _fit(items: list[str], picks: list[_Ranked], max_chars: int) -> str:
    """Join the picks in document order, dropping the lowest-rated until they fit."""
    picks = list(picks)
    while len(picks) > 1 and sum(len(items[p.index]) + 1 for p in picks) - 1 > max_chars:
        picks.remove(min(picks, key=lambda p: (p.clean, p.rating, -p.index)))
    if not picks:
        return ""
    return cut(" ".join(items[p.index] for p in sorted(picks, key=lambda p: p.index)), max_chars)


def _grounded(choices: list[str], evidence: str | list[str], task: str, policy: GroundingPolicy) -> str:
    """The first choice that passes the check (a verbatim piece can still be too short, or
    lack content words); the first one when none does."""
    for choice in choices:
        if choice and check(choice, evidence, task=task, policy=policy).ok:
            return choice
    return choices[0]


def _heads(items: list[str], ranked: list[_Ranked], max_chars: int) -> list[str]:
    """Second choices: each sentence, best first, cut to max_chars."""
    return [cut(items[r.index], max_chars) for r in ranked]


def extractive_summary(text: str, *, max_chars: int, max_sentences: int = 2,
                       policy: GroundingPolicy = GroundingPolicy(), written: str | None = None) -> str:
    """A leaf's fallback summary: its most central sentences (at most `max_sentences`,
    at most `max_chars`), in document order, that pass the grounding check under `policy`
    against `text`. "" when the text has no words.

    `written`: the text as its source writes it when `text` is its readable copy (the same
    length, `chunker.document.readable`). Clean sentences are still preferred by what the
    source holds at their place: a sentence built around a link, a code span, a tooltip or
    an include is no plain prose because its markup was masked (it reads incomplete without
    it), so the copy changes how the summary reads, not which sentences it prefers."""
    spans = _spans(text)
    items = [piece for piece, _ in spans]
    if not items:
        return ""
    if written is not None and len(written) != len(text):
        raise ValueError("written must be the text's source, of the same length")
    ranked = rank(items, [" ".join(written[a:b].split()) for _, (a, b) in spans] if written else None)
    return _summary(items, ranked, text, max_chars, max_sentences, policy)


def summary_of_sentences(items: list[str], *, max_chars: int, max_sentences: int = 2,
                         policy: GroundingPolicy = GroundingPolicy()) -> str:
    """As `extractive_summary`, of sentences already split (whitespace collapsed): a text
    segmented once is not segmented again for each part of it."""
    items = [s for s in items if WORD.search(s)]
    if not items:
        return ""
    return _summary(items, rank(items), " ".join(items), max_chars, max_sentences, policy)


def _summary(items: list[str], ranked: list[_Ranked], evidence: str, max_chars: int, max_sentences: int,
             policy: GroundingPolicy) -> str:
    picks: list[_Ranked] = []
    used = -1
    for r in ranked:
        if len(picks) == max_sentences:
            break
        if (used + 1 + len(items[r.index]) <= max_chars and (r.clean or not picks or not picks[0].clean)
                and not _redundant(items[r.index], [items[p.index] for p in picks])):
            picks.append(r)
            used += 1 + len(items[r.index])
    first = _fit(items, picks or ranked[:1], max_chars)
    return _grounded([first, *_heads(items, ranked, max_chars)], evidence, "summarize", policy)


def _parts(n: int, k: int) -> list[range]:
    """n items in k contiguous, near-equal parts (fewer when n < k)."""
    k = max(1, min(k, n))
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [range(bounds[i], bounds[i + 1]) for i in range(k)]


def summary_of_summaries(summaries: list[str], *, max_chars: int, max_sentences: int = 2,
                         policy: GroundingPolicy = GroundingPolicy()) -> str:
    """A block's fallback summary, from its children's summaries.

    Centrality is computed over all the children's sentences; the children are split into
    `max_sentences` contiguous parts and each part gives its most central sentence, so the
    summary spans the block instead of repeating its first child. The result passes the
    grounding check under `policy` against the summaries. "" when there are no words.
    """
    items: list[str] = []
    owner: list[int] = []
    for child, summary in enumerate(summaries):
        for s in sentences(summary):
            items.append(s)
            owner.append(child)
    if not items:
        return ""
    ranked = rank(items)
    picks: list[_Ranked] = []
    for part in _parts(len(summaries), max_sentences):
        best = next((r for r in ranked if owner[r.index] in part), None)
        if best is not None:
            picks.append(best)
    for r in ranked:  # fewer children than sentences wanted: the next most central ones
        if len(picks) >= max_sentences:
            break
        if r not in picks and not _redundant(items[r.index], [items[p.index] for p in picks]):
            picks.append(r)
    first = _fit(items, picks, max_chars)
    return _grounded([first, *_heads(items, ranked, max_chars)], summaries, "synthesize", policy)


def document_overview(summaries: list[str], *, max_chars: int, max_sentences: int = 3,
                      policy: GroundingPolicy = GroundingPolicy()) -> str:
    """The root's fallback summary, describing the whole document: the most central
    sentence of each of `max_sentences` stretches of the top-level children's summaries
    (beginning, middle, end), not the first passage."""
    return summary_of_summaries(summaries, max_chars=max_chars, max_sentences=max_sentences, policy=policy)
