"""Meta talk, first person, placeholders and markup: prose that is about the text, not from it.

Each detector returns the offending fragments of a model text. A fragment that also occurs
in the evidence is not offending: a chapter that says "this chapter", a Rust listing with
braces, a story with an ellipsis. First person is stricter (every dialogue has an "I"): a
sentence with a first-person pronoun passes only when it is copied verbatim from the
evidence, unless the task may keep the evidence's voice (a leaf's rewrite).
"""

from __future__ import annotations

import re

from chunker.grounding.text import normalised, plain

_I = re.IGNORECASE
META = [
    re.compile(r"\b(?:the|this|that|above|following|given|provided|original|present)\s+"
               r"(?:text|passage|excerpt|document|section|chapter|story|article|paragraph|extract|"
               r"snippet|book|narrative|tale|content|summary|version|input|source)s?\b", _I),
    re.compile(r"\b(?:the|this)\s+(?:author|writer|reader)s?\b", _I),
    re.compile(r"\b(?:it|this|that)(?:'s|\s+is)\s+(?:about|a\s+story|a\s+passage|a\s+text)\b(?!\s+to\b)", _I),
    re.compile(r"\b(?:here\s+is|here's|below\s+is)\b", _I),
    re.compile(r"\b(?:summary|slug|context|answer|output)\s*:", _I),
    re.compile(r"\bas\s+an\s+ai\b|\blanguage\s+model\b", _I),
]
"""Phrases that talk about the document instead of reporting it."""

PLACEHOLDERS = [
    re.compile(r"\.{3,}|\u2026"),
    re.compile(r"\{\{?\s*[\w .-]*\s*\}?\}"),
    re.compile(r"\[\s*(?:summary|slug|text|title|name|placeholder|todo|tbd|insert[^\]]*|your[^\]]*|\.*)\s*\]", _I),
    re.compile(r"<\s*(?:summary|slug|text|title|name|placeholder)\s*>", _I),
    re.compile(r"\b(?:lorem|ipsum|placeholder|tbd|todo|n/a|xxx+)\b", _I),
]
"""Template slots and filler a model echoes instead of writing."""

MARKUP = [
    re.compile(r"<!--|-->|</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>"),
    re.compile(r"https?://\S+|\bwww\.\S+", _I),
    re.compile(r"\b[\w-]+\.(?:json|md|txt|html?|pdf|xml|csv|ya?ml|py|js|ts|docx?|png|jpe?g|gif)\b", _I),
    re.compile(r"\b(?:json|sitemap|html|xml|yaml|txt|pdf|md|csv|url)\b", _I),
    re.compile(r"\"\w+\"\s*:"),
    re.compile(r"[{}]|`+|\[\[|\]\]|\]\(|^\s*#{1,6}\s", re.MULTILINE),
]
"""Code, JSON, HTML, URLs and file names: markup that leaked into prose."""

FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself|we|we're|we've|we'll|"
                          r"us|our|ours|ourselves)\b")
"""First-person pronouns; case-sensitive for "I" and "us" ("US" is a country), any case otherwise."""
_FIRST_PERSON_ANY = re.compile(r"\b(?:me|my|mine|myself|we|we're|we've|we'll|our|ours|ourselves)\b", _I)
_SENTENCE = re.compile(r"[^.!?\u2026]+(?:[.!?\u2026]+[\"')\]]*|$)")


def occurs(fragment: str, evidence: str) -> bool:
    """Whether a normalised fragment occurs in the normalised evidence, as whole words
    where it starts or ends with a word character ("url" is not in "plural")."""
    head = r"(?<!\w)" if fragment[:1].isalnum() else ""
    tail = r"(?!\w)" if fragment[-1:].isalnum() else ""
    return re.search(head + re.escape(fragment) + tail, evidence) is not None


def _fragments(patterns: list[re.Pattern[str]], text: str, evidence: str) -> tuple[list[str], str]:
    """Matches absent from the (normalised) evidence, and the text with every match blanked."""
    found: list[str] = []
    for pattern in patterns:
        matches = list(pattern.finditer(text))
        for m in matches:
            fragment = m.group(0)
            key = normalised(fragment)
            if key and not occurs(key, evidence):
                found.append(fragment.strip())
        if matches:  # blank them so a later pattern does not count them again
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return found, text


def meta_talk(text: str, evidence: str) -> list[str]:
    return _fragments(META, plain(text), evidence)[0]


def placeholders_and_markup(text: str, evidence: str) -> tuple[list[str], list[str]]:
    """(placeholders, markup); a placeholder's braces are not counted again as markup."""
    holes, rest = _fragments(PLACEHOLDERS, plain(text), evidence)
    return holes, _fragments(MARKUP, rest, evidence)[0]


def has_first_person(text: str) -> bool:
    return bool(FIRST_PERSON.search(text) or _FIRST_PERSON_ANY.search(text))


def first_person(text: str, evidence: str, *, keep_voice: bool) -> list[str]:
    """Sentences with a first-person pronoun that are not copied from the (normalised)
    evidence; none when `keep_voice` (the task may keep a first-person evidence's voice)."""
    text = plain(text)
    if keep_voice:
        return []
    out = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0).strip()
        if sentence and has_first_person(sentence) and normalised(sentence) not in evidence:
            out.append(sentence)
    return out
