"""LangChain tools over a finished tree: `find`, `overview`, `open_node`, `read_original`,
`search`, `zoom_out`, and over its knowledge records `define`, `mentions`, `follow`.

Each is a `StructuredTool` with a typed argument schema and a description written for
the model that will call it; each returns text ending with the tokens it showed, so an
agent can keep its own budget. A bad node id comes back as an error message (the tool
raises `ToolException`, handled), which lets an agent correct itself instead of crashing.

A corpus tree's tools take corpus ids in their examples and a `path_prefix` for search;
a single document's tools (schemas and descriptions) are exactly what they were.
"""

from __future__ import annotations

from typing import Callable

from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, Field

from chunker.navigation import knowledge
from chunker.navigation.errors import NavigationError
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree


class NoArgs(BaseModel):
    """No arguments."""


class NodeArg(BaseModel):
    node_id: str = Field(description="a node id from an earlier result, such as 'L1-00002' "
                                     "(L<level>-<index>; level 0 are leaves)")


class CorpusNodeArg(BaseModel):
    node_id: str = Field(description="a node id from an earlier result, such as 'F-root' (the "
                                     "root folder), 'F1a2b3c4d' (a folder) or "
                                     "'D9f8e7d6c.L0-00003' (a document's node: the document's "
                                     "key, then L<level>-<index>; level 0 are leaves)")


class SearchArgs(BaseModel):
    query: str = Field(description="what you are looking for, in your own words")
    k: int = Field(default=5, ge=1, le=50, description="how many nodes to return")


class TermArg(BaseModel):
    term: str = Field(description="the term, as a question names it: 'schema', 'LLM', "
                                  "'path operation'")


class MentionsArgs(TermArg):
    k: int = Field(default=20, ge=1, le=200, description="how many places to list")


class FollowArgs(BaseModel):
    reference: str = Field(description="the reference or link as the text writes it: "
                                       "'Table 3-1', 'Section 2', '[[Note#Heading]]'")
    node_id: str | None = Field(default=None, description=(
        "the node you read it in, when the same words point at different places; leave it out "
        "otherwise"))


class FindArgs(BaseModel):
    question: str = Field(description="the question, in your own words")
    budget: int | None = Field(default=None, ge=1, le=100_000, description=(
        "the most tokens to read (passages and their headers together); leave it out for the "
        "default"))


PATH_PREFIX = ("search only the files whose path (relative to the corpus root, as results "
               "show it) starts with this: a folder such as 'tutorial/security/' or one "
               "file's path; leave it out to search everything")


class CorpusSearchArgs(SearchArgs):
    path_prefix: str | None = Field(default=None, description=PATH_PREFIX)


class CorpusFindArgs(FindArgs):
    path_prefix: str | None = Field(default=None, description=PATH_PREFIX)


DESCRIPTIONS = {
    "find": "Usually the first call. The passages that best answer a question, found by ranking "
            "every passage and section summary of the document at once, read within a token "
            "budget and returned in document order, each with where it sits (title and heading "
            "path) and its id. Follow up with zoom_out or read_original to read around a passage.",
    "overview": "Start here. The whole document's summary and its top-level sections, each "
                "with an id and a one-line summary. Open a section with open_node.",
    "open_node": "Open one node: its summary, its full rewritten text, and the one-line "
                 "summaries of its children. Descend by opening the child that fits best; a "
                 "leaf has no children: read its exact source text with read_original.",
    "read_original": "The exact original source text of a leaf (level 0), word for word, to "
                     "quote or answer from. Blocks (level 1+) have no original of their own.",
    "search": "Find nodes at any level whose summary or text matches a query, best first, "
              "with their ids. Use it to jump into the tree when the summaries do not point "
              "the way; then open_node or read_original the hits.",
    "zoom_out": "Where a node sits: its parent and its previous and next siblings, with "
                "summaries. Use it to backtrack or to read on past the end of a passage.",
    "define": "The definition of a term as the text gives it (a definition sentence, a "
              "glossary entry, an acronym's expansion), with its aliases and the id and "
              "characters of the passage that defines it. Use it when a question asks what "
              "something is or means; then read_original that passage for more.",
    "mentions": "Every place a term occurs (its id, characters and the words around it), how "
                "often in all: to see where a defined term is used.",
    "follow": "The node a reference or link of the text points at ('Table 3-1', 'Section 2', "
              "'see Chapter 4', '[[Note#Heading]]'), opened: its summary and text. Open a "
              "node to see its outgoing references listed under 'refers to'.",
}

