"""The table route of the targeted lookup: a question about a value answered by its table row.

`TableRoute` scores every row of the tree's tables by how much of its label the question
writes (each word weighted by how rare it is among the row labels; a label written whole as a
symbol, `!=`, `b'...'`, counts whole), then by what else the question names of where the row
sits: its group labels (`Operating income` above `Domestic`), its table's caption and section,
its columns. It answers when a row's label is named and the question asks for a value: it
names a column or the table's label column, asks for a number (`how much`, `what percentage`,
`what was`), names a period (`Q1 FY25`, `fiscal 2024`, `2023`, `as of`), or writes a symbol
label whole; a question that asks why or asks to explain goes to the search instead. The answer
is the row (the cells of the columns it names first), with its labels, the table's unit, and
the node and characters it comes from; rows that score within `TIE_MARGIN` of the best (the same
label in two tables the question does not tell apart) follow it while the budget lasts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from chunker.document.tokens import count_tokens
from chunker.navigation.targeted import TargetedAnswer
from chunker.structured.checks import norm_label
from chunker.structured.records import Row, TableRecord

NUMBER_QUESTION = re.compile(
    r"\b(how (much|many|large|big|high|low)|which value|value|amount|rate|percent|percentage|share|"
    r"total|number of|figure|margin|growth|change|size|length|what (was|were)|give me|tell me)\b|%",
    re.IGNORECASE)
"""Words that ask for a number or a reported figure (a bare "what is" does not: a definition)."""
PERIOD = re.compile(
    r"\b([qh][1-4]|[1-4]q|fy\s?'?\d{2,4}|fiscal|quarter(ly)?|year[- ]over[- ]year|prior[- ]year|"
    r"(19|20)\d\d|as of|as at|ended|january|february|march|april|may|june|july|august|september|"
    r"october|november|december)\b", re.IGNORECASE)
"""A period named: the question is about a column of figures."""
EXPLAIN = re.compile(r"^\W*(why|how come|explain|describe|what (caused|drove|led to|explains|contributed))\b",
                     re.IGNORECASE)
"""A question that asks for reasons, not a value: the search answers it."""
TABLE_PHRASE = re.compile(r"\b(?:in|from|on|according to)\s+the\s+((?:(?!\b(?:in|from|on)\s+the\b)[^?.;])+?)"
                          r"\s+table\b(?!.*\btable\b)", re.IGNORECASE)
"""Where the question names the table ("... in the capital expenditures table", the last such
phrase, from its nearest `in the`): those words say which table, not which row (`Free cash
flow` in "the cash provided by operations to free cash flow table")."""
ORDINALS = frozenset("first second third fourth fifth last current prior previous next".split())
"""With the period words (`PERIOD`), what a question says about columns, not about a table."""
_SYMBOLIC = re.compile(r"[^\w\s]")
STOP = frozenset("the a an of in for and or to is was were are what which how did does do by on at "
                 "as with from this that it its be table row column value".split())
VERBATIM_BONUS = 20.0
"""A row whose whole label the question writes verbatim (a symbol such as `b"..."`) is the row
it names, before any row that merely shares its words; the bonus is scaled by the share of the
label that is symbols (`b'...'` most, `Operating income (loss)` little: its words name it)."""
CONTEXT_WEIGHT = 3.0
"""Each question word that is not the row label's but the table's caption or section holds
("In the Linear Networks table, ..."): what picks one of several rows with the same label.
A word in the captions or sections of most tables ("following", "millions") tells none apart
and counts nothing, nor does a word of a period ("first quarter of fiscal 2024": the columns')."""
GROUP_WEIGHT = 3.0
"""Each question word that is one of the row's group labels (`Operating income` above
`Domestic`) and not its label's: what picks one of two rows of one label in one table."""
MIN_LABEL_SHARE = 0.6
"""Least share of a row label's weighted words the question must hold for the row to count
as named (`Total revenues`: both words, or the rarer one)."""
MIN_CUT_WORDS = 3
CUT_LABEL_SHARE = 0.35
"""A long label shortened (`Amortization of TFCF and Hulu intangible assets` for the whole
line) is named by at least MIN_CUT_WORDS of its words, CUT_LABEL_SHARE of its weight."""
TIE_MARGIN = 2.0
"""Rows scoring within this of the best are shown after it, while the budget lasts: the
question does not tell them apart."""
MAX_ROWS = 3
CAPTION_WORDS = 14
"""The caption in the answer's first line is cut to this many words."""


def _words(text: str) -> list[str]:
    return [w for w in norm_label(text).split() if w not in STOP]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in _words(text)}


