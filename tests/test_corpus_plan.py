"""The corpus's upper levels: each author signal (front matter, a toc, folders, file names)
shapes them, in order of trust, on real files."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from chunker.corpus.model import PlanNode
from chunker.corpus.plan import build_plan, toc_section_agreement
from chunker.corpus.signals import Toc, TocEntry, doc_info, find_toc

from conftest import DATA

# every page of the FastAPI docs site, most cut to the front matter and title the planner reads
FASTAPI = DATA / "folders" / "fastapi-docs"
FASTAPI_NAV = FASTAPI.with_name("fastapi-docs.nav.yml")
SECURITY = ["tutorial/security/index.md", "tutorial/security/first-steps.md",
            "tutorial/security/get-current-user.md", "tutorial/security/simple-oauth2.md",
            "tutorial/security/oauth2-jwt.md"]


def write(root: Path, files: dict[str, str]) -> list[str]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return sorted(files)


def plan_of(root: Path, rels: list[str], toc: Toc | None = None, **kw):
    infos = {rel: doc_info(rel, (root / rel).read_text(encoding="utf-8")) for rel in rels}
    return build_plan(rels, infos, toc, corpus_title="Corpus", **kw)


def nodes(node: PlanNode):
    yield node
    for child in node.children:
        if isinstance(child, PlanNode):
            yield from nodes(child)


def node(plan: PlanNode, key: str) -> PlanNode:
    return next(n for n in nodes(plan) if n.key == key)


def node_holding(plan: PlanNode, docs: list[str]) -> PlanNode:
    """The one node whose documents are exactly `docs`."""
    (found,) = [n for n in nodes(plan) if sorted(n.documents()) == sorted(docs)]
    return found


def check_plan(plan: PlanNode, rels: list[str]) -> None:
    """Every document once, every key unique, no one-child or empty node below the root."""
    assert sorted(plan.documents()) == sorted(rels)
    keys = [n.key for n in nodes(plan)]
    assert len(keys) == len(set(keys))
    assert all(len(n.children) >= 2 for n in nodes(plan) if n.key)


@pytest.fixture(scope="module")
def fastapi(tmp_path_factory) -> tuple[Path, list[str]]:
    """A copy of fastapi-docs with its nav as mkdocs.yml (tests/data stays untouched)."""
    root = tmp_path_factory.mktemp("fastapi") / "docs"
    shutil.copytree(FASTAPI, root)
    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    (root / "mkdocs.yml").write_text(
        "site_name: FastAPI\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "extra:\n  analytics: !ENV GOOGLE_ANALYTICS_KEY\n"
        + FASTAPI_NAV.read_text(encoding="utf-8"), encoding="utf-8")
    return root, rels


# -- signals: what a document says about itself -----------------------------------------

def test_title_from_front_matter_then_heading_then_file_name(tmp_path):
    rels = write(tmp_path, {
        "a.md": "---\ntitle: '  From Front Matter '\n---\n# Heading\n",
        "b.md": "Intro text.\n\nThe *Real* `Title` { #real }\n===\n\n## Later\n",
        "c.md": "---\ntitle: {nested: map}\ntopic: [Guides, Other]\ntags: [x, 2, {y: z}]\n"
                "date: 2023-01-05\n---\nno heading at all\n",
        "02_getting-started.md": "plain text\n",
    })
    infos = {rel: doc_info(rel, (tmp_path / rel).read_text()) for rel in rels}
    a = infos["a.md"]
    assert (a.title, a.title_source) == ("From Front Matter", "front_matter")
    assert (infos["b.md"].title, infos["b.md"].title_source) == ("The Real Title", "heading")
    assert (infos["c.md"].title, infos["c.md"].title_source) == ("C", "file_name")
    assert infos["c.md"].category == "Guides" and infos["c.md"].tags == ("x", "2")
    assert infos["02_getting-started.md"].title == "Getting started"
    pdf = doc_info("papers/2023-01-05-field-notes.pdf", None)
    assert (pdf.title, pdf.title_source) == ("2023-01-05 field notes", "file_name")


def test_tags_and_category_shapes_never_crash():
    comma = doc_info("x.md", "---\ntags: ' a, b ,,a'\ncategory: Howto\ntitle: 1984\n---\n")
    assert comma.tags == ("a", "b") and comma.category == "Howto" and comma.title == "1984"
    first = doc_info("x.md", "---\ntopic: Main\ncategory: Ignored\n---\n# T\n")
    assert first.category == "Main"
    for odd in ("---\ntags: 5\ntopic: {a: 1}\ntitle: [1, 2]\n---\n# T\n",
                "---\n- a list\n---\n# T\n", "---\ntitle: 2020-02-02\ntags:\n---\n",
                "---\ncategory: true\ntags: [[nested]]\n---\n", ""):
        info = doc_info("odd.md", odd)
        assert info.title and info.category is None and info.tags == ()


# -- signals: the table of contents ----------------------------------------------------

def test_mkdocs_nav_with_unknown_tags(fastapi):
    root, rels = fastapi
    toc = find_toc(root, rels)
    assert toc is not None and toc.source == "mkdocs.yml"
    assert toc.entries[0] == TocEntry("FastAPI", "index.md", [])
    learn = toc.entries[2]
    assert learn.title is None and learn.children[0].rel == "learn/index.md"
    tutorial = learn.children[3]
    security = next(e for e in tutorial.children if e.children and
                    e.children[0].rel == "tutorial/security/index.md")
    assert [e.rel for e in security.children] == SECURITY


def test_mkdocs_paths_resolve_against_docs_dir(tmp_path):
    rels = write(tmp_path, {"docs/a.md": "# A\n", "src/b.md": "# B\n", "c.md": "# C\n"})
    (tmp_path / "mkdocs.yml").write_text(
        "docs_dir: src\nnav:\n  - Home: a.md\n  - b.md\n  - c.md\n  - https://example.com\n"
        "  - Gone: missing.md\n  - Empty: []\n"
        "  - Part:\n    - a.md#again\n    - Site: http://x.org\n")
    toc = find_toc(tmp_path, rels)
    assert toc is not None
    assert [(e.title, e.rel) for e in toc.entries] == [
        ("Home", "docs/a.md"), (None, "src/b.md"), (None, "c.md")]


def test_summary_md(tmp_path):
    rels = write(tmp_path, {f"{n}.md": f"# {n}\n" for n in
                            ("README", "guide/one", "guide/two", "guide/three", "ref/api")})
    (tmp_path / "SUMMARY.md").write_text(
        "# Summary\n\n[Introduction](README.md)\n\n# User Guide\n\n"
        "- [One](guide/one.md)\n  - [Two](./guide/two.md#part)\n  - [Draft]()\n"
        "- [Three](<guide/three.md>)\n- [Elsewhere](https://example.com/x.md)\n\n"
        "---\n\n# Reference\n\n1. [API `v2`](ref/api.md)\n")
    toc = find_toc(tmp_path, rels)
    assert toc is not None and toc.source == "SUMMARY.md"
    assert toc.entries == [
        TocEntry("Introduction", "README.md"),
        TocEntry("User Guide", None, [
            TocEntry("One", "guide/one.md", [TocEntry("Two", "guide/two.md")]),
            TocEntry("Three", "guide/three.md")]),
        TocEntry("Reference", None, [TocEntry("API v2", "ref/api.md")])]
    plan, stats = plan_of(tmp_path, rels, toc)
    check_plan(plan, rels)
    assert plan.documents() == ["README.md", "guide/one.md", "guide/two.md", "guide/three.md",
                                "ref/api.md"]
    guide = node_holding(plan, ["guide/one.md", "guide/two.md", "guide/three.md"])
    assert (guide.title, guide.signal) == ("User Guide", "toc")
    assert node_holding(plan, ["guide/one.md", "guide/two.md"]).title == "One"
    assert stats["signals.toc_files"] == 5 and stats["signals.toc_missing"] == 0


@pytest.mark.parametrize("text", ["nav: [a.md\n", "nav: {a: b.md}\n", "just a string\n",
                                  "nav:\n  - a.md\n\tbad: tab\n", "nav:\n  - nothing.md\n"])
def test_malformed_toc_is_none_with_a_warning(tmp_path, caplog, text):
    rels = write(tmp_path, {"a.md": "# A\n"})
    (tmp_path / "mkdocs.yml").write_text(text)
    with caplog.at_level(logging.WARNING, logger="chunker.corpus.signals"):
        assert find_toc(tmp_path, rels) is None
    assert "mkdocs.yml" in caplog.text


def test_mkdocs_without_nav_falls_back_to_summary(tmp_path):
    rels = write(tmp_path, {"a.md": "# A\n", "b.md": "# B\n"})
    (tmp_path / "mkdocs.yml").write_text("site_name: x\ntheme: !ENV THEME\n")
    assert find_toc(tmp_path, rels) is None
    (tmp_path / "SUMMARY.md").write_text("- [B](b.md)\n- [A](a.md)\n")
    toc = find_toc(tmp_path, rels)
    assert toc is not None and [e.rel for e in toc.entries] == ["b.md", "a.md"]


# -- plan --------------------------------------------------------------------------------

def test_toc_gives_sections_and_order(fastapi):
    root, rels = fastapi
    toc = find_toc(root, rels)
    assert toc is not None
    plan, stats = plan_of(root, rels, toc)
    check_plan(plan, rels)
    security = node_holding(plan, SECURITY)
    assert security.signal == "toc" and security.children == SECURITY  # nav order
    assert security.title == "Security"  # untitled section: its index document's title
    nav_order = [rel for rel in plan.documents() if rel in set(_toc_rels(toc.entries))]
    assert nav_order == list(_toc_rels(toc.entries))
    assert plan.documents()[:3] == ["index.md", "features.md", "learn/index.md"]
    missing = ["_llm-test.md", "environment-variables.md", "translation-banner.md",
               "virtual-environments.md"]
    assert plan.children[-4:] == missing  # not in the nav: placed by folder, at the end
    assert stats["signals.toc_files"] == len(rels) - 4 and stats["signals.toc_missing"] == 4
    assert toc_section_agreement(toc, plan) == (12, 12)
    assert plan_of(root, rels, toc) == (plan, stats)  # deterministic


def test_folders_without_toc(fastapi):
    root, rels = fastapi
    toc = find_toc(root, rels)
    assert toc is not None
    plan, stats = plan_of(root, rels, None)
    check_plan(plan, rels)
    security = node(plan, "dir:tutorial/security")
    assert sorted(security.documents()) == sorted(SECURITY)
    assert security.children[0] == "tutorial/security/index.md"
    assert node(plan, "dir:tutorial").title == "Tutorial - User Guide"  # from its index.md
    assert "about/index.md" in plan.children  # a one-document folder adds no level
    assert stats["signals.folders"] == 9 and stats["signals.toc_sections"] == 0
    agree, total = toc_section_agreement(toc, plan)
    assert total == 12 and 0 <= agree <= total


def test_toc_leaves_files_out_placed_by_folder(tmp_path):
    rels = write(tmp_path, {"guide/b.md": "# B\n", "guide/a.md": "# A\n", "guide/new.md": "# N\n",
                            "top.md": "# Top\n", "extra/x.md": "# X\n", "extra/y.md": "# Y\n",
                            "more_stuff/p.md": "# P\n", "more_stuff/q.md": "# Q\n",
                            "r.md": "# R\n", "s/s.md": "# S\n"})
    (tmp_path / "mkdocs.yml").write_text(
        "nav:\n  - top.md\n  - Guide:\n    - guide/b.md\n    - guide/a.md\n"
        "  - '':\n    - more_stuff/q.md\n    - more_stuff/p.md\n"
        "  - '':\n    - r.md\n    - s/s.md\n")
    plan, stats = plan_of(tmp_path, rels, find_toc(tmp_path, rels))
    check_plan(plan, rels)
    assert node(plan, "toc:2").children == ["guide/b.md", "guide/a.md", "guide/new.md"]
    # untitled sections: their documents' common folder, else their first document's title
    assert node(plan, "toc:3").title == "More stuff" and node(plan, "toc:4").title == "R"
    extra = node(plan, "dir:extra")
    assert plan.children[-1] is extra and extra.children == ["extra/x.md", "extra/y.md"]
    assert (stats["signals.toc_files"], stats["signals.toc_missing"]) == (7, 3)


def test_category_overlay_counts_conflicts(tmp_path):
    guide = "---\ncategory: Guides\n---\n# {}\n"
    rels = write(tmp_path, {
        "a/index.md": "---\ntitle: Section A\n---\n", "a/one.md": guide.format("One"),
        "a/two.md": "# Two\n", "b/three.md": guide.format("Three"), "b/four.md": "# Four\n",
        "c/p.md": "---\ntopic: Same\n---\n", "c/q.md": "---\ntopic: Same\n---\n",
        "lonely.md": "---\ncategory: Alone\n---\n",
    })
    plan, stats = plan_of(tmp_path, rels)
    check_plan(plan, rels)
    group = node(plan, "cat:Guides@")
    assert (group.title, group.signal, group.children) == ("Guides", "category",
                                                           ["a/one.md", "b/three.md"])
    assert plan.children.index(group) < plan.children.index(node(plan, "dir:a"))
    assert node(plan, "dir:a").title == "Section A"  # front matter title of its index
    assert stats["signals.conflicts"] == 2 and stats["signals.category_groups"] == 1
    assert node(plan, "dir:c").children == ["c/p.md", "c/q.md"]  # already one node: kept


def test_file_names_order_and_prefix_groups(tmp_path):
    numbered = ["10-end.md", "2. setup.md", "1-intro.md", "index.md"]
    dated = ["2023-02-01-c.md", "2022-12-31-a.md", "2023-01-05-b.md", "2023-01-20-x.md"]
    flat = [f"{p}.md" for p in ("api-one", "api_two", "api three", "cli-run", "cli-stop",
                                "misc", "other", "setup", "zeta")]
    same = [f"api-{n}.md" for n in range(9)]
    rels = write(tmp_path, {f"{d}/{n}": f"{n}\n" for d, names in
                            (("num", numbered), ("log", dated), ("flat", flat), ("same", same))
                            for n in names})
    plan, stats = plan_of(tmp_path, rels)
    check_plan(plan, rels)
    assert node(plan, "dir:num").children == [
        "num/index.md", "num/1-intro.md", "num/2. setup.md", "num/10-end.md"]
    assert node(plan, "dir:log").documents() == [
        "log/2022-12-31-a.md", "log/2023-01-05-b.md", "log/2023-01-20-x.md", "log/2023-02-01-c.md"]
    flat_node = node(plan, "dir:flat")
    api, cli = node(plan, "prefix:api@flat"), node(plan, "prefix:cli@flat")
    assert flat_node.children[:2] == [api, cli] and (api.title, api.signal) == ("Api", "file_name")
    assert len(api.children) == 3 and len(cli.children) == 2
    assert "prefix:2023-01@log" not in {n.key for n in nodes(plan)}  # only 4 documents
    assert node(plan, "dir:same").children == [f"same/api-{n}.md" for n in range(9)]  # all share it
    assert stats["signals.file_name_groups"] == 2


def test_dated_prefix_groups_and_collapse(tmp_path):
    notes = {f"deep/er/notes/2023-{m:02d}-{d:02d}-n.md": "x\n"
             for m in (1, 2, 3) for d in (1, 2, 3)}
    rels = write(tmp_path, {**notes, "deep/er/notes/solo/only.md": "x\n"})
    plan, _ = plan_of(tmp_path, rels, min_group_size=3)
    check_plan(plan, rels)
    # deep/er/notes is the one child of the root: the root takes its children, and the
    # folder `solo` with one document adds no level
    assert (plan.key, plan.title) == ("", "Corpus")
    assert "deep/er/notes/solo/only.md" in plan.children
    assert node(plan, "prefix:2023-02@deep/er/notes").title == "2023-02"
    assert len([n for n in nodes(plan) if n.signal == "file_name"]) == 3


def test_agreement_counts_sections_with_two_documents():
    toc = Toc("SUMMARY.md", [TocEntry("S", "a.md", [TocEntry(None, "b.md")]),
                             TocEntry("T", None, [TocEntry(None, "c.md"), TocEntry(None, "x.md")]),
                             TocEntry("U", None, [TocEntry(None, "d.md"), TocEntry(None, "e.md")])])
    plan = PlanNode("", "R", "root", [PlanNode("k", "K", "toc", ["a.md", "b.md"]), "c.md",
                                      "d.md", "e.md"])
    assert toc_section_agreement(toc, plan) == (1, 2)


def _toc_rels(entries: list[TocEntry]):
    for entry in entries:
        if entry.rel:
            yield entry.rel
        yield from _toc_rels(entry.children)
