"""`chunker site`: what it writes, without a browser (tests/test_site_browser.py opens it).

The trees are the session's (tests/site_fixtures.py): Cinderella and a four-note corpus,
built with the scripted model. Tests that change a tree work on a copy.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from chunker.output.hierarchy import Hierarchy
from chunker.site.build import MARKER, write_site
from chunker.site.data import search_data, tokens
from chunker.site.tree import SiteInputError, load_site_tree, page_name
from conftest import invoke

EVIL = '<img src=x onerror="alert(1)"></script><b>"&'


def copy_of(built, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(built.out, out, ignore=shutil.ignore_patterns("site"))
    return out


def edit_tree(out: Path, change) -> dict:
    path = out / "hierarchy.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return data


def test_every_node_has_a_page_and_the_site_is_self_contained(cinderella_site):
    h = Hierarchy.model_validate_json((cinderella_site.out / "hierarchy.json").read_bytes())
    site = cinderella_site.site
    assert {p.name for p in (site / "n").iterdir()} == {page_name(n.id) for n in h.nodes}
    for name in ("index.html", "search.html", "picture.html", "data/tree.js", "data/search.js",
                 "assets/site.js", "assets/search.js", "assets/site.css"):
        assert (site / name).is_file(), name
    # nothing from the network, no module or fetch (both blocked on file://)
    for path in site.rglob("*"):
        if path.suffix in (".html", ".js", ".css"):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), path
            assert 'type="module"' not in text and "fetch(" not in text and "import(" not in text, path
    assert (site / "data" / "tree.js").read_text(encoding="utf-8").startswith("window.CHUNKER_TREE = {")
    listed = set((site / MARKER).read_text(encoding="utf-8").split())
    assert listed == {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()} - {MARKER}


def test_the_leaf_page_has_its_texts_its_place_and_its_neighbours(cinderella_site):
    h = Hierarchy.model_validate_json((cinderella_site.out / "hierarchy.json").read_bytes())
    leaf = h.leaves()[1]
    html = (cinderella_site.site / "n" / page_name(leaf.id)).read_text(encoding="utf-8")
    assert "Self-sufficient text" in html and "Original" in html
    first_line = leaf.original.strip().splitlines()[0].strip()
    assert first_line.replace("'", "&#39;").replace('"', "&#34;") in html
    assert f"characters {leaf.span[0]}–{leaf.span[1]}" in html
    assert f"<dd>{leaf.boundary}" in html
    assert f'rel="prev" id="prev" href="../n/{page_name(h.leaves()[0].id)}"' in html
    assert f'rel="next" id="next" href="../n/{page_name(h.leaves()[2].id)}"' in html
    assert 'href="../index.html">Overview</a>' in html


def test_the_overview_has_the_runs_facts(cinderella_site):
    html = (cinderella_site.site / "index.html").read_text(encoding="utf-8")
    h = Hierarchy.model_validate_json((cinderella_site.out / "hierarchy.json").read_bytes())
    assert "<dt>Model</dt><dd>scripted</dd>" in html
    assert f"<td>calls.total</td><td>{h.meta.stats['calls.total']}</td>" in html
    assert "Never updated since it was built." in html
    assert "Wall time" in html  # from .chunker/run.json
    for c in h.by_id()[h.root].children:
        assert f'href="n/{page_name(c)}"' in html


def test_everything_from_the_tree_is_escaped(cinderella_site, tmp_path):
    out = copy_of(cinderella_site, tmp_path)

    def poison(data):
        for n in data["nodes"]:
            n["summary"] = EVIL + n["summary"]
            n["title"] = EVIL
            n["rewritten"] = EVIL + "\n\n[a link](javascript:alert(1)) ![pic](x.png) " + n["rewritten"]
            if n.get("original") is not None:
                n["original"] = n["original"]  # the original must stay: the tree is lossless
    edit_tree(out, poison)
    write_site(out)
    for path in (out / "site").rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        assert "<img src=x" not in html and "<b>" not in html, path
        assert 'href="javascript:' not in html and 'src="x.png"' not in html, path
    tree_js = (out / "site" / "data" / "tree.js").read_text(encoding="utf-8")
    assert "</script>" not in tree_js and "<img" not in tree_js


def test_tables_checks_terms_and_references_are_shown_when_the_tree_has_them(cinderella_site, tmp_path):
    out = copy_of(cinderella_site, tmp_path)
    h = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    a, b = h.leaves()[0].id, h.leaves()[2].id

    def add(data):
        data["tables"] = [{"caption": "Table 1: the dishes", "node": a,
                           "columns": [{"name": "Dish", "path": ["Kitchen", "Dish"]}, "Lentils"],
                           "rows": [["first", {"text": "12", "number": 12}], {"cells": ["Total", "13"]}]},
                          {"caption": "a shape this version does not know", "node": a, "rows": 7}]
        data["checks"] = [{"kind": "table-total", "severity": "error", "message": "the total does not add up",
                           "locations": [{"node": a, "quote": "Total 13"}, {"node": b}]}]
        data["terms"] = [{"name": "hazel-tree", "aliases": ["hazel twig"],
                          "definition": {"node": a, "text": "the tree on the grave"},
                          "mentions": [{"node": b}]}]
        data["edges"] = [{"kind": "refers_to", "from": b, "to": a, "text": "see above"}]
    edit_tree(out, add)
    write_site(out)
    page_a = (out / "site" / "n" / page_name(a)).read_text(encoding="utf-8")
    assert "Table: Table 1: the dishes" in page_a and "<th>Kitchen / Dish</th>" in page_a
    assert "<td>Total</td><td>13</td>" in page_a
    assert "&#34;rows&#34;: 7" in page_a  # an unknown shape: its JSON, and the page still works
    assert "the total does not add up" in page_a and "hazel twig" in page_a
    assert "Referred to by:" in page_a
    page_b = (out / "site" / "n" / page_name(b)).read_text(encoding="utf-8")
    assert f'<a href="../n/{page_name(a)}">hazel-tree</a>' in page_b and "see above" in page_b
    picture = (out / "site" / "picture.html").read_text(encoding="utf-8")
    assert f'href="n/{page_name(a)}"><rect class="lv0 k-leaf o-check"' in picture
    overview = (out / "site" / "index.html").read_text(encoding="utf-8")
    assert "Checks (1)" in overview


def test_a_schema_2_tree_opens(cinderella_site, tmp_path):
    out = copy_of(cinderella_site, tmp_path)

    def to_schema_2(data):
        data["schema_version"] = 2
        for n in data["nodes"]:
            n.pop("kind")
            n.pop("source")
    edit_tree(out, to_schema_2)
    report = write_site(out)
    assert report.pages == len(load_site_tree(out).order) + 3


def test_the_search_index_holds_every_leafs_words(cinderella_site):
    t = load_site_tree(cinderella_site.out)
    data = search_data(t)
    leaf = t.h.leaves()[3]
    row = t.index[leaf.id]
    for word in set(tokens(leaf.original)):
        assert row in data["terms"][word][::2], word
    assert "the" not in data["terms"]


def test_a_corpus_site_starts_with_its_folders_and_documents(corpus_site):
    t = load_site_tree(corpus_site.out)
    root = t.nodes[t.h.root]
    assert [t.nodes[c].kind for c in root.children] == ["folder", "folder"]
    picture = (corpus_site.site / "picture.html").read_text(encoding="utf-8")
    rects = re.findall(r'<rect class="lv\d+ k-(\w+)[^"]*" x="[\d.]+" y="([\d.]+)"', picture)
    assert {k for k, y in rects if float(y) == 0} == {"folder"}
    second = min(float(y) for k, y in rects if float(y) > 0)
    assert {k for k, y in rects if float(y) == second} == {"folder"}
    third = min(float(y) for k, y in rects if float(y) > second)
    assert {k for k, y in rects if float(y) == third} == {"document"}
    overview = (corpus_site.site / "index.html").read_text(encoding="utf-8")
    assert "<dt>Documents</dt><dd>4</dd>" in overview and "Folders and documents (2)" in overview


def test_bad_input_is_one_line_exit_2_and_nothing_written(cinderella_site, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = invoke("site", empty, check=2)
    assert "no finished tree" in proc.stderr and not any(empty.iterdir())
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine", encoding="utf-8")
    proc = invoke("site", cinderella_site.out, "--to", theirs, check=2)
    assert "holds no site chunker wrote" in proc.stderr
    assert [p.name for p in theirs.iterdir()] == ["notes.txt"]


def test_a_site_is_replaced_whole_but_a_users_file_in_it_stops_it(cinderella_site, tmp_path):
    out = copy_of(cinderella_site, tmp_path)
    write_site(out, tmp_path / "web")
    (tmp_path / "web" / "search.html").unlink()
    write_site(out, tmp_path / "web")
    assert (tmp_path / "web" / "search.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "web"]  # no half-built folder left
    mine = tmp_path / "web" / "n" / "mine.html"
    mine.write_text("mine", encoding="utf-8")
    with pytest.raises(SiteInputError, match="mine.html is in the way"):
        write_site(out, tmp_path / "web")
    assert mine.read_text(encoding="utf-8") == "mine"


def test_the_rewritten_markdown_keeps_the_pages_headings_and_links_inside_the_site():
    from chunker.site.prose import Prose

    html = str(Prose()("# Part\n\n## " + "run on " * 40 + "\n\nSee [the guide](../guide.md), "
                       "[FastAPI](https://fastapi.tiangolo.com) and ![a cat](cat.png). <i>raw</i>"))
    assert "<h3>Part</h3>" in html and "<h1>" not in html and "<h4>" not in html
    assert html.count("<p>") == 2  # the run-on "heading" is the paragraph it is
    assert '<span class="link" title="../guide.md">the guide</span>' in html
    assert '<a href="https://fastapi.tiangolo.com" rel="noopener noreferrer">FastAPI</a>' in html
    assert "[image: a cat]" in html and "<img" not in html and "&lt;i&gt;raw&lt;/i&gt;" in html
