"""The knowledge records `hierarchy.json` keeps beside its nodes: the term registry, the typed
edges between nodes (and from nodes to terms), and what could not be resolved.

Written by the knowledge passes (`chunker/knowledge/`) at write time over the finished tree;
every span is `[start, end)` in the characters of the node's own file (`source`), the same
offsets as the nodes' spans, so a place can be read back from the leaves' original text.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EdgeKind = Literal["defines", "mentions", "refers_to", "links_to"]


class Place(BaseModel):
    """One span of one file, and the node (a leaf) that holds it."""

    model_config = ConfigDict(frozen=True)

    node: str = Field(description="the id of the leaf that holds the span")
    source: str | None = Field(default=None, description="the node's file")
    span: tuple[int, int] = Field(description="[start, end) in the file's text")
    text: str = Field(description="the text at the span, as it reads in the source")


class Definition(Place):
    """Where a term is defined, and how the definition was recognised."""

    how: str = Field(description="sentence (X is / means / refers to), glossary (`**X**: ...`, "
                                 "a definition list), emphasis (a bold or italic first use), "
                                 "heading (a heading that is the term), acronym (an expansion "
                                 "in brackets or an <abbr>), model (proposed, then grounded)")
    term_span: tuple[int, int] | None = Field(default=None, description="the term's own span")


class Term(BaseModel):
    """One entry of the registry: a canonical name, its aliases, where it is defined, how often
    it is mentioned (the places are the `mentions` edges)."""

    id: str = Field(description="the term's slug: its page is OUT/terms/<id>.md")
    name: str = Field(description="the canonical name (the form its definition uses)")
    aliases: list[str] = Field(default_factory=list, description=(
        "other forms found for it, deduplicated: plural or singular, case, an acronym or its "
        "expansion"))
    definitions: list[Definition] = Field(default_factory=list, description=(
        "every place that defines it, the canonical one first"))
    mentions: int = Field(default=0, description="how often it occurs outside its definitions")
    nodes: list[str] = Field(default_factory=list, description="the leaves that mention it")
    documents: list[str] = Field(default_factory=list, description="the files that define or "
                                                                   "mention it")
    origin: Literal["extractive", "model"] = Field(default="extractive", description=(
        "extractive: found by the patterns (a definition sentence, a glossary, an acronym, a "
        "heading, an emphasis); model: only a model proposed it (every definition's `how` is "
        "model), kept because the term occurs in the leaf and the definition is a span of it"))

    @property
    def definition(self) -> Definition | None:
        return self.definitions[0] if self.definitions else None


class Edge(BaseModel):
    """One typed edge: from a node to a node (refers_to, links_to) or to a term (defines,
    mentions: the target is `term:<id>`)."""

    model_config = ConfigDict(frozen=True)

    kind: EdgeKind
    source: str = Field(description="the node the edge starts from (the leaf holding the span)")
    target: str = Field(description="a node id, or term:<id> for defines and mentions")
    file: str | None = Field(default=None, description="the source node's file")
    span: tuple[int, int] | None = Field(default=None, description="the span in that file")
    text: str = Field(default="", description="the text at the span (the reference as written)")
    ref: str | None = Field(default=None, description=(
        "refers_to and links_to: what was recognised: section, chapter, article, appendix, table, "
        "figure, listing, equation, footnote, page, wiki-link, markdown-link"))


class Unresolved(BaseModel):
    """A reference or link whose target the tree does not hold: left as plain text, listed."""

    model_config = ConfigDict(frozen=True)

    ref: str = Field(description="what was recognised (the kinds of Edge.ref)")
    node: str
    file: str | None = None
    span: tuple[int, int]
    text: str
    reason: str = Field(description="why it resolves nowhere: no such file, no such heading, "
                                    "no such number, ambiguous ...")
