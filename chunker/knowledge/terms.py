"""The term registry: candidates from every file (`patterns.py`, and a model's grounded
proposals where asked) merged into terms, deduplicated (case, singular and plural, an acronym
and its expansion), each with its definitions and every place that mentions it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chunker.knowledge.documents import DocText, Documents
from chunker.knowledge.patterns import Candidate, Finder
from chunker.output.graph import Definition, Edge, Place, Term
from chunker.output.slugs import sanitize

HOW_RANK = {"glossary": 0, "sentence": 1, "heading": 2, "acronym": 3, "model": 4, "emphasis": 5}
"""Which definition of a term is its canonical one: a glossary entry before a definition
sentence, before a heading, an acronym's expansion, a model's proposal, a first emphasis."""


def key(term: str) -> str:
    """What makes two forms one term: case, markup, a leading article, hyphens, and the
    last word's plural folded away."""
    words = re.sub(r"[`*_\"\u201c\u201d'\u2019]", "", term).replace("-", " ").casefold().split()
    if words and words[0] in ("a", "an", "the") and len(words) > 1:
        words = words[1:]
    if words:
        words[-1] = singular(words[-1])
    return " ".join(words)


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def variants(form: str) -> set[str]:
    """The surface forms a mention of `form` may take: itself, its plural or singular."""
    out = {form}
    if form.isupper() or re.fullmatch(r"[A-Z][A-Za-z0-9&/]*[A-Z]", form):  # an acronym: LLM, LLMs
        out.add(form + "s")
        return out
    last = form.split()[-1] if form.split() else form
    head = form[: len(form) - len(last)]
    one = singular(last.casefold())
    out.add(head + one)
    if one.endswith("y") and not one.endswith(("ay", "ey", "oy", "uy")):
        out.add(head + one[:-1] + "ies")
    elif one.endswith(("s", "x", "ch", "sh")):
        out.add(head + one + "es")
    else:
        out.add(head + one + "s")
    return out


def is_acronym(form: str) -> bool:
    return len(form) >= 2 and sum(c.isupper() for c in form) >= 2 and not form.islower() and " " not in form


@dataclass
class Group:
    forms: dict[str, int] = field(default_factory=dict)  # surface form -> how often it defines
    defs: list[tuple[Candidate, DocText]] = field(default_factory=list)


class _Union:
    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, k: str) -> str:
        self.parent.setdefault(k, k)
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def candidates(docs: Documents) -> list[tuple[Candidate, DocText]]:
    out = []
    for doc in docs:
        out.extend((c, doc) for c in Finder(doc.text, doc.code, doc.headings).all())
    return out


def build_terms(docs: Documents, found: list[tuple[Candidate, DocText]], max_definitions: int = 5
                ) -> tuple[list[Term], list[Edge]]:
    """The registry and its `defines` and `mentions` edges, in a stable order."""
    union = _Union()
    groups: dict[str, Group] = {}
    for cand, doc in found:
        k = key(cand.term)
        if not k:
            continue
        union.find(k)
        if cand.alias and key(cand.alias):
            union.join(k, key(cand.alias))
    for cand, doc in found:
        k = key(cand.term)
        if not k:
            continue
        g = groups.setdefault(union.find(k), Group())
        g.forms[cand.term] = g.forms.get(cand.term, 0) + 1
        if cand.alias:
            g.forms.setdefault(cand.alias, 0)
        g.defs.append((cand, doc))
    terms: list[Term] = []
    edges: list[Edge] = []
    used_ids: set[str] = set()
    for root in sorted(groups):
        g = groups[root]
        defs = sorted(g.defs, key=lambda cd: (HOW_RANK[cd[0].how], _order(docs, cd[1]), cd[0].definition[0]))
        best = defs[0][0]
        name = _canonical(best, g)
        aliases = _aliases(name, g)
        definitions: list[Definition] = []
        seen_spans = set()
        for cand, doc in defs:
            span = cand.definition
            if (doc.source, span) in seen_spans:
                continue
            if cand.how == "emphasis" and definitions:
                continue  # a first emphasis defines only where nothing else does
            seen_spans.add((doc.source, span))
            definitions.append(Definition(node=doc.leaf_at(cand.term_span[0]).id, source=doc.source, span=span,
                                          text=doc.text[span[0]:span[1]].strip(), how=cand.how,
                                          term_span=cand.term_span))
            if len(definitions) >= max_definitions:
                break
        tid = sanitize(name, "term", max_length=60)
        base, n = tid, 1
        while tid in used_ids:
            n += 1
            tid = f"{base}-{n}"
        used_ids.add(tid)
        origin = "model" if all(cand.how == "model" for cand, _ in g.defs) else "extractive"
        terms.append(Term(id=tid, name=name, aliases=aliases, definitions=definitions, origin=origin))
    terms = _mentions(docs, terms, edges)
    for t in terms:
        for d in t.definitions:
            edges.append(Edge(kind="defines", source=d.node, target=f"term:{t.id}", file=d.source,
                              span=d.span, text=d.text[:200]))
    return terms, edges


