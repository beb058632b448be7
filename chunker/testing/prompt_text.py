"""How the scripted model reads a prompt and words its answers: pure text helpers, kept apart
from the model's task logic (`chunker/testing/scripted.py`)."""

from __future__ import annotations

import re


def content_words(text: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"[^\W\d_]{4,}", text)}


def tag(text: str, name: str) -> str:
    """The content of the first <name>...</name>; document text may contain fake tags,
    so the closing tag searched for is the last one."""
    start = text.find(f"<{name}>\n")
    end = text.rfind(f"\n</{name}>")
    if start < 0 or end < start:
        return ""
    return text[start + len(name) + 3:end]


def first_sentence(text: str) -> str:
    m = re.match(r"(.{1,200}?[.!?])(\s|$)", text)
    if m:
        return m.group(1).strip()
    head = text[:200]
    return (head.rsplit(" ", 1)[0] if len(text) > 200 and " " in head else head).strip() \
        or "An empty passage."


def slugish(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text)[:5]
    return "-".join(w.lower() for w in words) or "passage"
