"""Files with the structures converters do not make, each beside the Markdown it should read
as (`NAME.expected.md`), for bench/readers_writers.py (bench/writers_make.py calls `built_files`).

- `word-like.docx` (python-docx, raw WordprocessingML where it has no API): Word's table of
  contents (a `w:sdt` with its `TOC Heading` and a TOC field's cached entries), a custom style
  based on `Heading 1`, another on `Heading 3`, an outline level set on a plain paragraph, a
  heading numbered by `w:numPr`, footnotes and an endnote, tracked insertions, deletions and a
  move, a comment, a text box (`mc:AlternateContent` with its VML fallback), PAGE and DATE
  fields, merged cells and a nested table, nested lists, a header and footer;
- `rust-book-custom-styles.docx`: pandoc `--reference-doc` whose custom styles (`Chapter
  Title`, `Section Title`) are based on `Heading 2`/`Heading 3` and `Subsection` marked by an
  outline level only;
- `structures.fodt` -> `libreoffice-structures.odt` and `.docx` (LibreOffice): outline
  numbering, headings inside a list, a custom heading style, a paragraph style with an outline
  level, a generated table of contents, a frame with a text box, fields, footnotes and an
  endnote, merged and nested tables, a section, a tracked deletion, a comment;
- `deck.pptx` (python-pptx) and its LibreOffice re-save: title and content layouts, nested
  bullets, grouped and nested-grouped shapes, a merged-cell table, a slide titled by a text box,
  speaker notes;
- `emma-epub2.epub` (ebooklib, NCX only): nested navPoints (a volume holding chapters), a
  chapter split across two files, a TOC entry pointing at a fragment inside a file;
- `blog.html`: a web page with a cookie banner, navigation, a sidebar, scripts and several
  articles, and no `<main>`.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EMMA = ROOT / "tests" / "data" / "emma" / "emma.md"
RUST = ROOT / "tests" / "data" / "markdown"


def emma(chapter: int, count: int, skip: int = 0) -> list[str]:
    """Paragraphs of Emma's chapter `chapter` (1-based), the first `count` after `skip`."""
    text = EMMA.read_text(encoding="utf-8")
    parts = re.split(r"^## .*$", text, flags=re.M)
    paras = [p.strip() for p in parts[chapter].split("\n\n") if p.strip()]
    return paras[skip:skip + count]


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def built_files(work: Path) -> list[tuple]:
    from writers_docx import word_like_docx
    from writers_odf import libreoffice_structures
    from writers_deck import deck_files

    out = work / "built"
    out.mkdir(parents=True, exist_ok=True)
    rows = [word_like_docx(out), *libreoffice_structures(out), *deck_files(out),
            emma_epub2(out), blog_page(out)]
    return [(f, w, f.with_name(f.name.rsplit(".", 1)[0].replace("libreoffice-", "") + ".expected.md")
             if ref is None else ref) for f, w, ref in rows]


def custom_style_docx(out: Path) -> list[tuple]:
    """pandoc DOCX through a reference document with custom heading styles."""
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    ref = out / "reference.docx"
    subprocess.run(["pandoc", "-o", str(ref), "--print-default-data-file", "reference.docx"], check=True)
    d = docx.Document(str(ref))
    for name, base in (("Chapter Title", "Heading 2"), ("Section Title", "Heading 3")):
        style = d.styles.add_style(name, 1)
        style.base_style = next(s for s in d.styles if s.name in (base, base.lower()))
    sub = d.styles.add_style("Subsection", 1)  # no base: an outline level (3 is `####`)
    sub.element.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="3"/>'))
    sub.font.bold = True
    d.save(str(ref))
    rows = []
    styles = {2: "Chapter Title", 3: "Section Title", 4: "Subsection"}
    for name in ("rust-book-ch03-02-data-types", "rust-book-ch08-02-strings"):
        src = (RUST / f"{name}.md").read_text(encoding="utf-8")
        fenced = False
        lines = []
        for line in src.split("\n"):
            fenced ^= line.startswith("```")
            m = re.match(r"^(#{2,4}) (.*)$", line)
            if m and not fenced:
                line = f'::: {{custom-style="{styles[len(m.group(1))]}"}}\n{m.group(2)}\n:::'
            lines.append(line)
        md = out / f"{name}.custom.md"
        md.write_text("\n".join(lines), encoding="utf-8")
        target = out / f"{name}-custom-styles.docx"
        subprocess.run(["pandoc", "-f", "markdown", "-t", "docx", "--reference-doc", str(ref),
                        str(md), "-o", str(target)], check=True)
        rows.append((target, "pandoc 2.17 --reference-doc (custom styles on Heading N)", RUST / f"{name}.md"))
    return rows