@dataclass(frozen=True)
class _Hit:
    score: float
    table: TableRecord
    row: Row
    named_cols: tuple[int, ...]
    asks_value: bool


def _written_whole(labels: set[str], question: str) -> set[str]:
    """The labels the question writes whole, as a token of their own (`..` is not written in
    `path<...>`), and not inside a longer one it writes (`{...}` inside `Type {...}`)."""
    spans = {}
    for label in labels:
        if not label:
            continue
        m = re.search(rf"(?:^|(?<=[\s`\"\u201c]))({re.escape(label)})(?=$|[\s`\"\u201d?!,.;:])", question)
        if m:
            spans[label] = m.span(1)
    return {a for a, (s, e) in spans.items()
            if not any(b != a and bs <= s and e <= be and be - bs > e - s for b, (bs, be) in spans.items())}


def _groups(table: TableRecord) -> dict[int, list[str]]:
    """Row index -> the group labels above it (label-only rows), top first: a group label
    right under another is inside it (`Revenue`, `ESPN`); one after rows of figures starts
    a new group, inside the group above when it ends with `:` and that one does not
    (`Exclude:` inside `Quarter Ended December 28, 2024`)."""
    out, groups, after = {}, [], False
    for row in table.rows:
        if row.label and all(not c.text.strip() for c in row.cells[1:]):
            if after:
                groups = [*groups, row.label]
            elif row.label.rstrip().endswith(":") and groups and not groups[0].rstrip().endswith(":"):
                groups = [groups[0], row.label]
            else:
                groups = [row.label]
            after = True
            continue
        after = False
        out[row.index] = list(groups)
    return out


