"""The site in a real browser: headless Chromium (Debian's), one for the whole run
(tests/site_fixtures.py), opened from file:// (where fetch() of local files and ES modules are
blocked) and once served by `chunker serve`. `page` comes first in each test's arguments: a
missing browser skips (or, with CI set, fails) before any tree is built. Screenshots of each page type are kept under
tests/artifacts/site/ (git-ignored)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from chunker.output.hierarchy import Hierarchy
from chunker.site.data import tokens
from chunker.site.tree import page_name
from site_fixtures import ARTIFACTS, BUILD, chunker


def url(site: Path, rel: str = "index.html") -> str:
    return (site / rel).resolve().as_uri() if "?" not in rel else (
        (site / rel.split("?")[0]).resolve().as_uri() + "?" + rel.split("?", 1)[1])


def tree_of(built) -> Hierarchy:
    return Hierarchy.model_validate_json((built.out / "hierarchy.json").read_bytes())


def outline_labels(page) -> list[str]:
    page.wait_for_selector('body[data-outline="ready"]')
    return page.locator("#tree > li > ul > li > .line > a").all_inner_texts()


@pytest.mark.parametrize("which", ["cinderella_site", "corpus_site"])
def test_the_outline_lists_every_top_level_node(page, which, request):
    built = request.getfixturevalue(which)
    h = tree_of(built)
    from chunker.site.tree import load_site_tree

    t = load_site_tree(built.out)
    page.goto(url(built.site))
    expected = [t.label(h.by_id()[c]) for c in h.by_id()[h.root].children]
    assert outline_labels(page) == expected
    assert page.errors == []


def test_unfolding_the_outline_reaches_a_leaf_by_mouse_and_by_keyboard(page, corpus_site, cinderella_site):
    page.goto(url(corpus_site.site))
    page.wait_for_selector('body[data-outline="ready"]')
    # by mouse: unfold the first folder, then its first document, down to a leaf
    while page.locator('#tree li[aria-expanded="false"]').count():
        page.locator('#tree li[aria-expanded="false"] > .line > .tog').first.click()
        leaves = page.locator("#tree .tog.leaf + a")
        if leaves.count():
            break
    leaf = page.locator("#tree .tog.leaf + a").first
    href = leaf.get_attribute("href")
    leaf.click()
    page.wait_for_load_state()
    assert page.url.endswith(href.split("/")[-1])
    assert page.locator("h2", has_text="Original").count() == 1
    # by keyboard: from the outline's top, End, then arrows and Enter open a page
    page.goto(url(corpus_site.site))
    page.wait_for_selector('body[data-outline="ready"]')
    page.keyboard.press("o")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")  # unfold the first folder
    page.keyboard.press("ArrowRight")  # into it
    focused = page.evaluate("document.activeElement.textContent")
    page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert page.locator("h1").inner_text().startswith(focused)
    # n, p and u walk to the neighbours and up
    leaves = tree_of(cinderella_site).leaves()
    page.goto(url(cinderella_site.site, f"n/{page_name(leaves[1].id)}"))
    page.wait_for_selector('body[data-outline="ready"]')
    page.keyboard.press("n")
    page.wait_for_url(re.compile(re.escape(page_name(leaves[2].id))))
    page.keyboard.press("p")
    page.wait_for_url(re.compile(re.escape(page_name(leaves[1].id))))
    page.keyboard.press("u")
    page.wait_for_url(re.compile(re.escape(page_name(leaves[1].parent))))
    assert page.errors == []


def rare_word(h: Hierarchy) -> tuple[str, str]:
    """A word of exactly one leaf's original, and that leaf's id."""
    where: dict[str, set[str]] = {}
    for leaf in h.leaves():
        for w in tokens(leaf.original):
            where.setdefault(w, set()).add(leaf.id)
    word = sorted(w for w, ids in where.items() if len(ids) == 1 and len(w) > 5 and w.isalpha())[0]
    return word, next(iter(where[word]))


def test_a_search_link_opens_with_the_leaf_of_its_word(page, cinderella_site):
    h = tree_of(cinderella_site)
    word, leaf = rare_word(h)
    page.goto(url(cinderella_site.site, f"search.html?q={word.upper()}"))
    page.wait_for_selector("#results li")
    hrefs = page.locator("#results li > a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert f"n/{page_name(leaf)}" in hrefs
    assert page.locator("#q").input_value() == word.upper()
    # typing a new search updates the results in place
    page.fill("#q", "zzzznotaword")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('0 nodes')")
    assert page.locator("#results li").count() == 0
    assert page.errors == []


def crawl(page, site: Path) -> tuple[set[str], list[str], Counter]:
    """Every page reachable from the overview: the pages seen, the links whose target is not
    a file of the site, and the page types seen."""
    start = url(site)
    todo, seen, broken, kinds = [start], set(), [], Counter()
    while todo:
        at = todo.pop()
        if at in seen:
            continue
        seen.add(at)
        page.goto(at)
        page.wait_for_selector('body[data-outline="ready"]')
        kinds[page.evaluate("document.body.dataset.page")] += 1
        targets = page.evaluate("""() => [...document.querySelectorAll('a[href], link[href], script[src]')]
            .map(e => new URL(e.getAttribute('href') || e.getAttribute('src'), document.baseURI).href)""")
        for target in targets:
            parsed = urlparse(target)
            if parsed.scheme in ("http", "https", "mailto", "data"):
                continue  # a link of the source text to another site; the empty icon
            assert parsed.scheme == "file", target
            path = Path(unquote(parsed.path))
            if not path.is_file():
                broken.append(f"{at} -> {target}")
            elif path.suffix == ".html":
                todo.append(path.as_uri() + (f"?{parsed.query}" if parsed.query else ""))
    return seen, broken, kinds


@pytest.mark.parametrize("which", ["cinderella_site", "corpus_site"])
def test_every_link_resolves_and_no_page_logs_an_error(page, which, request):
    built = request.getfixturevalue(which)
    seen, broken, kinds = crawl(page, built.site)
    assert broken == []
    assert page.errors == []
    pages = {p.resolve().as_uri() for p in built.site.rglob("*.html")}
    assert pages <= {s.split("?")[0] for s in seen}  # every page is reachable
    assert set(kinds) == {"overview", "node", "search", "picture"}


def test_a_screenshot_of_each_page_type(page, cinderella_site, corpus_site):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    h = tree_of(cinderella_site)
    word, _ = rare_word(h)
    block = next(n for n in h.nodes if n.kind == "block")
    shots = {"overview": "index.html", "picture": "picture.html#outcome",
             "leaf": f"n/{page_name(h.leaves()[1].id)}", "block": f"n/{page_name(block.id)}",
             "search": f"search.html?q={word}"}
    for name, rel in shots.items():
        page.goto(url(cinderella_site.site, rel.split("#")[0]) + ("#outcome" if "#" in rel else ""))
        page.wait_for_selector('body[data-outline="ready"]')
        page.screenshot(path=str(ARTIFACTS / f"cinderella-{name}.png"))
    page.goto(url(corpus_site.site, "picture.html"))
    page.wait_for_selector('body[data-outline="ready"]')
    page.screenshot(path=str(ARTIFACTS / "corpus-picture.png"))
    assert page.locator("#picture a").count() == len(tree_of(corpus_site).nodes)
    assert page.errors == []
    assert len(list(ARTIFACTS.glob("*.png"))) >= 6


def test_served_by_chunker_serve_and_current_after_an_update(page, corpus_site, tmp_path):
    """Served on 127.0.0.1; after `chunker update` the served site shows the changed file."""
    import shutil

    src, out = tmp_path / "notes", tmp_path / "out"
    shutil.copytree(corpus_site.source, src)
    shutil.copytree(corpus_site.out, out, ignore=shutil.ignore_patterns("site"))
    proc = subprocess.Popen([sys.executable, "-m", "chunker.cli.app", "serve", str(out), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        address = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert address, line + proc.stderr.read() if proc.poll() is not None else line
        base = address.group(1)
        page.goto(base + "search.html?q=compost")
        page.wait_for_selector("#results li")
        assert page.locator("#results li").count() >= 1
        # the tree changes: a note gains a word, `chunker update` rebuilds the tree
        note = next(src.rglob("soup.md"))
        note.write_text(note.read_text(encoding="utf-8") + "\nGarnish it with chervil.\n", encoding="utf-8")
        chunker("update", out, "--source", src, "--quiet")
        deadline = time.monotonic() + 30
        while True:
            page.goto(base + "search.html?q=chervil")
            page.wait_for_selector("#status")
            if page.locator("#results li").count() >= 1 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert page.locator("#results li").count() >= 1
        assert page.errors == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)
