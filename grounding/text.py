"""Words, stems, numbers and names: the features the grounding check compares.

Words are lower-cased, a possessive `'s` is dropped, and a hyphenated compound counts as
its parts (and, in the evidence, also as the joined word, so "stepmother" matches
"step-mother"). Stems come from sumy's Snowball stemmer and stop words from sumy's bundled
English list: both work offline, no NLTK data needed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from sumy.nlp.stemmers import Stemmer
from sumy.utils import get_stop_words

STOP_WORDS: frozenset[str] = frozenset(get_stop_words("english"))
_STEMMER = Stemmer("english")

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                         "\u2013": "-", "\u2014": "-"})
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*")
NUMBER_WORDS: dict[str, int] = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9,
}
"""Spelled-out numbers compared with digits. "one" is left out on purpose: it is far more
often a pronoun ("one of the sisters") than a count; inside a compound ("twenty-one") it counts."""
_SPELLED = re.compile(r"\b(?:(?:%s|one|and)[\s-]+)*(?:%s)\b" % (
    "|".join(NUMBER_WORDS), "|".join(NUMBER_WORDS)) + r"(?:[\s-]+one\b)?", re.IGNORECASE)


def plain(text: str) -> str:
    """Curly quotes and dashes made ASCII, so "Taylor's" matches "Taylor’s"."""
    return text.translate(_QUOTES)


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


def compounds(text: str) -> list[str]:
    """Hyphenated compounds joined: "step-mother" -> "stepmother"."""
    return [m.group(0).replace("-", "").lower() for m in _COMPOUND.finditer(plain(text))]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _STEMMER(word)


def variants(word: str) -> set[str]:
    """Simple plural forms of a word, both ways: "sister" <-> "sisters", "box" <-> "boxes"."""
    out = {word, word + "s", word + "es"}
    if word.endswith("es"):
        out.add(word[:-2])
    if word.endswith("s"):
        out.add(word[:-1])
    return out


def content_stems(text: str, min_chars: int) -> set[str]:
    """Distinct stems of the text's content words (not stop words, at least `min_chars` letters)."""
    return {stem(w) for w in words(text) if len(w) >= min_chars and w not in STOP_WORDS}


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
    for m in _NUMBER.finditer(text):
        surface = m.group(0).rstrip(".,")
        digits = surface
        if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", digits):
            digits = digits.replace(",", "")
        head, dot, tail = digits.partition(".")
        digits = (head.lstrip("0") or "0") + (dot + tail if dot else "")
        out.setdefault(digits, surface)
    for m in _SPELLED.finditer(text):
        phrase = m.group(0).strip()
        value = _spelled_value(phrase)
        if value is not None:
            out.setdefault(str(value), phrase)
    return out
