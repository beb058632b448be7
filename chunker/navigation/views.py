"""What the read-only tree access returns: plain typed records, each saying how many
tokens it put in front of the reader (`tokens`), so that an agent, the navigator and
the evaluation can all keep a budget with the same arithmetic.

In a corpus tree (many files) every record also names the file and the characters it
comes from, and folders and documents show their kind and title; a single-document
tree leaves those fields empty and renders exactly as before, so figures measured on
single documents stay comparable."""

from __future__ import annotations

from pydantic import BaseModel, Field

from chunker.readers.location import describe


def _chars(span: tuple[int, int] | None) -> str:
    return f"chars {span[0]}-{span[1]}" if span is not None else ""


class NodeRef(BaseModel):
    """A node as a reader sees it when choosing where to go: its id and summary (in a
    corpus also its kind, file, span and title)."""

    id: str
    level: int
    summary: str
    is_leaf: bool
    kind: str | None = Field(default=None, description="corpus trees: folder, document, block, leaf")
    source: str | None = Field(default=None, description="corpus trees: the node's file")
    span: tuple[int, int] | None = Field(default=None, description="corpus trees: offsets in its file")
    title: str | None = Field(default=None, description="corpus trees: a folder's or document's title")

    def label(self, extra: str = "") -> str:
        """What names the node where it is listed: its id, and in a corpus where it is
        (`extra` goes inside the brackets, e.g. a search score)."""
        if self.kind is None:  # a single document: the id alone, as before
            return f"{self.id} ({extra})" if extra else self.id
        if self.kind == "folder":
            head = f"{self.id} [folder] {self.title or ''}".rstrip()
        elif self.kind == "document":
            head = f"{self.id} [document] {self.source}" + (f' "{self.title}"' if self.title else "")
        else:  # a part of a document: its file and characters, with `extra` in the brackets
            where = ", ".join(p for p in (self.source, _chars(self.span)) if p)
            where += f"; {extra}" if extra else ""
            return f"{self.id} ({where})" + (f' "{self.title}"' if self.title else "")
        return f"{head} ({extra})" if extra else head

    def choice(self) -> str:
        """What a model choosing among siblings reads before the summary: in a corpus the
        kind and title (and a document's file), nothing for a single document."""
        if self.kind is None:
            return ""
        name = self.title or ""
        if self.kind == "document":
            name = f"{self.source}" + (f' "{self.title}"' if self.title else "")
        elif self.kind != "folder" and self.title:
            name = f'"{self.title}"'
        return f"[{self.kind}] {name}".rstrip()


class NodeView(BaseModel):
    """One node opened: its summary, its rewritten text and its children's summaries."""

    id: str
    level: int
    parent: str | None
    summary: str
    rewritten: str
    children: list[NodeRef] = Field(default_factory=list)
    is_leaf: bool
    tokens: int = Field(description="tokens of everything this view shows")
    kind: str | None = Field(default=None, description="corpus trees: folder, document, block, leaf")
    source: str | None = None
    span: tuple[int, int] | None = None
    title: str | None = None
    references: list[NodeRef] = Field(default_factory=list, description=(
        "the nodes its references and links point at (knowledge edges): neighbours to read"))
    location: dict | None = Field(default=None, description=(
        "where the node lies in its original file (pages, parts, slides, paragraphs), for "
        "formats that have one"))

    def where(self) -> str | None:
        """Corpus trees: one line naming the node's kind, file, title and span."""
        if self.kind is None:
            return None
        if self.kind == "folder":
            return f"folder: {self.title or self.id}"
        name = (self.source or "") + (f' "{self.title}"' if self.title else "")
        return f"{self.kind}: " + ", ".join(p for p in (name, _chars(self.span)) if p)

    def render(self) -> str:
        lines = [f"[{self.id}] level {self.level}" + (" (leaf)" if self.is_leaf else "")]
        if (where := self.where()) is not None:
            lines.append(where)
        if self.location:
            lines.append(f"in the original: {describe(self.location)}")
        lines += [f"summary: {self.summary}", "", self.rewritten]
        if self.children:
            lines += ["", "children:"] + [f"- {c.label()}: {c.summary}" for c in self.children]
        elif self.is_leaf:
            lines += ["", f"(a leaf: read its original text with read_original('{self.id}'))"]
        if self.references:  # a tree without knowledge edges renders as before
            lines += ["", "refers to:"] + [f"- {r.label()}: {r.summary}" for r in self.references]
        return "\n".join(lines)


