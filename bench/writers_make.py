"""Files written by real writers other than pandoc's defaults, for bench/readers_writers.py.

    python bench/writers_make.py [WORK]      (default /tmp/readers-work/files)

Each maker writes its files under WORK and returns rows `(file, writer, reference)`: the file
a reader reads, the program that wrote it, and the Markdown its text and headings should
match (the source it was converted from, or, for the files python-docx, python-pptx and
ebooklib build with structures the converters do not make, the Markdown the builder writes
beside it; bench/writers_build.py). Sources are public domain or permissive: the Rust-book
chapters (tests/data/markdown), Emma (tests/data/emma), Cinderella (examples/), this project's
docs (docs/), and FastAPI's docs pages from the shared corpus (MIT).

Writers: LibreOffice 7.4 (`soffice --headless --convert-to`): HTML -> ODT, ODT -> DOCX and
EPUB, a flat ODT with outline numbering, frames, fields and merged cells -> ODT and DOCX,
decks re-saved as PPTX; pandoc 2.17 with `-t epub2 --toc`, `--epub-chapter-level 2`,
`--number-sections --toc` HTML, and a DOCX through a reference document whose custom styles
are based on `Heading N`; Sphinx (Furo and classic themes, and `-b epub`); MkDocs (its own
theme and Material). LibreOffice runs once per batch (it is slow to start).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
RUST = ROOT / "tests" / "data" / "markdown"
CHAPTERS = ["rust-book-ch03-02-data-types", "rust-book-ch08-02-strings",
            "rust-book-appendix-02-operators"]
FASTAPI = ROOT.parent / "shared" / "corpus" / "folders" / "fastapi-docs"
FASTAPI_PAGES = ["index.md", "tutorial/first-steps.md", "tutorial/path-params.md",
                 "tutorial/query-params.md", "tutorial/body.md"]
DOCS_PAGES = ["how-to/formats", "get-started", "concepts/glossary", "reference/exit-codes",
              "how-to/folders"]


def sh(*cmd: str, cwd: Path | None = None) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr[-800:]}")


def soffice(out: Path, convert: str, files: list[Path], infilter: str | None = None) -> None:
    """One LibreOffice run converting `files` into `out` (a fresh profile, so it never blocks
    on another user's instance)."""
    ext = convert.split(":")[0]
    files = [f for f in files if not (out / f"{f.stem}.{ext}").exists()
             or (out / f"{f.stem}.{ext}").stat().st_mtime < f.stat().st_mtime]
    if not files:  # made already, from these very sources
        return
    profile = out.parent / ".lo-profile"
    cmd = ["soffice", f"-env:UserInstallation=file://{profile}", "--headless"]
    if infilter:
        cmd.append(f"--infilter={infilter}")
    sh(*cmd, "--convert-to", convert, "--outdir", str(out), *map(str, files))


def libreoffice(work: Path) -> list[tuple]:
    """Rust chapters: Markdown -> pandoc HTML -> LibreOffice ODT -> LibreOffice DOCX and EPUB;
    the pandoc decks re-saved by LibreOffice Impress."""
    html, lo = work / "lo-html", work / "libreoffice"
    html.mkdir(parents=True, exist_ok=True)
    lo.mkdir(exist_ok=True)
    for name in CHAPTERS:  # made once: LibreOffice converts again only what is newer
        if not (html / f"{name}.html").exists():
            sh("pandoc", "-f", "gfm", "-t", "html", "-s", "--metadata", f"pagetitle={name}",
               str(RUST / f"{name}.md"), "-o", str(html / f"{name}.html"))
        if not (html / f"{name}.pptx").exists():
            sh("pandoc", "-f", "gfm", "-t", "pptx", str(RUST / f"{name}.md"),
               "-o", str(html / f"{name}.pptx"))
    soffice(lo, "odt:writer8", [html / f"{n}.html" for n in CHAPTERS], infilter="HTML (StarWriter)")
    soffice(lo, "docx:MS Word 2007 XML", [lo / f"{n}.odt" for n in CHAPTERS])
    soffice(lo, "epub", [lo / f"{n}.odt" for n in CHAPTERS])
    soffice(lo, "pptx:Impress MS PowerPoint 2007 XML", [html / f"{n}.pptx" for n in CHAPTERS])
    return [(lo / f"{n}.{ext}", "LibreOffice 7.4", RUST / f"{n}.md")
            for n in CHAPTERS for ext in ("odt", "docx", "epub", "pptx")]


def pandoc_variants(work: Path) -> list[tuple]:
    """pandoc with options the shared files did not use."""
    out = work / "pandoc"
    out.mkdir(parents=True, exist_ok=True)
    book = out / "rust-book.md"  # the three chapters as one book, each under a `#` part title
    book.write_text("\n\n".join(
        f"# Part {i}\n\n" + (RUST / f"{n}.md").read_text(encoding="utf-8")
        for i, n in enumerate(CHAPTERS, 1)), encoding="utf-8")
    src = ["-f", "gfm", "--metadata", "title=Rust excerpts", str(book)]
    sh("pandoc", *src, "-t", "epub2", "--toc", "--toc-depth=4", "-o", str(out / "rust-book-epub2.epub"))
    sh("pandoc", *src, "-t", "epub3", "--toc", "--epub-chapter-level=2",
       "-o", str(out / "rust-book-split.epub"))
    numbered = out / "rust-book-numbered.html"
    sh("pandoc", *src, "-t", "html", "-s", "--toc", "--number-sections", "-o", str(numbered))
    from writers_build import custom_style_docx

    docx_rows = custom_style_docx(out)
    return [(out / "rust-book-epub2.epub", "pandoc 2.17 -t epub2 --toc", book),
            (out / "rust-book-split.epub", "pandoc 2.17 --epub-chapter-level=2", book),
            (numbered, "pandoc 2.17 --toc --number-sections", book), *docx_rows]


def sphinx(work: Path) -> list[tuple]:
    """This project's docs as a Sphinx site (Furo, classic) and an EPUB, built from a copy of
    `docs/` taken with the first build: the pages the readers are measured against stay the
    pages the sites were built from when the docs change."""
    src = work / "sphinx-docs-src"
    if not src.exists():
        shutil.copytree(ROOT / "docs", src, ignore=shutil.ignore_patterns("_build", "__pycache__"))
    rows = []
    for theme in ("furo", "classic"):
        site = work / f"sphinx-{theme}"
        if not site.exists():
            sh(sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", f"html_theme={theme}",
               str(src), str(site))
        rows += [(site / f"{page}.html", f"Sphinx 9 html, {theme} theme", src / f"{page}.md")
                 for page in DOCS_PAGES]
    site = work / "sphinx-epub"
    if not site.exists():
        sh(sys.executable, "-m", "sphinx", "-q", "-b", "epub", str(src), str(site))
    combined = work / "sphinx-docs.md"
    combined.write_text(_docs_markdown(src), encoding="utf-8")
    rows.append((site / "chunker.epub", "Sphinx 9 epub", combined))
    return rows


def _docs_markdown(docs: Path) -> str:
    """The docs' pages in the toctree's order, each `#` title becoming the book's chapter."""
    order, seen = [], set()

    def visit(page: str) -> None:
        if page in seen or not (docs / f"{page}.md").exists():
            return
        seen.add(page)
        order.append(page)
        text = (docs / f"{page}.md").read_text(encoding="utf-8")
        for block in re.findall(r"```\{toctree\}(.*?)```", text, re.S):
            for line in block.splitlines():
                line = line.strip()
                if line and not line.startswith(":"):
                    visit(str(Path(page).parent / line).lstrip("./"))

    visit("index")
    return "\n\n".join((docs / f"{p}.md").read_text(encoding="utf-8") for p in order)


def mkdocs(work: Path) -> list[tuple]:
    """FastAPI's first pages as an MkDocs site, in MkDocs' own theme and in Material (the
    theme FastAPI uses), with the attr_list and admonition extensions they need."""
    mk = shutil.which("mkdocs") or str(work.parent / "mkvenv" / "bin" / "mkdocs")
    if not Path(mk).exists() or not FASTAPI.is_dir():
        print("mkdocs or the shared FastAPI pages are missing: the MkDocs sites are left out")
        return []
    rows = []
    for theme in ("mkdocs", "material"):
        proj = work / f"mkdocs-{theme}"
        docs = proj / "docs"
        if (proj / "site").exists():
            shutil.rmtree(proj / "site")
        for page in FASTAPI_PAGES:
            (docs / page).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(FASTAPI / page, docs / page)
        nav = "\n".join(f"  - {p}" for p in FASTAPI_PAGES)
        (proj / "mkdocs.yml").write_text(
            f"site_name: FastAPI excerpt\ntheme:\n  name: {theme}\nnav:\n{nav}\n"
            "markdown_extensions:\n  - attr_list\n  - admonition\n  - toc:\n      permalink: true\n",
            encoding="utf-8")
        sh(mk, "build", "-q", cwd=proj)
        rows += [(proj / "site" / (p[:-3] + "/index.html" if not p.endswith("index.md") else p[:-3] + ".html"),
                  f"MkDocs 1.6, {theme} theme", FASTAPI / p) for p in FASTAPI_PAGES]
    return rows


def make(work: Path) -> list[tuple]:
    from writers_build import built_files

    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for maker in (libreoffice, pandoc_variants, sphinx, mkdocs, built_files):
        rows += maker(work)
    return rows


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/readers-work/files")
    for file, writer, ref in make(target):
        print(f"{writer:40} {file}  (reference {ref.name})")
