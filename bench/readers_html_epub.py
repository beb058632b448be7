"""HTML, XHTML and EPUB readers on the shared corpus: heading fidelity, word recall, speed,
install size, and the main-content candidates compared on the same pages wrapped in site chrome.

    python bench/readers_html_epub.py [CORPUS] [--out bench/results/readers/html_epub.json]

CORPUS (or $CHUNKER_CORPUS, default ../shared/corpus) holds `formats/` and `markdown/`: every
Rust-book chapter there has its Markdown source beside its HTML and EPUB conversions.
- headings: the share of the source's headings (level and title) found, in order, among the
  extracted Markdown's headings;
- words: the share of the source's words (its rendered text, as a multiset) in the extracted
  Markdown's rendered text;
- chrome leak: on the pages wrapped in a site's navigation, banner, sidebar and footer, the
  share of those words (ones the source lacks) that reach the output.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROME_TOP = """<div class="top"><a href="/">Ferris Docs</a> <a href="/learn">Learn</a>
<a href="/install">Install</a> <a href="/community">Community</a> <a href="/blog">Blogroll</a></div>
<div class="cookie-notice">This site uses cookies for analytics. Accept all cookies or manage
preferences.</div>"""
CHROME_SIDE = """<div class="col-left"><p>Other chapters of the handbook you may like</p><ul>
<li><a href="/a">Getting started quickly</a></li><li><a href="/b">Ownership explained</a></li>
<li><a href="/c">Structs and enums</a></li><li><a href="/d">Error handling patterns</a></li>
<li><a href="/e">Fearless concurrency</a></li></ul></div>"""
CHROME_BOTTOM = """<div class="bottom"><p>Copyright 2026 Example Corporation. Privacy policy,
terms of service and trademark notices. Subscribe to our weekly digest.</p></div>"""


def wrap(page: bytes, landmarks: bool) -> bytes:
    """The page's body inside a site's chrome, with or without HTML5 landmarks."""
    text = page.decode("utf-8")
    head, _, rest = text.partition("<body>")
    body, _, tail = rest.partition("</body>")
    if landmarks:
        inner = (f"<header>{CHROME_TOP}</header><nav>{CHROME_SIDE}</nav><main>{body}</main>"
                 f"<footer>{CHROME_BOTTOM}</footer>")
    else:
        inner = (f'{CHROME_TOP}<div class="layout">{CHROME_SIDE}<div class="col-main">{body}'
                 f"</div></div>{CHROME_BOTTOM}")
    return f"{head}<body>{inner}</body>{tail}".encode()


def rendered_words(markdown: str) -> Counter:
    from markdown_it import MarkdownIt
    from lxml import html

    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    text = html.fromstring(f"<div>{rendered}</div>").text_content() if rendered.strip() else ""
    return Counter(w.casefold() for w in re.findall(r"\w+", text))


def headings(markdown: str, lines: bool = False) -> list[tuple]:
    """(level, plain title) of each heading; with `lines`, its line number first."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(markdown)
    out = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            text = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
            head = (int(tok.tag[1]), " ".join(text.split()).casefold())
            out.append((tok.map[0], *head) if lines else head)
    return out


def heading_share(source: list, got: list) -> float:
    """Source headings found in order (same level, same title) among the extracted ones."""
    found, at = 0, 0
    for head in source:
        try:
            at = got.index(head, at) + 1
            found += 1
        except ValueError:
            pass
    return found / len(source) if source else 1.0


def word_share(source: Counter, got: Counter) -> float:
    total = sum(source.values())
    return sum(min(n, got[w]) for w, n in source.items()) / total if total else 1.0


def leak_share(chrome: Counter, source: Counter, got: Counter) -> float:
    only = {w for w in chrome if w not in source}
    return sum(1 for w in only if w in got) / len(only) if only else 0.0


def timed(fn, size: int, repeat: int = 3):
    best, result = None, None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return result, round(best / (size / 1e6), 3)


def install_size(names: list[str]) -> dict:
    """Bytes the distributions occupy (their RECORD files, as `pip show -f` lists them)."""
    sizes = {}
    for name in names:
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            sizes[name] = None
            continue
        sizes[name] = sum(f.locate().stat().st_size for f in dist.files or []
                          if f.locate().exists())
    known = [v for v in sizes.values() if v]
    return {"packages": sizes, "total_mb": round(sum(known) / 1e6, 2)}


