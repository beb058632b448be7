"""Words, terms and numbers in text: one definition of each, for every module that splits text.

- A **word** is a run of letters in any script (no digits, no underscore) whose parts may
  be joined by an apostrophe ("Taylor's", "don't") and, where a compound is one word, by a
  hyphen ("step-mother"). Text whose curly quotes were not straightened first
  (`chunker.grounding.text.plain`) takes the curly apostrophe as a joiner too.
- A **name token** starts with a letter and runs on through letters, digits, underscores and
  the joiners ("R2-D2", "Taylor's"): the unit that names are made of.
- A **term** is a run of letters or digits (BM25's unit: "Taylor's" is "Taylor" and "s").
- A **number** is a run of digits with inner `.` or `,` separators ("1,250.5"), not glued to a
  word or to another number.

Only the regular expressions live here (no stemmer, no stop words), so any module can import
them cheaply; what counts as a *content* word is `chunker.grounding.text.content_words`.
"""

from __future__ import annotations

import functools
import re

_LETTERS = r"[^\W\d_]+"
_NUMBER = r"\d+(?:[.,]\d+)*"


@functools.cache
def word_pattern(joiners: str = "'") -> re.Pattern[str]:
    """Words whose parts may be joined by one of the characters in `joiners`."""
    return re.compile(rf"{_LETTERS}(?:[{re.escape(joiners)}]{_LETTERS})*")


@functools.cache
def name_token_pattern(joiners: str = "'-") -> re.Pattern[str]:
    """Name tokens: a letter, then letters, digits, underscores or characters of `joiners`."""
    return re.compile(rf"[^\W\d_][\w{re.escape(joiners)}]*")


@functools.cache
def long_term_pattern(min_chars: int) -> re.Pattern[str]:
    """Terms of at least `min_chars` characters, and numbers (where no such term starts:
    "v2.5" gives "2.5"; a number may follow a letter here, unlike `NUMBER`)."""
    return re.compile(rf"[^\W_]{{{min_chars},}}|{_NUMBER}")


WORD = word_pattern("'")
"""Words with apostrophes, in straightened text."""
WORD_OR_COMPOUND = word_pattern("'-")
"""Words with apostrophes and hyphenated compounds, in straightened text."""
TERM = re.compile(r"[^\W_]+")
NUMBER = re.compile(rf"(?<![\w.,]){_NUMBER}")