class TableRoute:
    name = "table-lookup"

    def answer(self, tree, question: str, budget: int) -> TargetedAnswer | None:
        tables: list[TableRecord] = list(getattr(tree.hierarchy, "tables", []) or [])
        if not tables or EXPLAIN.search(question):
            return None
        hits = self._hits(tables, question)
        if not hits:
            return None
        best = max(hits, key=lambda h: h.score)
        if not best.asks_value:
            return None
        near = sorted((h for h in hits if h is not best and h.score >= best.score - TIE_MARGIN),
                      key=lambda h: -h.score)[:MAX_ROWS - 1]
        return self._render(tree, [best, *near], budget)

    def _hits(self, tables: list[TableRecord], question: str) -> list[_Hit]:
        named_table = TABLE_PHRASE.search(question)
        about_row = question[:named_table.start()] + question[named_table.end():] if named_table else question
        asked = _stems(question)
        row_words = _stems(about_row)
        periodic = {w for w in asked if PERIOD.fullmatch(w) or w in ORDINALS}
        if not asked and not about_row.strip():
            return []
        df = Counter(w for t in tables for r in t.rows for w in _stems(r.label))
        n_rows = sum(len(t.rows) for t in tables) or 1
        contexts = [_stems(" ".join([t.caption or "", *t.section])) for t in tables]
        common = {w for w, n in Counter(w for c in contexts for w in c).items() if len(tables) > 2 and n > len(tables) / 2}

        def idf(w: str) -> float:
            return math.log(1 + n_rows / (1 + df.get(w, 0)))

        number_asked = bool(NUMBER_QUESTION.search(question) or PERIOD.search(question))
        written = _written_whole({r.label.strip() for t in tables for r in t.rows}, about_row)
        hits = []
        for t, context in zip(tables, contexts):
            columns = [(c.index, _stems(c.label)) for c in t.columns]
            groups = _groups(t)
            for row in t.rows:
                if row.index not in groups or not any(c.number or c.text.strip() for c in row.cells[1:]):
                    continue
                label = _stems(row.label)
                raw = row.label.strip()
                symbolic = bool(raw) and not label and raw in written  # `_`, `!=`: no word to match
                verbatim = symbolic or (len(raw) >= 2 and bool(_SYMBOLIC.search(raw)) and raw in written)
                if label:
                    weight = sum(idf(w) for w in label)
                    got = sum(idf(w) for w in label & row_words)
                    share = got / weight if weight else 0.0
                    if share < MIN_LABEL_SHARE and not (len(label & row_words) >= MIN_CUT_WORDS and share >= CUT_LABEL_SHARE):
                        share = 0.0
                else:
                    share = got = 0.0
                if verbatim:  # the more of the label is symbols, the more its being written whole says
                    density = 1.0 if symbolic else len(_SYMBOLIC.findall(raw)) / len(raw.replace(" ", ""))
                    share, got = 1.0, (got if label else 0.0) + VERBATIM_BONUS * density + len(raw) / 10
                if share <= 0.0:
                    continue
                rest = asked - label
                named_cols = tuple(i for i, words in columns if i > 0 and words and words & rest)
                corner = bool(columns and columns[0][1] & rest)
                col_score = max((len(columns[i][1] & rest) for i in named_cols), default=0)
                group_words = set().union(*(_stems(g) for g in groups[row.index])) if groups[row.index] else set()
                score = (share * 10 + got + 2 * col_score + CONTEXT_WEIGHT * len((context - common) & rest - periodic)
                         + GROUP_WEIGHT * len(group_words & rest) - 0.1 * len(label - asked))
                asks = bool(named_cols) or corner or verbatim or symbolic or number_asked
                hits.append(_Hit(score, t, row, named_cols, asks))
        return hits

    def _render(self, tree, hits: list[_Hit], budget: int) -> TargetedAnswer | None:
        """The best row, then the near ones while the budget lasts; a table's first line (where)
        once for its rows. The best row alone over the budget keeps its label and first cells."""
        lines: list[str] = []
        nodes: list[str] = []
        shown: set[str] = set()
        for k, hit in enumerate(hits):
            where, node = self._where(tree, hit)
            block = ([] if hit.table.id in shown else [where]) + self._row_lines(hit)
            if count_tokens("\n".join([*lines, *block])) <= budget:
                lines += block
                nodes += [node] if node and node not in nodes else []
                shown.add(hit.table.id)
                continue
            if k == 0:
                kept = block[1:2]
                for line in block[2:]:
                    if count_tokens("\n".join([*kept, line])) > budget:
                        break
                    kept.append(line)
                if count_tokens("\n".join([where, *kept])) <= budget:
                    kept = [where, *kept]
                if count_tokens("\n".join(kept)) > budget:
                    return None
                lines, nodes = kept, [node] if node else []
            break
        text = "\n".join(lines)
        return TargetedAnswer(path=self.name, text=text, nodes=nodes, tokens=count_tokens(text))

    def _where(self, tree, hit: _Hit) -> tuple[str, str | None]:
        """The table's line: its id, section and caption (cut), unit, and the node and
        characters of the row."""
        table, row = hit.table, hit.row
        node = table.parts[0] if table.parts else None
        for part in table.parts:  # the part that holds the row
            span = tree.node(part).span
            if span and span[0] <= row.span[0] < span[1]:
                node = part
        full = table.caption or (table.section[-1] if table.section else table.id)
        words = full.split()
        caption = " ".join(words[:CAPTION_WORDS]) + (" …" if len(words) > CAPTION_WORDS else "")
        section = table.section[-1] if table.section and table.section[-1].lower() not in full.lower() else None
        unit = f" ({table.unit})" if table.unit and table.unit not in caption else ""
        return (f"[{table.id}] {' > '.join(x for x in (section, caption) if x)}{unit} "
                f"({node}, chars {row.span[0]}-{row.span[1]})"), node

    def _row_lines(self, hit: _Hit) -> list[str]:
        """The row's label with its group labels, then the cells of the columns it names first."""
        table, row = hit.table, hit.row
        groups = _groups(table).get(row.index, [])
        lines = [" > ".join([*groups[-2:], row.label]) if groups else row.label]
        order = [*hit.named_cols, *(c.index for c in table.columns if c.index not in hit.named_cols and c.index > 0)]
        for i in order:
            if i >= len(row.cells) or not row.cells[i].text.strip():
                continue
            cell = row.cells[i]
            own = cell.number.unit if cell.number is not None else None
            shown = f" ({own})" if own and own != "%" and not table.unit else ""
            lines.append(f"{table.columns[i].label or f'column {i + 1}'}: {cell.text}{shown}")
        return lines
