"""Targeted lookup: a question about data answered from the records, not from ranked prose.

`TableRoute` (`structured.table_lookup`) answers with the table row a question names, when it
asks for a value; otherwise the navigator falls back to the collapsed search.
`EquationRoute` answers by an equation's label or a variable it defines, `FigureRoute` by a
figure's caption.

Importing this module registers the routes in `chunker.navigation.targeted.ROUTES`
(tables first, as that module asks).
"""

from __future__ import annotations

import re

from chunker.document.tokens import count_tokens
from chunker.navigation.targeted import ROUTES, TargetedAnswer
from chunker.structured.table_lookup import TableRoute

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
