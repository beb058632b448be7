"""Display math as `EquationRecord`s: `$$...$$`, `\\[...\\]`, amsmath environments and
```` ```math ```` fences, with the equation's label and the variables the text defines.

The label is its `\\tag{}` or `\\label{}`, or a number `(3)` written after it. A variable's
definition comes from the sentence after the equation ("where *x* is the rate and $n$ the
number of periods"): each definition keeps its span in the text.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from chunker.document.markdown_parse import LineOffsets
from chunker.document.markdown_records import DocumentStructure
from chunker.document.structure import section_of
from chunker.structured.records import EquationRecord, Variable

_MATH_TOKENS = ("math_block", "math_block_label", "amsmath")
_BRACKET = re.compile(r"^[ \t]*\\\[(.+?)\\\][ \t]*(\(\d+[a-z]?\))?[ \t]*$", re.DOTALL | re.MULTILINE)
_TAG = re.compile(r"\\(?:tag|label)\{([^}]*)\}")
_NUMBER_AFTER = re.compile(r"^\s*\((\d+(?:\.\d+)*[a-z]?)\)")
_WHERE = re.compile(r"\bwhere\b", re.IGNORECASE)
_SYMBOL = r"(?:\$(?P<math>[^$]{1,40})\$|\*(?P<em>[^*\s]{1,20})\*|_(?P<em2>[^_\s]{1,20})_|`(?P<code>[^`]{1,20})`)"
_DEFINITION = re.compile(
    rf"{_SYMBOL}\s+(?:is|are|denotes|stands for|represents|=)?\s*(?P<def>[^,;.$*]+?)(?=\s*(?:,|;|\.(?:\s|$)|\band\b\s*[$*_`]|$))",
    re.IGNORECASE)
WHERE_WINDOW = 600
"""How far past an equation its "where ..." definitions are looked for (characters)."""


def parse_equations(text: str, tokens: list[Token], structure: DocumentStructure | None) -> list[EquationRecord]:
    lines = LineOffsets(text)
    found: list[tuple[int, int, str, str | None]] = []
    for tok in tokens:
        if tok.type in _MATH_TOKENS or (tok.type == "fence" and tok.info.strip() == "math"):
            start, end = lines.span(tok)
            if tok.type == "amsmath":
                end = lines(tok.map[0] + tok.content.count("\n") + 1)
            label = getattr(tok, "info", "") if tok.type == "math_block_label" else None
            found.append((start, end, tok.content.strip(), label or None))
    for m in _BRACKET.finditer(text):
        if not any(s <= m.start() < e for s, e, _, _ in found):
            found.append((m.start(), m.end(), m.group(1).strip(), (m.group(2) or "").strip("()") or None))
    found.sort()
    out = []
    for k, (start, end, latex, label) in enumerate(found):
        tag = _TAG.search(latex)
        if label is None and tag:
            label = tag.group(1)
        if label is None:
            after = _NUMBER_AFTER.match(text[end:end + 20])
            label = after.group(1) if after else None
        section = section_of(start, structure).header_path if structure is not None else []
        out.append(EquationRecord(id=f"equation-{k + 1}", span=(start, end), latex=latex, label=label,
                                  variables=variables_after(text, end), section=section))
    return out


def variables_after(text: str, end: int) -> list[Variable]:
    """The definitions of the "where ..." clause that follows an equation, if one does."""
    window = text[end:end + WHERE_WINDOW]
    where = _WHERE.search(window)
    if where is None or window[:where.start()].count("\n\n") > 1:
        return []
    stop = window.find("\n\n", where.end())
    clause_end = end + (stop if stop >= 0 else len(window))
    out = []
    for m in _DEFINITION.finditer(text, end + where.end(), clause_end):
        symbol = m.group("math") or m.group("em") or m.group("em2") or m.group("code")
        definition = m.group("def").strip()
        if symbol and definition:
            out.append(Variable(symbol=symbol.strip(), definition=definition,
                                span=(m.start("def"), m.start("def") + len(m.group("def").rstrip()))))
    return out
