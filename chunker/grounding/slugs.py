"""Slugs from the node's own words.

The model's slug is kept only when every one of its words occurs in the node's text
(case-insensitive, simple plural and possessive variants allowed), so `cinderella-story1234567890`
or `snippet-of-text-2018-34-slash-sitemap` never name a passage that says nothing of the
kind. Otherwise the slug is built from YAKE's key phrases of the text (a maintained,
offline keyword extractor). File-type words, years and digit runs appear only when the
text itself contains them. The output is ASCII kebab-case; `chunker.output.slugs.sanitize`
still runs after it (length cap, reserved names, uniqueness).
"""

from __future__ import annotations

import functools

import re

from slugify import slugify

from chunker.grounding.text import STOP_WORDS, numbers, plain, variants, words

FILE_TYPE_WORDS = frozenset(["json", "md", "txt", "html", "htm", "pdf", "xml", "csv", "yaml", "yml",
                             "sitemap", "doc", "docx", "py", "js", "png", "jpg", "url", "www", "http",
                             "https", "com"])
"""Words of file names and web addresses: never taken from YAKE's key phrases (they come from
a URL or a file name in the text, not from what it says); in a model's slug only when the
text itself uses the word (a chapter about JSON)."""
YAKE_NGRAM = 3
"""Longest key phrase YAKE returns, in words: a slug is a short phrase."""
YAKE_TOP = 8
"""Key phrases asked of YAKE; the slug takes the best ones that pass the filters."""
YAKE_PHRASES = 2
"""Key phrases joined into one slug at most (their distinct words, up to max_words)."""
_SLUG_WORD = re.compile(r"[a-z]+|\d+")


def _text_words(text: str) -> set[str]:
    """The text's words, their plural variants and their ASCII forms (as slugify writes them)."""
    found = set(words(text))
    found |= {_ascii_form(w) for w in found}
    return found | {v for w in found for v in variants(w)}


@functools.lru_cache(maxsize=1 << 16)
def _ascii_form(word: str) -> str:
    """A word as slugify writes it (asked for the same words of every node of a tree: cached)."""
    return slugify(word, lowercase=True, separator="")


def _allowed(word: str, text_words: set[str], text_numbers: set[str]) -> bool:
    """A slug word the text supports: a digit run the text contains, or a word it uses."""
    if word.isdigit():
        return (word.lstrip("0") or "0") in text_numbers
    return word in text_words


def _model_words(model_slug: str) -> list[str]:
    ascii_slug = slugify(plain(model_slug).replace("'", ""), lowercase=True, separator="-")
    return [w for w in ascii_slug.split("-") if w]


def _keyphrase_slug(text: str, text_words: set[str], text_numbers: set[str], max_words: int) -> str:
    import yake  # here, not at the top: its import takes 0.1 s that `chunker --help` must not pay

    extractor = yake.KeywordExtractor(lan="en", n=YAKE_NGRAM, top=YAKE_TOP)
    chosen: list[str] = []
    phrases = 0
    for phrase, _score in extractor.extract_keywords(text):
        phrase_words = [w for w in _SLUG_WORD.findall(slugify(phrase, lowercase=True, separator=" "))
                        if w not in STOP_WORDS]  # "pious and good" -> pious-good
        if (not phrase_words or all(w.isdigit() for w in phrase_words)
                or any(w in FILE_TYPE_WORDS or not _allowed(w, text_words, text_numbers)
                       for w in phrase_words)):
            continue
        if set(phrase_words) & set(chosen):  # "rich man fell" after "man fell sick": no news
            continue
        if chosen and len(chosen) + len(phrase_words) > max_words:
            break
        chosen.extend(phrase_words)
        phrases += 1
        if phrases == YAKE_PHRASES or len(chosen) >= max_words:
            break
    if not chosen:  # YAKE found nothing usable: the text's first content words
        chosen = [w for w in _SLUG_WORD.findall(slugify(text[:400], lowercase=True, separator=" "))
                  if w not in STOP_WORDS and not w.isdigit()][:max_words]
    return "-".join(chosen[:max_words])


def grounded_slug(model_slug: str | None, text: str, *, max_words: int = 6,
                  summary: str | None = None) -> str:
    """A kebab-case slug made of the node's own words.

    `text` is the node's own text (a leaf's original, a block's children's summaries). The
    model's slug is kept (its first `max_words` words) when all its words occur in the text
    or in `summary` (the node's grounded summary); otherwise YAKE key phrases of the summary
    when given (short and central: better phrases), else of the text. "" only when neither
    has a word.
    """
    both = f"{text}\n\n{summary}" if summary else text
    text_words = _text_words(both)
    text_numbers = set(numbers(both))
    model = _model_words(model_slug or "")
    if model and all(_allowed(w, text_words, text_numbers) for w in model):
        return "-".join(model[:max_words])
    if summary:
        slug = _keyphrase_slug(summary, text_words, text_numbers, max_words)
        if slug:
            return slug
    return _keyphrase_slug(text, text_words, text_numbers, max_words)
