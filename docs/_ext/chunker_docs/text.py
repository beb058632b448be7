"""Markdown helpers shared by the generated pages."""

from __future__ import annotations

import re


def one_line(text: str | None) -> str:
    """Docstrings and help texts as one paragraph (their hard line wraps are spaces)."""
    return re.sub(r"\s+", " ", text or "").strip()


def cell(text: str | None) -> str:
    """Text that stays inside one cell of a pipe table."""
    return one_line(text).replace("|", "\\|")


def code(text: object) -> str:
    """Inline code that holds any text, backticks included."""
    s = str(text)
    fence = "``" if "`" in s else "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def paragraphs(text: str | None) -> str:
    """A docstring's paragraphs, each as one line, blank lines between."""
    parts = re.split(r"\n\s*\n", (text or "").strip())
    return "\n\n".join(one_line(p) for p in parts if p.strip())