CORPUS_DESCRIPTIONS = {
    "find": "Usually the first call. The passages that best answer a question, found by ranking "
            "every passage and section summary of the document at once, read within a token "
            "budget and returned in document order, each with where it sits (title and heading "
            "path) and its id. Follow up with zoom_out or read_original to read around a passage.",
    **DESCRIPTIONS,
    "overview": "Start here. The whole collection's summary and its top-level folders and "
                "documents, each with an id, its kind, its title (a document also its file) "
                "and a one-line summary. Open one with open_node.",
    "open_node": "Open one node (a folder, a document, or a section or passage of a "
                 "document): its summary, its full rewritten text, and its children's kinds, "
                 "titles, files and one-line summaries. Descend by opening the child that fits "
                 "best; a leaf has no children: read its exact source text with read_original.",
    "read_original": "The exact original text of a leaf (a passage of one file), word for "
                     "word, with the file it comes from and its character offsets there, to "
                     "quote or answer from. Folders and blocks have no original of their own.",
    "find": "Usually the first call. The passages that best answer a question, from every "
            "document of the collection at once (give path_prefix to keep to one folder or "
            "file), read within a token budget and returned in document order, each with its "
            "file, characters, where it sits and its id.",
    "search": "Find nodes at any level whose title, summary or text matches a query, best "
              "first, with their ids, files and character offsets. Give path_prefix to search "
              "one folder or one file only. Use it to jump into the tree when the summaries do "
              "not point the way; then open_node or read_original the hits.",
}
"""The same tools described for a corpus tree (folders of files)."""


def descriptions(corpus: bool) -> dict[str, str]:
    """The tools' descriptions for a corpus tree or for a single document's."""
    return CORPUS_DESCRIPTIONS if corpus else DESCRIPTIONS


def make_tools(tree: Tree, settings: NavigatorSettings | None = None) -> list[StructuredTool]:
    """The navigation tools bound to one tree (six over its nodes, three over its terms and
    references)."""
    cfg = settings or NavigatorSettings()
    texts = descriptions(tree.is_corpus)

    def find(question: str, budget: int | None = None, path_prefix: str | None = None) -> str:
        from chunker.navigation.collapsed import find as collapsed_find  # noqa: PLC0415

        return _shown(collapsed_find(tree, question, cfg, budget, path_prefix))

    def overview() -> str:
        return _shown(tree.overview())

    def open_node(node_id: str) -> str:
        return _shown(tree.open_node(node_id))

    def read_original(node_id: str) -> str:
        return _shown(tree.read_original(node_id))

    def search(query: str, k: int = cfg.search_k, path_prefix: str | None = None) -> str:
        return _shown(tree.search(query, k, embeddings=cfg.embeddings, piece_tokens=cfg.piece_tokens,
                                  cache=cfg.cache_embeddings, prefix=path_prefix))

    def zoom_out(node_id: str) -> str:
        return _shown(tree.zoom_out(node_id))

    def define(term: str) -> str:
        return _shown(knowledge.define(tree, term))

    def mentions(term: str, k: int = 20) -> str:
        return _shown(knowledge.mentions(tree, term, k))

    def follow(reference: str, node_id: str | None = None) -> str:
        return _shown(knowledge.follow(tree, reference, node_id))

    node_arg = CorpusNodeArg if tree.is_corpus else NodeArg
    search_args = CorpusSearchArgs if tree.is_corpus else SearchArgs
    find_args = CorpusFindArgs if tree.is_corpus else FindArgs
    specs: list[tuple[Callable[..., str], type[BaseModel]]] = [
        (find, find_args), (overview, NoArgs), (open_node, node_arg), (read_original, node_arg),
        (search, search_args), (zoom_out, node_arg), (define, TermArg), (mentions, MentionsArgs),
        (follow, FollowArgs)]
    return [StructuredTool.from_function(_guarded(fn, texts[fn.__name__]), name=fn.__name__,
                                         description=texts[fn.__name__],
                                         args_schema=schema, handle_tool_error=True)
            for fn, schema in specs]


def _shown(view) -> str:
    return f"{view.render()}\n\n({view.tokens} tokens)"


def _guarded(fn: Callable[..., str], description: str) -> Callable[..., str]:
    def call(**kwargs) -> str:
        try:
            return fn(**kwargs)
        except NavigationError as exc:
            raise ToolException(str(exc)) from None

    call.__name__ = fn.__name__
    call.__doc__ = description
    return call