def run_nodes(path: Path, markdown: str, source: list, work: Path) -> dict:
    """`chunker run FILE --model scripted --embeddings lexical`, then the share of the
    source's headings that start a node with the same title and level (the node's header
    path holds the heading with the same headings above it). Until runs read through the readers (the run's text is not the
    reader's Markdown), the extracted Markdown is run as a `.md` file instead (`proxy`)."""
    import subprocess

    def run(doc: Path, out: Path) -> dict | None:
        cmd = [str(ROOT / ".venv" / "bin" / "chunker"), "run", str(doc), "--model", "scripted",
               "--embeddings", "lexical", "-o", str(out), "--quiet"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            return None
        return json.loads((out / "hierarchy.json").read_text())

    tree = run(path, work / f"{path.name}.tree")
    proxy = tree is None or tree["meta"].get("source_chars") != len(markdown)
    if proxy:
        doc = work / f"{path.name}.md"
        doc.write_text(markdown, encoding="utf-8")
        tree = run(doc, work / f"{path.name}.md.tree")
    lines = [0] + [m.end() for m in re.finditer("\n", markdown)]
    heads, stack = [], []  # a heading's path: the titles of the headings above it, then its own
    for line, level, title in headings(markdown, lines=True):
        stack = [(lv, t) for lv, t in stack if lv < level] + [(level, title)]
        if (level, title) in set(source):
            heads.append((lines[line], [t for _, t in stack]))
    starts = [(node["span"][0], [" ".join(t.split()).casefold() for t in node["header_path"]])
              for node in tree["nodes"] if node.get("header_path")]
    found = 0
    for offset, want in heads:
        # a node starts at the heading (only headings lie between) and its header path holds
        # the heading at its place: same title, same ancestors (a leaf's path may go deeper)
        if any(start <= offset and hp[:len(want)] == want
               and not re.sub(r"^#{1,6} .*$", "", markdown[start:offset], flags=re.M).strip()
               for start, hp in starts):
            found += 1
    return {"headings": len(heads), "start_a_node": round(found / len(heads), 4) if heads else 1.0,
            "nodes": len(tree["nodes"]), "proxy": proxy}


def candidates():
    """name -> bytes -> Markdown, for the main-content comparison."""
    from chunker.readers import html as H

    def ours(main_text):
        return lambda data: H.extract_html(data, main_text=main_text).markdown

    out = {"landmarks + readability-lxml (chosen)": ours(H.readability_text),
           "landmarks + pruning only": ours(None)}

    def readability_alone(data: bytes) -> str:
        from readability import Document

        summary = Document(data.decode("utf-8")).summary(html_partial=True)
        return H.extract_html(f"<html><body>{summary}</body></html>".encode(), main_text=None).markdown

    out["readability-lxml alone (its summary, our walk)"] = readability_alone
    try:
        import trafilatura

        def trafilatura_text(markup: str) -> str:
            return trafilatura.extract(markup, include_tables=True, favor_recall=True) or ""

        out["landmarks + trafilatura locator"] = ours(lambda m: " ".join(trafilatura_text(m).split()))
        out["trafilatura alone (its Markdown)"] = lambda data: trafilatura.extract(
            data.decode("utf-8"), output_format="markdown", include_tables=True,
            include_formatting=True, include_links=True, favor_recall=True) or ""
    except ImportError:
        print("trafilatura not installed: its candidates are left out")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default=os.environ.get("CHUNKER_CORPUS", str(ROOT.parent / "shared" / "corpus")))
    ap.add_argument("--run", action="store_true",
                    help="also run chunker (scripted, lexical) on each file and count headings that start a node")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "readers" / "html_epub.json"))
    args = ap.parse_args()
    formats, sources = Path(args.corpus) / "formats", Path(args.corpus) / "markdown"
    if not formats.is_dir() or not sources.is_dir():
        print(f"missing: {formats} or {sources} (give the corpus as an argument or CHUNKER_CORPUS)")
        return 2
    from chunker.readers.epub import extract_epub
    from chunker.readers.html import extract_html, parse, text_of

    report: dict = {"files": [], "candidates": {}}
    chrome = rendered_words("\n\n".join(re.sub(r"<[^>]+>", " ", c) for c in (CHROME_TOP, CHROME_SIDE, CHROME_BOTTOM)))
    cands = candidates()
    for src in sorted(sources.glob("rust-book-*.md")):
        source_md = src.read_text(encoding="utf-8")
        want_heads, want_words = headings(source_md), rendered_words(source_md)
        for kind in ("html", "epub"):
            path = formats / f"{src.stem}.{kind}"
            if not path.exists():
                continue
            size = path.stat().st_size
            if kind == "html":
                got, spm = timed(lambda: extract_html(path.read_bytes(), part=path.name), size)
            else:
                got, spm = timed(lambda: extract_epub(path), size)
            got.check()
            report["files"].append({
                "file": path.name, "format": kind, "bytes": size,
                "source_headings": len(want_heads),
                "heading_share": round(heading_share(want_heads, headings(got.markdown)), 4),
                "word_share": round(word_share(want_words, rendered_words(got.markdown)), 4),
                "seconds_per_mb": spm})
            if args.run:
                import tempfile

                with tempfile.TemporaryDirectory() as work:
                    report["files"][-1]["run"] = run_nodes(path, got.markdown, want_heads, Path(work))
            if kind != "html":
                continue
            for variant, data in (("plain", path.read_bytes()),
                                  ("chrome, no landmarks", wrap(path.read_bytes(), False)),
                                  ("chrome, landmarks", wrap(path.read_bytes(), True))):
                for name, fn in cands.items():
                    out, cspm = timed(lambda: fn(data), len(data), repeat=1)
                    row = report["candidates"].setdefault(name, {}).setdefault(variant, [])
                    words = rendered_words(out)
                    row.append({"file": path.name,
                                "heading_share": round(heading_share(want_heads, headings(out)), 4),
                                "word_share": round(word_share(want_words, words), 4),
                                "chrome_leak": round(leak_share(chrome, want_words, words), 4),
                                "seconds_per_mb": cspm})
    # The Time Machine: no Markdown source; its own XHTML text is the reference for the words,
    # its table of contents for the headings.
    for path in (formats / "the-time-machine-chapter-3.xhtml", formats / "the-time-machine.epub"):
        if not path.exists():
            continue
        size = path.stat().st_size
        if path.suffix == ".xhtml":
            got, spm = timed(lambda: extract_html(path.read_bytes(), part=path.name), size)
            body = next(parse(path.read_bytes()).iter("body"))
            want_words = Counter(w.casefold() for w in re.findall(r"\w+", text_of(body)))
            want_heads = [(2, "iii")]
        else:
            got, spm = timed(lambda: extract_epub(path), size)
            import zipfile

            want_words = Counter()
            with zipfile.ZipFile(path) as zf:
                for name in zf.namelist():
                    if name.startswith("epub/text/"):
                        body = next(parse(zf.read(name)).iter("body"))
                        want_words += Counter(w.casefold() for w in re.findall(r"\w+", text_of(body)))
                toc = parse(zf.read("epub/toc.xhtml"))
            nav = next(n for n in toc.iter("nav") if "toc" in (n.get("id") or ""))
            want_heads = [(1, text_of(a).casefold()) for a in nav.iter("a")]
        got.check()
        report["files"].append({
            "file": path.name, "format": path.suffix.lstrip("."), "bytes": size,
            "source_headings": len(want_heads),
            "heading_share": round(heading_share(want_heads, headings(got.markdown)), 4),
            "word_share": round(word_share(want_words, rendered_words(got.markdown)), 4),
            "seconds_per_mb": spm, "reference": "its own XHTML text and TOC"})
        if args.run:
            import tempfile

            with tempfile.TemporaryDirectory() as work:
                report["files"][-1]["run"] = run_nodes(path, got.markdown, want_heads, Path(work))
    for name, variants in report["candidates"].items():
        for variant, rows in variants.items():
            variants[variant] = {k: round(sum(r[k] for r in rows) / len(rows), 4)
                                 for k in ("heading_share", "word_share", "chrome_leak", "seconds_per_mb")}
    report["install"] = {
        "html (lxml, readability-lxml and its deps)": install_size(
            ["lxml", "readability-lxml", "lxml-html-clean", "cssselect", "chardet"]),
        "epub (ebooklib, lxml, six)": install_size(["ebooklib", "lxml", "six"]),
        "trafilatura and its deps (not chosen)": install_size(
            ["trafilatura", "lxml", "lxml-html-clean", "courlan", "htmldate", "justext", "dateparser",
             "python-dateutil", "regex", "tzlocal", "pytz", "babel", "tld", "charset-normalizer",
             "certifi", "urllib3"]),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    for row in report["files"]:
        print(f"{row['file']:45} headings {row['heading_share']:.1%} of {row['source_headings']:2}"
              f"  words {row['word_share']:.1%}  {row['seconds_per_mb']} s/MB"
              + (f"  run: {row['run']['start_a_node']:.1%} of {row['run']['headings']} headings start a node"
                 f"{' (proxy: its Markdown as .md)' if row['run']['proxy'] else ''}" if "run" in row else ""))
    for name, variants in report["candidates"].items():
        for variant, v in variants.items():
            print(f"{name:48} {variant:22} headings {v['heading_share']:.1%} words {v['word_share']:.1%}"
                  f" chrome {v['chrome_leak']:.1%} {v['seconds_per_mb']} s/MB")
    for name, v in report["install"].items():
        print(f"{name}: {v['total_mb']} MB")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
