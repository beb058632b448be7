"""What the knowledge passes change in the Markdown output: the bodies' links, a Terms line and a
See also line per node file, and a page per term (`OUT/terms/<id>.md`).

A body's `[[wiki-link]]` or Markdown link to a file of the tree becomes a wiki-link to the node
file of what it names (the file's document node, the section of its heading, the leaf of its
block id), labelled with what the source showed; one the tree cannot resolve becomes its plain
text; links in code stay code, external URLs stay as they are, and any other `[[`/`]]` is
escaped so that no text makes a link of its own. A numbered reference in a body ("Table 3-1")
that resolves becomes a link to its target. The original text (a code fence) is never touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from chunker.knowledge.documents import Documents
from chunker.knowledge.links import SKIP, LinkResolver
from chunker.knowledge.references import REF, KINDS, Targets
from chunker.knowledge.settings import KnowledgeSettings
from chunker.knowledge.syntax import CodeMap, find_links
from chunker.output.hierarchy import Hierarchy, TreeNode

TERMS_DIR = "terms"


class Display:
    """Everything a node file needs from the knowledge passes, computed once per write."""

    def __init__(self, h: Hierarchy, label: Callable[[str], str], settings: KnowledgeSettings | None = None):
        self.h, self.label = h, label
        self.cfg = settings or KnowledgeSettings()
        self.nodes = h.by_id()
        self.docs = Documents(h)
        self.resolver = LinkResolver(self.docs)
        self.targets = Targets(self.docs)
        self.terms = {t.id: t for t in h.terms}
        self.node_terms: dict[str, dict[str, None]] = {}
        self.see_also: dict[str, dict[str, None]] = {}
        for e in h.edges:
            if e.kind in ("defines", "mentions"):
                self.node_terms.setdefault(e.source, {})[e.target[5:]] = None
            elif e.target in self.nodes and e.target != e.source:
                self.see_also.setdefault(e.source, {})[e.target] = None
        self.defined: dict[str, list[str]] = {}
        for t in h.terms:
            for d in t.definitions[:1]:
                self.defined.setdefault(d.node, []).append(t.id)

    # -- bodies -----------------------------------------------------------------------
    def body(self, node: TreeNode, text: str) -> str:
        """`text` (the node's rewritten body) with its links resolved and the rest escaped."""
        code = CodeMap(text)
        out, pos = [], 0
        for link in find_links(text, code):
            out.append(self._plain(text, pos, link.start, code, node))
            out.append(self._link(link, node.source))
            pos = link.end
        out.append(self._plain(text, pos, len(text), code, node))
        return "".join(out)

    def _link(self, link, source: str | None) -> str:
        got = self.resolver.resolve(link, source)
        if got is SKIP:
            return link.raw
        shown = link.shown() or link.target
        if got.node is None:
            return escape(shown)
        return self.wiki(self.nodes[got.node], shown)

    def _plain(self, text: str, lo: int, hi: int, code: CodeMap, node: TreeNode) -> str:
        """text[lo:hi] with `[[`/`]]` escaped outside code and resolvable references linked."""
        segment = text[lo:hi]
        if not segment:
            return segment
        out, pos = [], 0
        for m in REF.finditer(segment):
            start, end = lo + m.start(), lo + m.end()
            kind = KINDS.get(m.group("word").casefold().rstrip("."))
            if kind is None or code.in_code(start, end) or kind == "page":
                continue
            if not m.group("num")[0].isdigit() and m.group("word")[0].islower():
                continue
            target, _ = self.targets.lookup(kind, m.group("num"), node.source)
            if target is None or target.node == node.id:
                continue
            out.append(self._escape(text, lo + pos, start, code))
            out.append(self.wiki(self.nodes[target.node], m.group()))
            pos = m.end()
        out.append(self._escape(text, lo + pos, hi, code))
        return "".join(out)

    @staticmethod
    def _escape(text: str, lo: int, hi: int, code: CodeMap) -> str:
        def sub(m: re.Match) -> str:
            at = lo + m.start()
            return m.group() if code.in_code(at, at + 2) else "\\" + m.group()[0] + "\\" + m.group()[1]
        return re.sub(r"\[\[|\]\]", sub, text[lo:hi])

    def wiki(self, target: TreeNode, shown: str) -> str:
        return f"[[{target.filename[:-3]}|{self.label(shown)}]]"

    # -- lines of a node file -----------------------------------------------------------
    def lines(self, node: TreeNode) -> list[str]:
        out = []
        ids = list(self.defined.get(node.id, []))
        if node.children:  # a block: the terms its own leaves define
            ids += [tid for leaf in self._leaves(node) for tid in self.defined.get(leaf, [])]
        else:
            ids += [tid for tid in self.node_terms.get(node.id, {}) if tid not in ids][: self.cfg.line_terms]
        ids = list(dict.fromkeys(ids))
        if ids:
            out.append("Terms: " + ", ".join(f"[[{TERMS_DIR}/{tid}|{self.label(self.terms[tid].name)}]]"
                                             for tid in ids if tid in self.terms))
        refs = [self.nodes[t] for t in self.see_also.get(node.id, {})]
        if refs:
            out.append("See also: " + ", ".join(self.wiki(t, t.title or t.summary) for t in refs))
        return out

    def _leaves(self, node: TreeNode) -> list[str]:
        out, todo = [], list(node.children)
        while todo:
            n = self.nodes[todo.pop()]
            if n.children:
                todo.extend(n.children)
            else:
                out.append(n.id)
        return out


def escape(text: str) -> str:
    return text.replace("[[", "\\[\\[").replace("]]", "\\]\\]")


def term_page(t, nodes: dict[str, TreeNode], label: Callable[[str], str], frontmatter: Callable[[dict], str],
              settings: KnowledgeSettings) -> str:
    """OUT/terms/<id>.md: the definition quoted with its source, the aliases (Obsidian's
    `aliases`, so [[an alias]] finds the page), links to the defining and mentioning nodes."""
    meta = {"term": t.name, "aliases": list(t.aliases), "mentions": t.mentions,
            "documents": list(t.documents)}
    lines = [frontmatter(meta), f"# {label(t.name)}\n"]
    if t.aliases:
        lines.append("Aliases: " + ", ".join(label(a) for a in t.aliases) + "\n")
    for i, d in enumerate(t.definitions):
        node = nodes[d.node]
        where = ", ".join(x for x in (d.source, f"chars {d.span[0]}-{d.span[1]}") if x)
        lines.append("## Definition\n" if i == 0 else "## Also defined\n")
        lines.append("\n".join("> " + escape(line) for line in d.text.splitlines() or [""]))
        lines.append(f"\n— [[{node.filename[:-3]}|{label(node.title or node.summary)}]] ({where}; {d.how})\n")
    shown = [n for n in t.nodes if n in nodes][: settings.page_mentions]
    if shown:
        lines.append(f"## Mentioned in ({t.mentions} times, {len(t.nodes)} places)\n")
        lines += [f"- [[{nodes[n].filename[:-3]}|{label(nodes[n].title or nodes[n].summary)}]]" for n in shown]
        if len(t.nodes) > len(shown):
            lines.append(f"- … and {len(t.nodes) - len(shown)} more")
    return "\n".join(lines).rstrip("\n") + "\n"
