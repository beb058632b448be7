"""Words, stems, numbers and names: the features the grounding check compares.

Words are lower-cased, a possessive `'s` is dropped, and a hyphenated compound counts as
its parts (and, in the evidence, also as the joined word, so "stepmother" matches
"step-mother"). Stems come from sumy's Snowball stemmer and stop words from sumy's bundled
English list: both work offline, no NLTK data needed.
"""

from __future__ import annotations

import pkgutil
import re
import threading
from functools import cache

from chunker.document.words import NUMBER, WORD, WORD_OR_COMPOUND

# sumy's bundled list, read as sumy.utils.get_stop_words reads it but without importing
# sumy.utils (requests and pycountry: 0.1-0.2 s that `chunker --help` must not pay)
_STOP_LIST = pkgutil.get_data("sumy", "data/stopwords/english.txt").decode("utf-8")
STOP_WORDS: frozenset[str] = frozenset(w.rstrip() for w in _STOP_LIST.splitlines() if w)

_QUOTES = (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'), ("\u2013", "-"),
           ("\u2014", "-"))
NUMBER_WORDS: dict[str, int] = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9,
}
"""Spelled-out numbers compared with digits. "one" is left out on purpose: it is far more
often a pronoun ("one of the sisters") than a count; inside a compound ("twenty-one") it counts."""
_NUMBER_WORD = re.compile(r"\b(?:%s|one|and)\b" % "|".join(NUMBER_WORDS))
"""Number words (and the "one" and "and" inside compounds), matched in lower-cased text."""
_RUN_GAP = re.compile(r"[\s-]+")
"""What may separate two words of one spelled number: spaces or a hyphen ("three, four" is two)."""


def plain(text: str) -> str:
    """Curly quotes and dashes made ASCII, so "Taylor's" matches "Taylor’s"."""
    for curly, straight in _QUOTES:  # chained replace: ~30x faster than str.translate here
        text = text.replace(curly, straight)
    return text


def normalised(text: str) -> str:
    """Lower-case, ASCII quotes, whitespace collapsed: the form used for substring tests."""
    return " ".join(plain(text).lower().split())


def base(word: str) -> str:
    """A lower-case word without a possessive ending: "King's" -> "king", "sisters'" -> "sisters"."""
    word = word.lower()
    if word.endswith("'s"):
        return word[:-2]
    return word.rstrip("'")


def words(text: str) -> list[str]:
    """The text's words in order, lower-cased, possessives dropped, compounds split."""
    return [base(m.group(0)) for m in WORD.finditer(plain(text))]


def words_and_compounds(text: str) -> tuple[list[str], list[str]]:
    """`words(text)`, and its hyphenated compounds joined ("step-mother" -> "stepmother"),
    in one pass (the evidence needs both)."""
    out: list[str] = []
    joined: list[str] = []
    for token in WORD_OR_COMPOUND.findall(plain(text).lower()):
        if "-" in token:
            parts = token.split("-")
            out.extend(base(p) for p in parts)
            joined.append(base("".join(parts)))
        elif "'" in token:
            out.append(base(token))
        else:  # the common case, kept cheap: evidence texts have thousands of words
            out.append(token)
    return out, joined


_STEMS: dict[str, str] = {}


SUMY_IMPORTS = threading.RLock()
"""Held while sumy (and with it nltk) is first imported, here, for LexRank
(`chunker/grounding/extractive.py`) and for the lexical embeddings' stems and stop words
(`chunker/embeddings/lexical.py`): threads importing nltk at once (a document's regions, its
leaves under `source`, a run's warm-up thread: `warm_up_in_background`) leave it partially
initialised, or deadlock in its circular imports."""


def _stemmer():
    with SUMY_IMPORTS:
        return _built_stemmer()


@cache
def _built_stemmer():
    # built at the first stem: importing it imports nltk, and nltk scipy.stats (about 1 s)
    from sumy.nlp.stemmers import Stemmer

    return Stemmer("english")


def stem(word: str) -> str:
    """The word's Snowball stem, memoised (a plain dict: cheaper than lru_cache per call)."""
    found = _STEMS.get(word)
    if found is None:
        found = _STEMS[word] = _stemmer()(word)
    return found


def variants(word: str) -> set[str]:
    """Simple plural forms of a word, both ways: "sister" <-> "sisters", "box" <-> "boxes"."""
    out = {word, word + "s", word + "es"}
    if word.endswith("es"):
        out.add(word[:-2])
    if word.endswith("s"):
        out.add(word[:-1])
    return out


def content_words(text: str, min_chars: int) -> list[str]:
    """The text's content words, in order: its `words` of at least `min_chars` letters that
    are not stop words."""
    return [w for w in words(text) if len(w) >= min_chars and w not in STOP_WORDS]


def content_stems(text: str, min_chars: int) -> set[str]:
    """Distinct stems of the text's content words."""
    return {stem(w) for w in content_words(text, min_chars)}


def _spelled_value(phrase: str) -> int | None:
    total, current = 0, 0
    for token in re.split(r"[\s-]+", phrase.lower()):
        if token == "and":
            continue
        value = 1 if token == "one" else NUMBER_WORDS.get(token)
        if value is None:
            return None
        if value in (100, 1000, 10**6, 10**9):
            current = max(current, 1) * value
            if value > 100:
                total, current = total + current, 0
        else:
            current += value
    return total + current


def numbers(text: str) -> dict[str, str]:
    """Numbers in the text, as {normalised value: surface form}.

    "1,000" and "1000" both give "1000"; "05" gives "5"; "1980s" and "19th" give their
    digits; spelled-out numbers give their value ("twenty-one" -> "21").
    """
    text = plain(text)
    out: dict[str, str] = {}
    for m in NUMBER.finditer(text):
        surface = m.group(0).rstrip(".,")
        digits = surface
        if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", digits):
            digits = digits.replace(",", "")
        head, dot, tail = digits.partition(".")
        digits = (head.lstrip("0") or "0") + (dot + tail if dot else "")
        out.setdefault(digits, surface)
    for start, end, tokens in _spelled_runs(text.lower()):
        value = _spelled_value(" ".join(tokens))
        if value is not None:
            out.setdefault(str(value), text[start:end])
    return out


def _spelled_runs(lowered: str) -> list[tuple[int, int, list[str]]]:
    """Runs of number words ("twenty-one", "two hundred and fifty"): (start, end, words).
    A lone "one" is no run (see NUMBER_WORDS); "and" joins number words, never ends a run."""
    runs: list[tuple[int, int, list[str]]] = []
    run: list[tuple[int, int, str]] = []

    def close() -> None:
        while run and run[-1][2] == "and":
            run.pop()
        if any(w in NUMBER_WORDS for _, _, w in run):
            runs.append((run[0][0], run[-1][1], [w for _, _, w in run]))
        run.clear()

    for m in _NUMBER_WORD.finditer(lowered):
        if run and not _RUN_GAP.fullmatch(lowered, run[-1][1], m.start()):
            close()
        if m.group(0) != "and" or run:
            run.append((m.start(), m.end(), m.group(0)))
    close()
    return runs
