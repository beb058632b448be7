"""Targeted lookup: a question about data answered from the records, not from ranked prose.

`TableRoute` finds the table row a question names (its label's words, weighted by how rare
they are among the tree's row labels; the table's caption, headers and section break ties)
and answers with that row (the cell of the column the question names first), its column and
row labels, units, and the node's path and characters: a row, not the whole table, within the
budget. It answers only when the question names a row label and also names one of the
table's columns or asks for a number (`how much`, `what was`, a `%`...); otherwise the
navigator falls back to the collapsed search. `EquationRoute` answers by an equation's label
or a variable it defines, `FigureRoute` by a figure's caption.

Importing this module registers the routes in `chunker.navigation.targeted.ROUTES`
(tables first, as that module asks).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from chunker.document.tokens import count_tokens
from chunker.navigation.targeted import ROUTES, TargetedAnswer
from chunker.structured.checks import norm_label
from chunker.structured.records import Row, TableRecord

NUMBER_QUESTION = re.compile(
    r"\b(how (much|many|large|big|high|low)|which value|value|amount|"
    r"rate|percent|percentage|share|total|number of|figure|margin|growth|change|size|length)\b|%",
    re.IGNORECASE)
"""Words that ask for a number (a bare "what was" does not: most questions start so)."""
_SYMBOLIC = re.compile(r"[^\w\s]")
STOP = frozenset("the a an of in for and or to is was were are what which how did does do by on at "
                 "as with from this that it its be table row column value".split())
VERBATIM_BONUS = 20.0
"""A row whose whole label the question writes verbatim (a symbol such as `b"..."`, a long
label) is the row it names, before any row that merely shares its words."""
CONTEXT_WEIGHT = 3.0
"""Each question word that is not the row label's but the table's caption or section holds
("In the Linear Networks table, ..."): what picks one of several rows with the same label."""
MIN_LABEL_SHARE = 0.6
"""Least share of a row label's weighted words the question must hold for the row to count
as named (`Total revenues`: both words, or the rarer one)."""


def _words(text: str) -> list[str]:
    return [w for w in norm_label(text).split() if w not in STOP]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


class TableRoute:
    name = "table-lookup"

    def answer(self, tree, question: str, budget: int) -> TargetedAnswer | None:
        tables: list[TableRecord] = list(getattr(tree.hierarchy, "tables", []) or [])
        if not tables:
            return None
        asked = {_stem(w) for w in _words(question)}
        symbols = set(re.split(r"[\s`'\"]+", question)) - {""}
        if not asked and not symbols:
            return None
        df = Counter(_stem(w) for t in tables for r in t.rows for w in set(_words(r.label)))
        n_rows = sum(len(t.rows) for t in tables) or 1

        def idf(w: str) -> float:
            return math.log(1 + n_rows / (1 + df.get(w, 0)))

        best = None
        for t in tables:
            context = {_stem(w) for w in _words(" ".join([t.caption or "", *t.section]))}
            columns = [(c.index, {_stem(w) for w in _words(c.label)}) for c in t.columns]
            for row in t.rows:
                label = {_stem(w) for w in _words(row.label)}
                if not any(c.number or c.text.strip() for c in row.cells[1:]):
                    continue
                raw = row.label.strip()
                # a symbol written out whole (`b"..."`, `path<...>`, `ident::ident`)
                verbatim = len(raw) >= 2 and bool(_SYMBOLIC.search(raw)) and raw in question
                if label:
                    weight = sum(idf(w) for w in label)
                    got = sum(idf(w) for w in label & asked)
                    share = got / weight if weight else 0.0
                else:  # a symbol (`!=`, `::`): named when the question writes it as a token
                    share = got = 3.0 * (raw in symbols) if raw else 0.0
                if verbatim:
                    share, got = 1.0, (got if label else 0.0) + VERBATIM_BONUS + len(raw) / 10
                if share < MIN_LABEL_SHARE:
                    continue
                named_cols = [i for i, words in columns if i > 0 and words and words & asked]
                col_score = max((len(columns[i][1] & asked) for i in named_cols), default=0)
                # the table the question names: its caption and section, beyond the row's own words
                table_score = CONTEXT_WEIGHT * len(context & (asked - label))
                score = share * 10 + got + 2 * col_score + table_score - 0.1 * len(label - asked)
                if best is None or score > best[0]:
                    best = (score, t, row, named_cols, bool(named_cols) or verbatim)
        if best is None:
            return None
        _, table, row, named_cols, names_column = best
        if not names_column and not NUMBER_QUESTION.search(question):
            return None
        return self._render(tree, table, row, named_cols, budget)

    def _render(self, tree, table: TableRecord, row: Row, named_cols: list[int], budget: int) -> TargetedAnswer | None:
        node = table.parts[0] if table.parts else None
        for part in table.parts:  # the part that holds the row
            span = tree.node(part).span
            if span and span[0] <= row.span[0] < span[1]:
                node = part
        where = " > ".join([*(table.section or []), table.caption or table.id][-3:])
        header = f"[{table.id}] {where} ({node}, chars {row.span[0]}-{row.span[1]})"
        order = named_cols + [c.index for c in table.columns if c.index not in named_cols and c.index > 0]
        lines = [header, f"{table.columns[0].label or 'row'}: {row.label}" if table.columns else row.label]
        for i in order:
            if i >= len(row.cells) or not row.cells[i].text.strip():
                continue
            cell = row.cells[i]
            unit = f" ({cell.number.unit})" if cell.number is not None and cell.number.unit and cell.number.unit != "%" else ""
            candidate = f"{table.columns[i].label or f'column {i + 1}'}: {cell.text}{unit}"
            if count_tokens("\n".join([*lines, candidate])) > budget:
                break
            lines.append(candidate)
        text = "\n".join(lines)
        while count_tokens(text) > budget and len(lines) > 1:
            lines.pop(0) if len(lines) > 2 else lines.pop()
            text = "\n".join(lines)
        if count_tokens(text) > budget:
            return None
        return TargetedAnswer(path=self.name, text=text, nodes=[node] if node else [], tokens=count_tokens(text))


class EquationRoute:
    name = "equation-lookup"

    def answer(self, tree, question: str, budget: int) -> TargetedAnswer | None:
        q = question.lower()
        for eq in getattr(tree.hierarchy, "equations", []) or []:
            by_label = eq.label and re.search(rf"\b(equation|eq\.?)\s*\(?{re.escape(eq.label.lower())}\)?", q)
            by_var = [v for v in eq.variables if re.search(rf"\b{re.escape(v.definition.lower())}\b", q)
                      or re.search(rf"(?<!\w){re.escape(v.symbol.lower())}(?!\w)", q)]
            if by_label or (by_var and re.search(r"\b(equation|formula|variable|stand|mean|defin)", q)):
                lines = [f"[{eq.id}] {' > '.join(eq.section)} ({', '.join(eq.parts)})", eq.latex]
                lines += [f"{v.symbol}: {v.definition}" for v in eq.variables]
                text = "\n".join(lines)
                if count_tokens(text) <= budget:
                    return TargetedAnswer(path=self.name, text=text, nodes=eq.parts[:1], tokens=count_tokens(text))
        return None


class FigureRoute:
    name = "figure-lookup"

    def answer(self, tree, question: str, budget: int) -> TargetedAnswer | None:
        q = question.lower()
        for fig in getattr(tree.hierarchy, "figures", []) or []:
            m = re.match(r"\s*(figure|fig\.)\s+([\w.\-]+)", fig.caption or "", re.IGNORECASE)
            if m and re.search(rf"\b(figure|fig\.?)\s+{re.escape(m.group(2).rstrip('.:').lower())}\b", q):
                lines = [f"[{fig.id}] {fig.caption}", *(x for x in (fig.alt, fig.description, fig.media or fig.image) if x)]
                text = "\n".join(lines)
                if count_tokens(text) <= budget:
                    return TargetedAnswer(path=self.name, text=text, nodes=fig.parts[:1], tokens=count_tokens(text))
        return None


for _route in (TableRoute, EquationRoute, FigureRoute):
    if _route not in ROUTES:
        ROUTES.append(_route)


def targeted_reading(tree, question: str, budget: int):
    """The targeted answer as the navigator's `Reading` (one passage of kind `record`, its
    route in `where`'s place of the header), or None when no route answers."""
    from chunker.navigation.collapsed import where_of  # noqa: PLC0415
    from chunker.navigation.targeted import answer_targeted  # noqa: PLC0415
    from chunker.navigation.views import Reading, ReadPassage  # noqa: PLC0415

    got = answer_targeted(tree, question, budget)
    if got is None:
        return None
    node = got.nodes[0] if got.nodes else tree.root_id
    n = tree.node(node)
    passage = ReadPassage(id=node, ids=list(got.nodes), kind="record", text=got.text,
                          where=where_of(tree, node), path=tree.ancestors(node), span=n.span,
                          source=n.source if tree.is_corpus else None, tokens=got.tokens)
    return Reading(question=question, passages=[passage], tokens=got.tokens), got.path