class Passage(BaseModel):
    """A leaf's original source text, exactly as it stands in the document."""

    id: str
    span: tuple[int, int]
    original: str
    tokens: int
    source: str | None = Field(default=None, description="corpus trees: the leaf's file")
    location: dict | None = Field(default=None, description="where it lies in its original file")

    def render(self) -> str:
        where = f"{self.source}, " if self.source is not None else ""
        place = f", {describe(self.location)}" if self.location else ""
        return f"[{self.id}] {where}characters {self.span[0]}-{self.span[1]}{place}\n\n{self.original}"


class Neighbourhood(BaseModel):
    """Where a node sits: its parent and its previous and next siblings."""

    id: str
    parent: NodeRef | None
    previous: NodeRef | None
    next: NodeRef | None
    tokens: int

    def render(self) -> str:
        def line(label: str, ref: NodeRef | None) -> str:
            return f"{label}: " + (f"{ref.label()}: {ref.summary}" if ref else "(none)")

        return "\n".join([f"[{self.id}]", line("parent", self.parent),
                          line("previous", self.previous), line("next", self.next)])


class SearchHit(BaseModel):
    node: NodeRef
    score: float


class SearchResults(BaseModel):
    """The nodes whose summary and rewritten text best match a query, best first."""

    query: str
    method: str = Field(description="the embeddings provider, or bm25")
    hits: list[SearchHit]
    tokens: int
    prefix: str | None = Field(default=None, description="only files whose path starts so")

    def render(self) -> str:
        if not self.hits:
            under = f" under {self.prefix!r}" if self.prefix else ""
            return f"no match for {self.query!r}{under}"
        return "\n".join(f"- {h.node.label(f'level {h.node.level}, score {h.score:.3f}')}: "
                         f"{h.node.summary}" for h in self.hits)


class ReadPassage(BaseModel):
    """One thing the navigator read and returns: a leaf, a piece of one (consecutive pieces
    merged), or a block's summary (zooming out), with its place in the tree."""

    id: str = Field(description="the node's id (the first leaf's, when several were merged)")
    ids: list[str] = Field(default_factory=list, description=(
        "every leaf whose text it holds, in order: consecutive leaves of one file read together "
        "are one passage under one header"))
    kind: str = Field(description="leaf | piece | summary")
    text: str = Field(description="the original characters (leaf, piece) or the block's summary")
    where: str = Field(description="the document's title and heading path, or the titled "
                                   "blocks above it: where the passage sits, as a reader says it")
    path: list[str] = Field(description="node ids from the root down to the node")
    span: tuple[int, int] | None = Field(default=None, description="characters in its file")
    source: str | None = Field(default=None, description="the file (a corpus tree's path)")
    score: float = Field(default=0.0, description="the best fused rank score that chose it")
    tokens: int = 0
    location: dict | None = Field(default=None, description=(
        "where its first node lies in the original file (formats with locations)"))

    def render(self) -> str:
        """The header a reader needs to cite and follow up (the id, where it sits; a corpus
        passage its file too), then the text. Characters stay in the record, not in the
        rendering: every header token is paid from the budget."""
        file = f" ({self.source})" if self.source else ""
        if self.location:
            file += f" ({describe(self.location)})"
        label = " (section summary)" if self.kind == "summary" else ""
        return f"[{self.id}] {self.where}{file}{label}\n{self.text}"


class Reading(BaseModel):
    """What one collapsed search read, in document order, and what it cost in all."""

    question: str
    passages: list[ReadPassage]
    tokens: int = Field(description="tokens of everything rendered: the budget's measure")

    def render(self) -> str:
        if not self.passages:
            return f"nothing found for {self.question!r}"
        return "\n\n".join(p.render() for p in self.passages)
