"""Navigation of a corpus tree (a folder of files as one tree), on a small tree written by
hand: every view names its file and span, folders and documents show kind and title,
search keeps to a path prefix, and the walk, the tools, the MCP server, `chunker ask` and
the fidelity and cost evaluations all open it. A single-document tree renders as before."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from mcp import Client

from chunker.graph.navigator_ask import ask
from chunker.navigation import NavigationError, NavigatorSettings, UnknownNode, make_tools, open_tree
from chunker.navigation.llm import children_listing
from chunker.navigation.mcp_server import build_server
from chunker.navigation.scoring import child_scores
from chunker.output.hierarchy import (SCHEMA_VERSION, CorpusDocument, CorpusMeta, Hierarchy, RunMeta, TreeNode,
                                      check_tree)
from conftest import invoke

BM25 = NavigatorSettings(embeddings="bm25")
INSTALL = ["# Installing\n\nRun pip install chunker to get the command line tool.\n\n",
           "Behind a firewall, set the HTTPS_PROXY variable before installing.\n"]
SECURITY = "Tokens live in the system keyring; never commit secrets to the repository.\n"
README = "Chunker turns folders of documents into one navigable tree of summaries.\n"
FOLDER, INSTALL_DOC = "F1a2b3c4d", "Daaaa1111.L1-00000"
INSTALL_LEAVES = ["Daaaa1111.L0-00000", "Daaaa1111.L0-00001"]
SECURITY_DOC, README_DOC = "Dbbbb2222.L0-00000", "Dcccc3333.L0-00000"


def _node(id: str, level: int, kind: str, parent: str | None, *, children=(), source=None,
          span=None, original=None, summary: str, title=None) -> TreeNode:
    return TreeNode(id=id, level=level, kind=kind, source=source, parent=parent,
                    children=list(children), span=span, original=original,
                    rewritten=original or f"{summary} (synthesis)", summary=summary,
                    slug=id.lower().replace(".", "-"), filename=f"{id}.md",
                    token_count=len((original or summary).split()), title=title)


def corpus_hierarchy() -> Hierarchy:
    """F-root > [F1a2b3c4d 'Handbook' > [install.md (two leaves), security.md (one leaf)],
    README.md (one leaf)]."""
    cut = len(INSTALL[0])
    total = cut + len(INSTALL[1])
    nodes = [
        _node("F-root", 3, "folder", None, children=[FOLDER, README_DOC], title="Docs",
              summary="Chunker's documentation: a handbook and a readme."),
        _node(FOLDER, 2, "folder", "F-root", children=[INSTALL_DOC, SECURITY_DOC],
              title="Handbook", summary="How to install the tool and keep secrets safe."),
        _node(INSTALL_DOC, 1, "document", FOLDER, children=INSTALL_LEAVES,
              source="guide/install.md", span=(0, total), title="Installing",
              summary="Install with pip; set a proxy behind a firewall."),
        _node(INSTALL_LEAVES[0], 0, "leaf", INSTALL_DOC, source="guide/install.md",
              span=(0, cut), original=INSTALL[0], summary="Install chunker with pip."),
        _node(INSTALL_LEAVES[1], 0, "leaf", INSTALL_DOC, source="guide/install.md",
              span=(cut, total), original=INSTALL[1], summary="Set HTTPS_PROXY first."),
        _node(SECURITY_DOC, 0, "document", FOLDER, source="guide/security.md",
              span=(0, len(SECURITY)), original=SECURITY, title="Security",
              summary="Tokens are kept in the keyring, not in the repository."),
        _node(README_DOC, 0, "document", "F-root", source="README.md", span=(0, len(README)),
              original=README, title="Readme", summary="What chunker does."),
    ]
    docs = [CorpusDocument(source=s, doc_id=d.split(".")[0], sha256="0" * 64, chars=c,
                           kind="text", node=d, title=t)
            for s, d, c, t in [("guide/install.md", INSTALL_DOC, total, "Installing"),
                               ("guide/security.md", SECURITY_DOC, len(SECURITY), "Security"),
                               ("README.md", README_DOC, len(README), "Readme")]]
    meta = RunMeta(tool_version="test", model="scripted", doc_id="corpus", source="docs",
                   source_chars=total + len(SECURITY) + len(README), config={}, stats={},
                   corpus=CorpusMeta(root="docs", documents=docs))
    return Hierarchy(root="F-root", nodes=nodes, meta=meta)


def write_tree(out, hierarchy: Hierarchy):
    out.mkdir(parents=True, exist_ok=True)
    (out / "hierarchy.json").write_text(json.dumps(hierarchy.model_dump(mode="json"), indent=2),
                                        encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    h = corpus_hierarchy()
    check_tree(h)  # the hand-made tree is a proper corpus tree
    return write_tree(tmp_path_factory.mktemp("corpus") / "docs", h)


@pytest.fixture(scope="module")
def tree(out):
    return open_tree(out)


def _hit_ids(text: str) -> list[str]:
    return re.findall(r"^- (\S+)", text, flags=re.M)


def test_overview_lists_folders_and_documents_with_kind_and_title(tree):
    text = tree.overview().render()
    assert text.splitlines()[:2] == ["[F-root] level 3", "folder: Docs"]
    assert f"- {FOLDER} [folder] Handbook: How to install the tool and keep secrets safe." in text
    assert f'- {README_DOC} [document] README.md "Readme": What chunker does.' in text


def test_open_node_on_a_folder_names_its_documents_and_a_leaf_its_file(tree):
    view = tree.open_node(FOLDER)
    assert (view.kind, view.title, view.source, view.span) == ("folder", "Handbook", None, None)
    text = view.render()
    assert f'- {INSTALL_DOC} [document] guide/install.md "Installing": Install with pip' in text
    assert f'- {SECURITY_DOC} [document] guide/security.md "Security": Tokens' in text
    cut = len(INSTALL[0])
    document = tree.open_node(INSTALL_DOC).render()
    assert f'document: guide/install.md "Installing", chars 0-{cut + len(INSTALL[1])}' in document
    assert f"- {INSTALL_LEAVES[1]} (guide/install.md, chars {cut}-{cut + len(INSTALL[1])}): " \
           f"Set HTTPS_PROXY first." in document
    leaf = tree.open_node(INSTALL_LEAVES[0]).render()
    assert leaf.splitlines()[1] == f"leaf: guide/install.md, chars 0-{cut}"


def test_read_original_names_the_file_and_span(tree):
    cut = len(INSTALL[0])
    passage = tree.read_original(INSTALL_LEAVES[1])
    assert passage.original == INSTALL[1] and passage.span == (cut, cut + len(INSTALL[1]))
    assert passage.render().startswith(
        f"[{INSTALL_LEAVES[1]}] guide/install.md, characters {cut}-{cut + len(INSTALL[1])}\n\n")
    single = tree.read_original(SECURITY_DOC)  # a one-leaf document is read like a leaf
    assert single.original == SECURITY and single.source == "guide/security.md"
    with pytest.raises(NavigationError, match="is a folder of 2 children, not a leaf"):
        tree.read_original(FOLDER)


def test_zoom_out_names_the_parent_folder(tree):
    text = tree.zoom_out(SECURITY_DOC).render()
    assert f"parent: {FOLDER} [folder] Handbook: " in text
    assert f'previous: {INSTALL_DOC} [document] guide/install.md "Installing": ' in text
    assert "next: (none)" in text


def test_search_names_files_and_keeps_to_a_prefix(tree):
    found = tree.search("keyring secrets", 3, embeddings="bm25", piece_tokens=200)
    assert found.hits[0].node.id == SECURITY_DOC
    assert found.render().startswith(f'- {SECURITY_DOC} [document] guide/security.md "Security" '
                                     f"(level 0, score ")
    everything = {h.node.id for h in tree.search("chunker", 10, embeddings="bm25",
                                                   piece_tokens=200).hits}
    assert README_DOC in everything and "F-root" in everything
    guide = tree.search("chunker", 10, embeddings="bm25", piece_tokens=200, prefix="guide/")
    kept = {h.node.id for h in guide.hits}
    # the guide's nodes, and the folder all of whose files are in it; not the root nor README
    assert kept == {FOLDER, INSTALL_DOC, *INSTALL_LEAVES, SECURITY_DOC}
    one_file = tree.search("chunker", 10, embeddings="bm25", piece_tokens=200,
                           prefix="./guide/install.md")
    assert {h.node.id for h in one_file.hits} == {INSTALL_DOC, *INSTALL_LEAVES}
    leaf_line = next(line for line in one_file.render().splitlines()
                     if line.startswith(f"- {INSTALL_LEAVES[0]} "))
    assert leaf_line.startswith(f"- {INSTALL_LEAVES[0]} (guide/install.md, chars 0-"
                                f"{len(INSTALL[0])}; level 0, score ")


def test_a_prefix_no_file_has_is_refused_with_the_top_folders(tree):
    with pytest.raises(NavigationError) as caught:
        tree.search("chunker", 3, embeddings="bm25", piece_tokens=200, prefix="tutorial/")
    message = str(caught.value)
    assert "no file of this tree starts with 'tutorial/'" in message
    assert "guide/, README.md" in message and "\n" not in message


def test_unknown_ids_are_explained_in_corpus_terms(tree):
    with pytest.raises(UnknownNode) as caught:
        tree.open_node("L0-00000")
    message = str(caught.value)
    assert "F-root" in message and FOLDER in message and INSTALL_LEAVES[0] in message
    assert "run from" not in message


def test_the_walk_chooses_folders_and_documents_by_title_and_summary(tree, out):
    refs = [tree.ref(c) for c in tree.node("F-root").children]
    listing = children_listing(refs)
    assert listing.splitlines() == [
        "[1] [folder] Handbook: How to install the tool and keep secrets safe.",
        '[2] [document] README.md "Readme": What chunker does.']
    # 'handbook' is only in the folder's title: the title is what a question can match
    node_only = NavigatorSettings(embeddings="bm25", child_scoring="node")
    folder_score, readme_score = child_scores(tree, node_only, "handbook", [FOLDER, README_DOC])
    assert folder_score > 0 and readme_score == 0
    result = ask(str(out), "Where are tokens kept, the keyring?",
                 NavigatorSettings(mode="descend", model=None, embeddings="bm25", budget_tokens=5000,
                                   max_leaves=1))
    assert result.path[:3] == ["F-root", FOLDER, SECURITY_DOC] and result.leaves == [SECURITY_DOC]
    assert result.answer == SECURITY.strip()


def test_tools_take_a_path_prefix(tree):
    tools = {t.name: t for t in make_tools(tree, BM25)}
    schema = tools["search"].args_schema.model_json_schema()
    assert "path_prefix" in schema["properties"] and "folder" in tools["search"].description
    assert "F-root" in tools["open_node"].args_schema.model_json_schema()["properties"][
        "node_id"]["description"]
    text = tools["search"].invoke({"query": "chunker", "k": 10, "path_prefix": "README"})
    assert _hit_ids(text) == [README_DOC]
    assert "no file of this tree starts with 'nope/'" in tools["search"].invoke(
        {"query": "chunker", "path_prefix": "nope/"})
    assert f"[folder] Handbook" in tools["overview"].invoke({})


def test_mcp_search_takes_a_path_prefix(out):
    server = build_server([out], BM25)

    async def session():
        async with Client(server) as client:
            listed = await client.list_tools()
            scoped = await client.call_tool("search", {"query": "chunker", "k": 10,
                                                       "path_prefix": "guide/security.md"})
            bad = await client.call_tool("search", {"query": "chunker", "path_prefix": "x/"})
            return listed, scoped, bad

    listed, scoped, bad = asyncio.run(session())
    schema = next(t for t in listed.tools if t.name == "search").input_schema
    assert "path_prefix" in schema["properties"]
    assert _hit_ids("\n".join(c.text for c in scoped.content)) == [SECURITY_DOC]
    assert bad.is_error and "top folders and files are guide/, README.md" in bad.content[0].text


def test_ask_names_the_leaves_files(out):
    proc = invoke("ask", out, "Where are tokens kept, the keyring?", "--embeddings-only", "--mode",
                  "descend", "--embeddings", "bm25", "--max-leaves", "1", "--json", "--quiet", check=0)
    record = json.loads(proc.stdout)
    assert record["leaves"] == [SECURITY_DOC]
    assert record["sources"] == [{"id": SECURITY_DOC, "source": "guide/security.md",
                                  "span": [0, len(SECURITY)]}]


def test_fidelity_and_cost_evaluate_a_corpus_tree(out):
    from chunker.evaluation.cost import evaluate_cost
    from chunker.evaluation.fidelity import evaluate_fidelity

    fidelity = evaluate_fidelity(out)
    assert [n["id"] for n in fidelity["nodes"]][:4] == [*INSTALL_LEAVES, SECURITY_DOC, README_DOC]
    assert evaluate_cost(out)["leaves"] == 4


def test_a_single_document_tree_renders_ids_only(tmp_path):
    text = "One sentence here. Another sentence there.\n"
    cut = text.index("Another")
    leaves = [_node(f"L0-0000{i}", 0, "leaf", "L1-00000", source="one.txt", span=span,
                    original=text[span[0]:span[1]], summary=f"Part {i}.")
              for i, span in enumerate([(0, cut), (cut, len(text))])]
    root = _node("L1-00000", 1, "document", None, children=[n.id for n in leaves],
                 source="one.txt", span=(0, len(text)), summary="Two sentences.", title="One")
    meta = RunMeta(tool_version="test", model="scripted", doc_id="one", source="one.txt",
                   source_chars=len(text), config={}, stats={})
    single = open_tree(write_tree(tmp_path / "one", Hierarchy(root=root.id, nodes=[root, *leaves],
                                                               meta=meta)))
    assert single.overview().render() == ("[L1-00000] level 1\nsummary: Two sentences.\n\n"
                                          "Two sentences. (synthesis)\n\nchildren:\n"
                                          "- L0-00000: Part 0.\n- L0-00001: Part 1.")
    assert single.read_original("L0-00001").render() == f"[L0-00001] characters {cut}-{len(text)}" \
                                                        f"\n\n{text[cut:]}"
    assert children_listing([single.ref(n.id) for n in leaves]) == "[1] Part 0.\n[2] Part 1."
    assert _hit_ids(single.search("another", 1, embeddings="bm25", piece_tokens=200).render()) \
        == ["L0-00001"]
    assert "SearchArgs" == {t.name: t for t in make_tools(single, BM25)}["search"].args_schema.__name__
    with pytest.raises(UnknownNode, match="ids run from L0-00000 up to its root L1-00000"):
        single.node("F-root")


@pytest.mark.parametrize("embeddings", ["bm25", "lexical"])
def test_inside_a_document_a_corpus_ranks_children_as_the_document_alone(tmp_path, embeddings):
    """The other files' words and nodes neither shift a document's ranks nor dilute its terms."""
    from conftest import CINDERELLA, RUST

    root = tmp_path / "corpus"
    root.mkdir()
    (root / "cinderella.txt").write_text((CINDERELLA).read_text(encoding="utf-8"),
                                         encoding="utf-8")
    (root / "strings.md").write_text((RUST / "rust-book-ch08-02-strings.md").read_text(
        encoding="utf-8"), encoding="utf-8")
    args = ["--model", "scripted", "--quiet", "--min-chunk-tokens", "120", "--max-chunk-tokens", "300"]
    invoke("run", root, "-o", tmp_path / "c", *args, check=0)
    invoke("run", root / "cinderella.txt", "-o", tmp_path / "s", *args, check=0)
    corpus, alone = open_tree(tmp_path / "c"), open_tree(tmp_path / "s")
    key = next(n.id for n in corpus.hierarchy.nodes if n.kind == "document"
               and n.source == "cinderella.txt").split(".")[0]
    cfg = NavigatorSettings(embeddings=embeddings, child_scoring="hybrid", cache_embeddings=False)
    blocks = [n for n in alone.hierarchy.nodes if n.children]
    assert len(blocks) >= 2
    for question in ("What did the bird throw down?", "Why did the sisters cut their feet?"):
        for block in blocks:
            ours = child_scores(corpus, cfg, question, [f"{key}.{c}" for c in block.children])
            theirs = child_scores(alone, cfg, question, block.children)
            assert ours == pytest.approx(theirs)


def test_a_schema_2_tree_still_opens(tmp_path):
    """Trees written before schema 3 (one document, `kind` holding the Markdown leaf type)."""
    from conftest import ROOT

    out = tmp_path / "old"
    out.mkdir()
    (out / "hierarchy.json").write_bytes((ROOT / "tests" / "fixtures" / "schema2" / "hierarchy.json").read_bytes())
    tree = open_tree(out)
    h = tree.hierarchy
    assert h.schema_version == SCHEMA_VERSION and not tree.is_corpus
    assert h.by_id()[h.root].kind == "document"
    assert "leaf" in {n.kind for n in h.nodes} <= {"document", "block", "leaf"}
    assert {n.content for n in h.leaves()} <= {"prose", "table", "code", "math", "figure", "mixed"}
    assert {n.source for n in h.nodes} == {"rust-book-ch03-02-data-types.md"}
    check_tree(h)
    assert tree.read_original(h.leaves()[0].id).original == h.leaves()[0].original