def emma_epub2(out: Path) -> tuple:
    """An EPUB with only an NCX: Volume I holding chapters I-III; chapter I and II share a file
    (II at a fragment), chapter III runs on into a second file no TOC entry names."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("emma-excerpt")
    book.set_title("Emma (an excerpt)")
    book.set_language("en")
    book.add_author("Jane Austen")
    ch1, ch2, ch3a, ch3b = emma(1, 3), emma(2, 3), emma(3, 4), emma(3, 4, skip=4)

    def page(name: str, body: str) -> epub.EpubHtml:
        item = epub.EpubHtml(file_name=name, title=name, lang="en")
        item.content = f"<html><head><title>Emma</title></head><body>{body}</body></html>"
        book.add_item(item)
        return item

    paras = lambda ps: "".join(f"<p>{esc(p)}</p>" for p in ps)  # noqa: E731
    vol = page("text/volume1.xhtml", '<h1 class="volume">Volume I</h1>')
    one = page("text/chapter1-2.xhtml",
               f'<h2 id="c1">Chapter I</h2>{paras(ch1)}<h2 id="c2">Chapter II</h2>{paras(ch2)}')
    three = page("text/chapter3.xhtml", f'<h2>Chapter III</h2>{paras(ch3a)}')
    cont = page("text/chapter3-split.xhtml", paras(ch3b))
    book.toc = [(epub.Section("Volume I", href="text/volume1.xhtml"),
                 [epub.Link("text/chapter1-2.xhtml#c1", "Chapter I", "c1"),
                  epub.Link("text/chapter1-2.xhtml#c2", "Chapter II", "c2"),
                  epub.Link("text/chapter3.xhtml", "Chapter III", "c3")])]
    book.add_item(epub.EpubNcx())
    book.spine = [vol, one, three, cont]
    path = out / "emma-epub2.epub"
    epub.write_epub(str(path), book, {"epub3_pages": False})
    expected = (["# Volume I", "## Chapter I", *ch1, "## Chapter II", *ch2, "## Chapter III",
                 *ch3a, *ch3b])
    path.with_name("emma-epub2.expected.md").write_text("\n\n".join(expected) + "\n", encoding="utf-8")
    return path, "ebooklib 0.20 (NCX only, nested navPoints)", None


def blog_page(out: Path) -> tuple:
    """A blog's front page: several posts as `<article>`s, chrome around them, no `<main>`."""
    posts = [("A Wedding at Hartfield", emma(1, 3)), ("Mr. Knightley Calls", emma(1, 3, skip=10)),
             ("Harriet Smith", emma(3, 3))]
    arts = "".join(
        f'<article class="post"><header><h2><a href="/p{i}">{t}</a></h2>'
        f'<p class="byline">Posted by J. Austen on 1815-12-2{i}</p></header>'
        + "".join(f"<p>{esc(p)}</p>" for p in ps)
        + f'<footer class="post-footer"><a href="/p{i}#comments">3 comments</a> '
          f'<a href="/tag/regency">regency</a></footer></article>'
        for i, (t, ps) in enumerate(posts, 1))
    html = f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Highbury Notes</title>
<script>window.dataLayer=[];function gtag(){{dataLayer.push(arguments)}}</script>
<style>.cookie{{position:fixed}}</style></head><body>
<div id="cookie-consent" class="cookie"><p>We use cookies to improve your experience.</p>
<button>Accept all</button><button>Reject</button></div>
<div class="site-header"><div class="logo"><a href="/">Highbury Notes</a></div>
<ul class="menu"><li><a href="/">Home</a></li><li><a href="/archive">Archive</a></li>
<li><a href="/about">About the author</a></li></ul>
<form class="search"><input type="search" placeholder="Search"></form></div>
<div class="wrapper"><div class="content">{arts}
<div class="pagination"><a href="/page/2">Older posts</a></div></div>
<div class="sidebar"><h3>Popular posts</h3><ul><li><a href="/x">Ten things about Bath</a></li>
<li><a href="/y">Pemberley revisited</a></li></ul><h3>Newsletter</h3>
<p>Subscribe for weekly letters from the village.</p></div></div>
<div class="site-footer"><p>Copyright 1816 Highbury Notes. All rights reserved.</p></div>
<script src="/analytics.js"></script></body></html>"""
    path = out / "blog.html"
    path.write_text(html, encoding="utf-8")
    expected = "\n\n".join(f"## {t}\n\nPosted by J. Austen on 1815-12-2{i}\n\n" + "\n\n".join(ps)
                           for i, (t, ps) in enumerate(posts, 1))
    path.with_name("blog.expected.md").write_text(expected + "\n", encoding="utf-8")
    return path, "hand-written page (cookie banner, menu, sidebar, several articles)", None
