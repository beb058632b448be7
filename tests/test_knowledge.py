"""The knowledge passes: links resolved inside OUT, terms, references, checks, the tools and
the navigator's definition route. Most tests build a small tree in the test (leaves cut where
the test says) and run the passes and the writer on it; the last ones run real trees."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from chunker.knowledge.crawl import dangling_links
from chunker.knowledge.passes import annotate
from chunker.navigation import knowledge
from chunker.navigation.definitions import DefinitionRoute, asked_term
from chunker.navigation.errors import NavigationError
from chunker.navigation.tree import Tree, open_tree
from chunker.output.hierarchy import (CorpusDocument, CorpusMeta, Hierarchy, RunMeta, TreeNode,
                                      check_lossless)
from chunker.output.writer import write_tree
from conftest import ROOT, invoke

DATA = ROOT / "tests" / "data" / "knowledge"


def corpus_tree(files: dict[str, list[str]]) -> Hierarchy:
    """A corpus tree: one folder over the files, each file's leaves as given (a file of one
    piece is its own document node)."""
    nodes, docs = [], []
    for i, (rel, pieces) in enumerate(files.items()):
        key, stem = f"D{i:08x}", Path(rel).with_suffix("").as_posix().lower().replace(" ", "-")
        text = "".join(pieces)
        if len(pieces) == 1:
            doc = TreeNode(id=f"{key}.L0-00000", level=0, kind="document", source=rel, parent="F-root",
                           span=(0, len(text)), original=text, rewritten=text, summary=text[:40],
                           slug=stem, filename=f"content/{stem}.md", token_count=1, title=Path(rel).stem)
            nodes.append(doc)
        else:
            leaves, pos = [], 0
            for j, piece in enumerate(pieces):
                leaves.append(TreeNode(id=f"{key}.L0-{j:05d}", level=0, kind="leaf", source=rel,
                                       parent=f"{key}.L1-00000", span=(pos, pos + len(piece)), original=piece,
                                       rewritten=piece, summary=piece[:40], slug=f"p{j}",
                                       filename=f"content/{stem}/L0/p{j}.md", token_count=1))
                pos += len(piece)
            doc = TreeNode(id=f"{key}.L1-00000", level=1, kind="document", source=rel, parent="F-root",
                           children=[n.id for n in leaves], span=(0, pos), rewritten=text[:80],
                           summary=text[:40], slug=stem, filename=f"content/{stem}.md", token_count=1,
                           title=Path(rel).stem)
            nodes += [doc, *leaves]
        docs.append(CorpusDocument(source=rel, doc_id=key, sha256="0" * 64, chars=len(text), kind="text",
                                   node=doc.id, title=Path(rel).stem))
    root = TreeNode(id="F-root", level=max(n.level for n in nodes) + 1, kind="folder", parent=None,
                    children=[d.node for d in docs], span=None, rewritten="vault", summary="vault",
                    slug="vault", filename="content/vault.md", token_count=1, title="vault")
    meta = RunMeta(tool_version="t", model="scripted", doc_id="c", source_chars=0, config={}, stats={},
                   corpus=CorpusMeta(root="vault", documents=docs))
    return Hierarchy(root="F-root", nodes=[root, *nodes], meta=meta)


VAULT = {
    "Alpha.md": ["# Alpha\n\nSee [[Beta]], [[Beta#Details|the details]] and [[sub/Gamma#^blk1|a block]].\n",
                 "A *widget* is a small reusable part. Also [notes](sub/Gamma.md#second-part).\n"
                 "Gone: [[Missing Note|an alias]] and [[Nowhere]].\n\n```python\nx = '[[Not A Link]]'\n```\n\n"
                 "Inline `[[Code Link]]`, and [a site](https://example.com/page.md).\n"],
    "Beta.md": ["# Beta\n\nBeta uses the widget and a Large Language Model (LLM).\n\n",
                "## Details\n\nLLMs are big; widgets are small. Back to [[Alpha]].\n"],
    "sub/Gamma.md": ["# Gamma\n\nA line with a block. ^blk1\n\n",
                     "## Second part\n\nMore about the LLM.\n"],
    "Lonely.md": ["# Lonely\n\nNothing links here. A *gizmo* is a thing nobody uses.\n"],
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> tuple[Hierarchy, Path]:
    h = annotate(corpus_tree(VAULT))
    out = tmp_path_factory.mktemp("vault") / "out"
    out.mkdir()
    write_tree(out, h, "vault")
    return h, out


def links_of(h: Hierarchy) -> dict[str, str]:
    return {e.text: e.target for e in h.edges if e.kind == "links_to"}


def test_wiki_links_with_alias_heading_and_block_resolve_to_the_right_nodes(vault):
    h, out = vault
    links = links_of(h)
    assert links["[[Beta]]"] == "D00000001.L1-00000"  # the file: its document node
    assert links["[[Beta#Details|the details]]"] == "D00000001.L0-00001"  # the heading's leaf
    assert links["[[sub/Gamma#^blk1|a block]]"] == "D00000002.L0-00000"  # the block id's leaf
    assert links["[notes](sub/Gamma.md#second-part)"] == "D00000002.L0-00001"  # a Markdown anchor
    assert links["[[Alpha]]"] == "D00000000.L1-00000"
    body = (out / "content/alpha/L0/p0.md").read_text(encoding="utf-8")
    assert "[[content/beta|Beta]]" in body and "[[content/beta/L0/p1|the details]]" in body
    assert "[[content/sub/gamma/L0/p0|a block]]" in body
    assert "[[content/sub/gamma/L0/p1|notes]]" in (out / "content/alpha/L0/p1.md").read_text(encoding="utf-8")


def test_a_link_to_a_missing_note_becomes_plain_text_and_is_listed(vault):
    h, out = vault
    gone = {u.text: u for u in h.unresolved if u.ref == "wiki-link"}
    assert set(gone) == {"[[Missing Note|an alias]]", "[[Nowhere]]"}
    text = "".join(VAULT["Alpha.md"])
    for u in gone.values():
        assert text[u.span[0]:u.span[1]] == u.text and u.file == "Alpha.md" and u.reason == "no such note"
    page = (out / "content/alpha/L0/p1.md").read_text(encoding="utf-8")
    body = page[:page.index("## Original text")]
    assert "Gone: an alias and Nowhere." in body and "Missing Note" not in body


def test_links_in_code_stay_code_and_urls_stay_as_they_are(vault):
    h, out = vault
    assert not any("Not A Link" in e.text or "Code Link" in e.text for e in h.edges)
    page = (out / "content/alpha/L0/p1.md").read_text(encoding="utf-8")
    body = page[:page.index("## Original text")]
    assert "x = '[[Not A Link]]'" in body and "`[[Code Link]]`" in body
    assert "[a site](https://example.com/page.md)" in body


def test_the_original_text_keeps_the_source_bytes(vault):
    h, out = vault
    for rel, pieces in VAULT.items():
        check_lossless(h.leaves(rel), "".join(pieces))
    page = (out / "content/alpha/L0/p0.md").read_text(encoding="utf-8")
    assert VAULT["Alpha.md"][0] in page  # inside the Original text fence, as written


def test_a_crawl_of_out_finds_no_dangling_link(vault):
    h, out = vault
    seen, dead = dangling_links(out)
    assert seen > 20 and dead == []


def test_the_crawl_sees_a_dangling_link(tmp_path):
    """The crawl above can fail: a raw wiki-link to a note OUT lacks is found."""
    (tmp_path / "a.md").write_text("see [[nowhere]] and [[a]]\n", encoding="utf-8")
    assert dangling_links(tmp_path) == (2, [("a.md", "[[nowhere]]")])


def test_terms_merge_acronyms_plurals_and_case(vault):
    h, out = vault
    terms = {t.name: t for t in h.terms}
    llm = terms["Large Language Model"]
    assert llm.aliases == ["LLM"] and llm.definition.node == "D00000001.L0-00000"
    assert llm.definition.how == "acronym" and llm.mentions == 2  # "LLMs", "the LLM"
    assert set(llm.documents) == {"Beta.md", "sub/Gamma.md"}
    widget = terms["widget"]
    assert widget.definition.text == "A *widget* is a small reusable part."
    assert widget.mentions == 2 and widget.definition.node == "D00000000.L0-00001"  # "widget", "widgets"
    page = (out / f"terms/{llm.id}.md").read_text(encoding="utf-8")
    assert "aliases:\n- LLM" in page and "> Beta uses the widget and a Large Language Model (LLM)." in page
    assert "[[content/beta/L0/p0|" in page and "[[content/sub/gamma/L0/p1|" in page
    line = next(x for x in (out / "content/beta/L0/p0.md").read_text().splitlines() if x.startswith("Terms:"))
    assert f"[[terms/{llm.id}|Large Language Model]]" in line


def test_the_checks_record_both_places_and_fix_nothing(vault):
    h, _ = vault
    kinds = {}
    for c in h.checks:
        kinds.setdefault(c.kind, []).append(c)
    assert {c.locations[0].source for c in kinds["orphan-note"]} == {"Lonely.md"}
    assert [c.locations[0].quote for c in kinds["unused-term"]] == ["A *gizmo* is a thing nobody uses."]
    assert {c.locations[0].quote for c in kinds["dangling-reference"]} == {"[[Missing Note|an alias]]",
                                                                          "[[Nowhere]]"}
    conflicted = annotate(corpus_tree({
        "a.md": ["A **widget** is a small reusable part of a machine.\n"],
        "b.md": ["A **widget** is a kind of cheese from the north, eaten cold.\n"],
        "c.md": ["Link [[a]] [[b]] widget.\n"]}))
    conflict = [c for c in conflicted.checks if c.kind == "term-conflict"]
    assert len(conflict) == 1 and [loc.source for loc in conflict[0].locations] == ["a.md", "b.md"]
    assert len(conflicted.terms[0].definitions) == 2  # both kept: nothing is silently chosen away


def rust_tree() -> Hierarchy:
    text = (DATA / "rust-data-types-excerpt.md").read_text(encoding="utf-8")
    cut = [0, text.index("#### Integer Types"), text.index("Each variant"), text.index("### Compound"),
           text.index("This program first"), len(text)]
    return annotate(corpus_tree({"data-types.md": [text[a:b] for a, b in zip(cut, cut[1:])]}))


def test_terms_of_a_rust_chapter_and_their_defining_nodes():
    h = rust_tree()
    terms = {t.name.casefold(): t for t in h.terms}
    expect = {"scalar": 0, "integer": 1, "signed": 2, "compound types": 3, "tuple": 3, "destructuring": 4,
              "unit": 4, "array": 4}
    for name, leaf in expect.items():
        assert terms[name].definition.node == f"D00000000.L0-{leaf:05d}", name
    assert terms["tuple"].mentions > 5  # "tuple", "tuples", "Tuple" in the heading
    assert terms["tuple"].definition.how == "sentence"


def test_references_resolved_and_unresolved():
    h = rust_tree()
    refers = [e for e in h.edges if e.kind == "refers_to"]
    assert [(e.text, e.target) for e in refers] == [("Table 3-1", "D00000000.L0-00001")]
    gone = [(u.ref, u.text) for u in h.unresolved]
    assert gone == [("chapter", "Chapter 2")]
    numbered = annotate(corpus_tree({"paper.md": [
        "# 1 Introduction\n\nAs Section 2.1 shows, and Figure 3 below.\n\n",
        "## 2.1 Method\n\nWe measure. See the table below.\n\n",
        "Table 1: Results\n\n| a |\n|---|\n\nFigure 3: A plot. Equation (4) is missing; page 9 too.\n"]}))
    got = {e.text: e.target for e in numbered.edges if e.kind == "refers_to"}
    assert got == {"Section 2.1": "D00000000.L0-00001", "Figure 3": "D00000000.L0-00002",
                   "the table below": "D00000000.L0-00002"}
    assert {u.ref for u in numbered.unresolved} == {"equation", "page"}
    assert {c.kind for c in numbered.checks} >= {"dangling-reference"}


def test_define_mentions_and_follow_tools(vault):
    from chunker.navigation.tools import make_tools

    _, out = vault
    tools = {t.name: t for t in make_tools(open_tree(out))}
    shown = tools["define"].invoke({"term": "LLMs"})
    assert "Large Language Model (also: LLM)" in shown and "[D00000001.L0-00000] (Beta.md, chars" in shown
    assert "2 mentions" in tools["mentions"].invoke({"term": "large language models"})
    assert "[D00000001.L0-00001]" in tools["follow"].invoke({"reference": "[[Beta#Details|the details]]"})
    assert "no term 'sprocket'" in tools["define"].invoke({"term": "sprocket"})
    assert "resolves nowhere" in tools["follow"].invoke({"reference": "[[Nowhere]]"})
    opened = open_tree(out).open_node("D00000000.L0-00000").render()
    assert "refers to:\n- D00000001.L1-00000" in opened  # outgoing references are neighbours


def test_the_definition_route_and_its_fallback(vault):
    _, out = vault
    tree = open_tree(out)
    assert asked_term("What is a widget?") == "widget" and asked_term("Who is Emma?") is None
    assert asked_term("What does LLM mean?") == "LLM" and asked_term("Why is it so?") is None
    got = DefinitionRoute().answer(tree, "what are widgets?", 300)
    assert got.path == "definition" and "A *widget* is a small reusable part." in got.text
    assert got.nodes == ["D00000000.L0-00001"] and got.tokens <= 300
    tight = DefinitionRoute().answer(tree, "define widget", 12)
    assert tight.tokens <= 12 and "widget" in tight.text
    assert DefinitionRoute().answer(tree, "what is a sprocket?", 300) is None
    assert DefinitionRoute().answer(tree, "where is the widget used?", 300) is None


def test_the_navigator_takes_the_definition_route_first_and_falls_back(vault):
    from chunker.graph.navigator_ask import ask
    from chunker.navigation.settings import NavigatorSettings

    _, out = vault
    cfg = NavigatorSettings(model=None, embeddings="bm25", budget_tokens=300)
    defined = ask(str(out), "What is an LLM?", cfg)
    assert defined.route == "definition" and defined.leaves == ["D00000001.L0-00000"]
    assert "Large Language Model (LLM)" in defined.answer and defined.tokens_read <= 300
    other = ask(str(out), "Which note has a block?", cfg)
    assert other.route == "collapsed" and other.status == "read"


def test_a_tree_written_before_the_passes_opens_with_no_terms(vault, tmp_path):
    _, out = vault
    old = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    for field in ("terms", "edges", "unresolved", "checks"):
        old.pop(field)
    old["schema_version"] = 3
    (tmp_path / "hierarchy.json").write_text(json.dumps(old), encoding="utf-8")
    tree = open_tree(tmp_path)
    assert tree.hierarchy.terms == [] and DefinitionRoute().answer(tree, "what is a widget?", 300) is None
    with pytest.raises(NavigationError, match="no term registry"):
        knowledge.define(tree, "widget")


@pytest.mark.slow
def test_an_update_redoes_terms_and_lists_links_into_a_deleted_file(tmp_path):
    src = tmp_path / "vault"
    for rel, pieces in VAULT.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text("".join(pieces), encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", src, "--output-dir", out, "--model", "scripted", "--embeddings", "lexical", "-q", check=0)
    h = Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert {e.text for e in h.edges if e.kind == "links_to"} >= {"[[Beta]]", "[[Alpha]]"}
    assert dangling_links(out)[1] == []
    (src / "Beta.md").unlink()
    (src / "Lonely.md").write_text("# Lonely\n\nA *sprocket* is a toothed wheel. A sprocket turns.\n",
                                   encoding="utf-8")
    invoke("update", out, "--model", "scripted", "-q", check=0)
    h = Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))
    broken = {u.text: u.reason for u in h.unresolved}
    assert broken["[[Beta]]"] == "no such note" and "[[Beta#Details|the details]]" in broken
    names = {t.name for t in h.terms}
    assert "sprocket" in names and "gizmo" not in names and "Large Language Model" not in names
    assert dangling_links(out)[1] == []
    assert {p.stem for p in (out / "terms").glob("*.md")} == {t.id for t in h.terms}  # gone terms' pages too
