"""What the read-only tree access returns: plain typed records, each saying how many
tokens it put in front of the reader (`tokens`), so that an agent, the navigator and
the evaluation can all keep a budget with the same arithmetic."""

from __future__ import annotations

from pydantic import BaseModel, Field


class NodeRef(BaseModel):
    """A node as a reader sees it when choosing where to go: its id and summary."""

    id: str
    level: int
    summary: str
    is_leaf: bool


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

    def render(self) -> str:
        lines = [f"[{self.id}] level {self.level}" + (" (leaf)" if self.is_leaf else ""),
                 f"summary: {self.summary}", "", self.rewritten]
        if self.children:
            lines += ["", "children:"] + [f"- {c.id}: {c.summary}" for c in self.children]
        elif self.is_leaf:
            lines += ["", f"(a leaf: read its original text with read_original('{self.id}'))"]
        return "\n".join(lines)


class Passage(BaseModel):
    """A leaf's original source text, exactly as it stands in the document."""

    id: str
    span: tuple[int, int]
    original: str
    tokens: int

    def render(self) -> str:
        return f"[{self.id}] characters {self.span[0]}-{self.span[1]}\n\n{self.original}"


class Neighbourhood(BaseModel):
    """Where a node sits: its parent and its previous and next siblings."""

    id: str
    parent: NodeRef | None
    previous: NodeRef | None
    next: NodeRef | None
    tokens: int

    def render(self) -> str:
        def line(label: str, ref: NodeRef | None) -> str:
            return f"{label}: " + (f"{ref.id}: {ref.summary}" if ref else "(none)")

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

    def render(self) -> str:
        if not self.hits:
            return f"no match for {self.query!r}"
        return "\n".join(f"- {h.node.id} (level {h.node.level}, score {h.score:.3f}): "
                         f"{h.node.summary}" for h in self.hits)
