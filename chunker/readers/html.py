"""HTML and XHTML: the page's main content as Markdown with its structure, and where each block
came from (the nearest id, the block's index in the page).

Main content: a landmark the page declares (`<main>`, `role=main`, a single `<article>`) is
taken as is; without one, readability-lxml's article text names the content root (the deepest
element holding nearly all of it), because a converter's string alone cannot say which source
block each line came from. Our own walk of that root then writes the Markdown and records the
places; navigation, scripts, styles, banners and hidden elements are pruned first.
(`bench/readers_html_epub.py` compares readability-lxml, trafilatura and landmarks alone.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from chunker.readers.base import ReadSettings, Reader, missing_modules
from chunker.readers.html_styles import infer_structure, stylesheets
from chunker.readers.html_writer import HEADINGS, Writer, assemble, text_of
from chunker.readers.model import ExtraMissing, Extracted, Metadata, ReaderError
from chunker.readers.sniffing import looks_html

EXTRA = "html"
DROP = {"script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas",
        "link", "meta", "button", "input", "select", "textarea", "nav", "head"}
CHROME = {"aside", "dialog", "footer", "form", "menu"}  # a web page's, not a book chapter's
BOILERPLATE_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "dialog",
                     "alertdialog", "menu", "menubar", "toolbar"}
# Class or id words of site chrome; only pruned when the element holds less than half the text.
BOILERPLATE_WORDS = re.compile(
    r"(?:^|[\s_-])(cookies?|consent|gdpr|banner|newsletter|subscribe|share|social|breadcrumbs?"
    r"|sidebar|related|comments?|skip|advert|ads|promo|popup|modal|navbar|menu|masthead)"
    r"(?:$|[\s_-])", re.I)
CONTAINERS = {"body", "div", "section", "article", "main", "td", "center"}
MAX_CSS_BYTES = 2_000_000  # a saved page's stylesheet beside it is read up to this size
CONTENT_SHARE = 0.9  # the content root is the deepest element holding this share of the article


def require() -> None:
    """Raise ExtraMissing unless the HTML libraries are installed."""
    try:
        import lxml.html  # noqa: F401
        import readability  # noqa: F401
    except ImportError as exc:
        raise ExtraMissing(f"reading HTML needs the '{EXTRA}' extra ({exc.name} is missing): "
                           f"pip install 'chunker-tree[{EXTRA}]'", EXTRA) from None


def parse(data: bytes):
    """The document's root element, namespaces stripped (XHTML and HTML alike), comments gone."""
    from lxml import etree, html

    head = data[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    root = None
    if head.startswith(b"<?xml") or b"http://www.w3.org/1999/xhtml" in head:
        try:
            parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
            root = etree.fromstring(data, parser)
        except etree.XMLSyntaxError:
            root = None
    if root is None:
        text = _decode(data)
        text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
        if "\x00" in text:
            raise ReaderError("the file holds NUL bytes: it is no HTML page", "broken-html")
        text = re.sub(r"[\x01-\x08\x0b\x0c\x0e-\x1f]", "", text)  # lxml refuses control characters
        try:
            root = html.document_fromstring(text) if text.strip() else None
        except (etree.ParserError, ValueError):
            root = None
        if root is None:
            raise ReaderError("the HTML file holds no document", "broken-html")
    etree.strip_tags(root, etree.Comment, etree.ProcessingInstruction)
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag.startswith("{"):
            el.tag = etree.QName(el).localname
    return root


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    match = re.search(rb"""<meta[^>]+charset=["']?([\w-]+)""", data[:4096], re.I)
    if match:
        try:
            return data.decode(match.group(1).decode("ascii"), "replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def attr(el, name: str) -> str | None:
    """An attribute by local name (`lang` is also `xml:lang`, `type` also `epub:type`)."""
    for key, value in el.attrib.items():
        if key == name or key.rsplit("}", 1)[-1] == name or key.rsplit(":", 1)[-1] == name:
            return value
    return None


def metadata(root) -> Metadata:
    def metas(*names: str) -> list[str]:
        found = []
        for el in root.iter("meta"):
            key = (el.get("name") or el.get("property") or "").lower()
            if key in names and (el.get("content") or "").strip():
                found.append(el.get("content").strip())
        return found

    title = next((text_of(t) for t in root.iter("title") if text_of(t)), None)
    title = title or next(iter(metas("og:title", "dc.title", "dcterms.title")), None)
    authors = tuple(dict.fromkeys(metas("author", "dc.creator", "dcterms.creator",
                                        "article:author")))
    date = next(iter(metas("date", "dc.date", "dcterms.date", "dcterms.created",
                           "article:published_time", "citation_date")), None)
    lang = attr(root, "lang") or next(iter(metas("content-language", "dc.language")), None)
    return Metadata(title=title, authors=authors, date=date, language=lang or None)


def readability_text(markup: str) -> str:
    """readability-lxml's article text for a page (the main-content locator)."""
    from readability import Document

    summary = Document(markup).summary(html_partial=True)
    from lxml import html

    return text_of(html.fragment_fromstring(summary, create_parent="div")) if summary else ""


def _hidden(el) -> bool:
    style = (el.get("style") or "").replace(" ", "").lower()
    return (el.get("hidden") is not None or el.get("aria-hidden") == "true"
            or "display:none" in style or "visibility:hidden" in style)


def prune(root, chrome: bool = True) -> None:
    """Drop what is never content: scripts, styles, navigation and hidden elements; with
    `chrome`, a web page's banners, sidebars, footers and cookie notices too."""
    total = len(text_of(root)) or 1
    doomed = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        role = (el.get("role") or "").lower()
        label = f"{el.get('class') or ''} {el.get('id') or ''}"
        etype = attr(el, "type") or ""
        if (el.tag in DROP or _hidden(el) or "toc" in etype.split() or chrome and (
                el.tag in CHROME or role in BOILERPLATE_ROLES
                or (el.tag == "header" and not any(h in HEADINGS for h in _tags(el)))
                or (el.tag not in ("body", "html", "main", "article")
                    and BOILERPLATE_WORDS.search(label) and len(text_of(el)) < total / 2
                    and next(el.iter("h1"), None) is None))):
            doomed.append(el)
    for el in doomed:
        if el.getparent() is not None and not any(a in doomed for a in el.iterancestors()):
            _drop(el)


def _tags(el):
    return (e.tag for e in el.iter() if isinstance(e.tag, str))


def _drop(el) -> None:
    """Remove an element, keeping its tail text in place."""
    parent, tail = el.getparent(), el.tail
    if tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def content_root(root, main_text: Callable[[str], str] | None = readability_text):
    """The element holding the page's main content (see the module's docstring)."""
    body = next(root.iter("body"), root)
    for el in body.iter():
        if isinstance(el.tag, str) and (el.tag == "main" or el.get("role") == "main"):
            return el
    articles = list(body.iter("article"))
    if len(articles) == 1:
        return articles[0]
    if main_text is None:
        return body
    from lxml import etree

    try:
        article = main_text(etree.tostring(body, encoding="unicode", method="html"))
    except Exception:  # noqa: BLE001 - a locator that fails on a page leaves it whole
        article = ""
    if not article:
        return body
    held: dict = {}
    matched = 0
    for el in body.iter("p", "pre", "li", "td", "blockquote", "dd", *HEADINGS):
        words = text_of(el)
        if len(words) >= 20 and words in article:
            matched += len(words)
            for up in [el, *el.iterancestors()]:
                held[up] = held.get(up, 0) + len(words)
    best, depth = body, 0
    for el, chars in held.items():
        d = sum(1 for _ in el.iterancestors())
        if el.tag in CONTAINERS and chars >= CONTENT_SHARE * matched and d > depth:
            best, depth = el, d
    return best if matched else body


def page_blocks(data: bytes, main_text: Callable[[str], str] | None = readability_text,
                image_name: Callable[[str], str] | None = None,
                load_css: Callable[[str], str | None] | None = None):
    """(the parsed root, its metadata, the blocks of its main content). A page that marks no
    heading takes its headings and code from its styles (`html_styles`)."""
    root = parse(data)
    meta = metadata(root)
    css = stylesheets(root, load_css)
    prune(root)
    infer_structure(root, css)
    return root, meta, Writer(image_name).walk(content_root(root, main_text))


def extract_html(data: bytes, *, part: str | None = None,
                 main_text: Callable[[str], str] | None = readability_text,
                 load_css: Callable[[str], str | None] | None = None) -> Extracted:
    """An HTML or XHTML page as Markdown: its main content, with a place per block;
    `load_css(href)` gives a linked stylesheet's text (None if there is none)."""
    require()
    _, meta, blocks = page_blocks(data, main_text, load_css=load_css)
    markdown, places = assemble(blocks, part)
    return Extracted(markdown=markdown, places=places, metadata=meta)


def _local_css(page: Path, href: str) -> str | None:
    """A stylesheet a saved page links beside it (`page_files/style.css`), never fetched."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^//", href, re.I):
        return None
    css = page.parent / href.split("?")[0].split("#")[0]
    try:
        if css.suffix.lower() != ".css" or not css.is_file() or css.stat().st_size > MAX_CSS_BYTES:
            return None
        return css.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".xht", ".shtml"})


def _starts_html(head: bytes, path: Path | None = None) -> bool:
    """HTML by content: after a BOM, blanks, comments and an XML declaration, the document
    opens with `<html`, an HTML doctype, or `<head>`/`<body>`/`<meta>`/`<title>` (which browsers
    accept without `<html>`); a Markdown file that mentions a tag further down is not HTML. A
    file named `.html` may also show its doctype or `<html>` after other text (a saved page
    with a byline first)."""
    text = head.lstrip(b"\xef\xbb\xbf").lower()
    text = re.sub(rb"^(\s|<!--.*?-->|<\?xml[^>]*\?>)*", b"", text, flags=re.S)
    if re.match(rb"<!doctype\s+html|<(html|head|body|meta|title)[\s>/]", text):
        return True
    if text.startswith(b"<!doctype") and b"<html" in text[:600]:
        return True
    return path is not None and Path(path).suffix.lower() in HTML_SUFFIXES and looks_html(head)


class HtmlReader(Reader):
    id = "html"
    label = "HTML page"
    extra = EXTRA

    def sniff(self, head: bytes, path: Path) -> bool:
        return _starts_html(head, path)

    def available(self) -> str | None:
        return missing_modules(["lxml", "readability"], self.extra, "reading HTML")

    def read(self, path: Path, settings: ReadSettings) -> Extracted:
        path = Path(path)
        try:
            if path.stat().st_size > settings.max_bytes:
                raise ReaderError(f"{path.name} is larger than {settings.max_bytes} bytes "
                                  "(--max-bytes)", "too-large")
            data = path.read_bytes()
        except OSError as exc:
            raise ReaderError(f"{path.name} cannot be read: {exc.strerror}", "unreadable") from None
        extracted = extract_html(data, part=path.name, load_css=lambda href: _local_css(path, href))
        if not extracted.markdown.strip():
            raise ReaderError(f"{path.name} holds no text in its main content", "empty")
        return extracted