def _order(docs: Documents, doc: DocText) -> int:
    return list(docs.docs).index(doc.source)


def _canonical(best: Candidate, g: Group) -> str:
    """The name the best definition gives; an acronym's expansion names the term, the
    acronym is its alias."""
    if best.how == "acronym" and best.alias and is_acronym(best.term) and not is_acronym(best.alias):
        return best.alias
    return best.term


def _aliases(name: str, g: Group) -> list[str]:
    out: dict[str, str] = {}
    for form in sorted(g.forms, key=lambda f: (-g.forms[f], f)):
        if form == name:
            continue
        fold = form.casefold() if not is_acronym(form) else form
        if fold == name.casefold() or key(form) == key(name) and not is_acronym(form):
            continue
        out.setdefault(fold, form)
    return sorted(out.values(), key=str.casefold)


def _mentions(docs: Documents, terms: list[Term], edges: list[Edge]) -> list[Term]:
    """Every occurrence of a term's forms in the files' prose (not in fenced code, not in its
    own definitions' term spans): its `mentions` edges, count, nodes and files."""
    forms: dict[str, int] = {}
    strict: set[str] = set()  # acronyms match in their own case only
    for i, t in enumerate(terms):
        for form in [t.name, *t.aliases]:
            for v in variants(form):
                if is_acronym(form):
                    strict.add(v)
                forms.setdefault(v.casefold(), i)
    if not forms:
        return terms
    alternation = "|".join(re.escape(f).replace("'", "['\u2019]")
                           for f in sorted(forms, key=lambda f: (-len(f), f)))
    pattern = re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])", re.I)
    strict_fold = {s.casefold(): s for s in strict}
    own = [[(d.source, d.span) for d in t.definitions] for t in terms]  # not a mention: a definition
    counts = [0] * len(terms)
    nodes: list[dict[str, None]] = [dict() for _ in terms]
    files: list[dict[str | None, None]] = [dict() for _ in terms]
    for t_index, t in enumerate(terms):
        for d in t.definitions:
            files[t_index][d.source] = None
    for doc in docs:
        fenced = [(s, e) for s, e in doc.code.spans if doc.text.startswith(("```", "~~~"), s)]
        for m in pattern.finditer(doc.text):
            surface = m.group()
            fold = surface.replace("\u2019", "'").casefold()
            i = forms.get(fold)
            if i is None or (fold in strict_fold and surface not in strict and surface.upper() != surface):
                continue
            if any(s <= m.start() < e for s, e in fenced) or any(
                    src == doc.source and a <= m.start() < b for src, (a, b) in own[i]):
                continue
            leaf = doc.leaf_at(m.start())
            counts[i] += 1
            nodes[i][leaf.id] = None
            files[i][doc.source] = None
            edges.append(Edge(kind="mentions", source=leaf.id, target=f"term:{terms[i].id}", file=doc.source,
                              span=m.span(), text=surface))
    return [t.model_copy(update={"mentions": counts[i], "nodes": list(nodes[i]),
                                 "documents": [f for f in files[i] if f is not None]})
            for i, t in enumerate(terms)]


def place(doc: DocText, span: tuple[int, int]) -> Place:
    return Place(node=doc.leaf_at(span[0]).id, source=doc.source, span=span, text=doc.text[span[0]:span[1]])
