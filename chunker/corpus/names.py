"""File-name conventions: how the names authors give their files order and group them.

Index and README documents come first; digit runs compare as numbers ('9-x' before '10-x'),
so ISO dates compare chronologically; a dated name's year-month, or a name's first word, is
the prefix that runs of files share.
"""

from __future__ import annotations

import posixpath
import re

from .model import PlanNode
from .signals import INDEX_STEMS, is_index, readable_name

_DIGITS = re.compile(r"([0-9]+)")
_DATED = re.compile(r"^(\d{4}-\d{2})-\d{2}(?!\d)")
_WORD_END = re.compile(r"[-_ ]")

Child = PlanNode | str


def natural(name: str) -> tuple[str | int, ...]:
    """Natural sort: digit runs compare as numbers ('9-x' before '10-x'), so ISO dates
    ('2023-01-05') compare chronologically; text runs compare case-insensitively."""
    return tuple(int(t) if i % 2 else t.casefold() for i, t in enumerate(_DIGITS.split(name)))


def index_rank(rel: str) -> tuple[int, str]:
    stem = posixpath.splitext(posixpath.basename(rel))[0].casefold()
    return INDEX_STEMS.index(stem), rel


def order_key(child: Child) -> tuple[int, int, tuple[str | int, ...], int, str]:
    """Index documents first, then documents and folders interleaved by natural name order."""
    if isinstance(child, PlanNode):
        return (1, 0, natural(posixpath.basename(child.key[4:])), 1, child.key)
    name = posixpath.basename(child)
    if is_index(child):
        return (0, index_rank(child)[0], (), 0, child)
    return (1, 0, natural(posixpath.splitext(name)[0]), 0, child)


def name_prefix(rel: str) -> tuple[str, str]:
    """(prefix to compare, its title): a dated name's year-month, else the name's first word."""
    stem = posixpath.splitext(posixpath.basename(rel))[0]
    dated = _DATED.match(stem)
    if dated:
        return dated.group(1), dated.group(1)
    word = _WORD_END.split(stem, maxsplit=1)[0]
    return word.casefold(), readable_name(word, is_file=False)
