"""EPUB 2 and 3: the chapters in spine order as one Markdown document, the book's own table of
contents (the EPUB 3 navigation document, else the EPUB 2 NCX) as its upper structure.

Each TOC entry becomes a heading at its TOC depth where its target lies; when the target is a
heading of the chapter with the same title, that heading *is* the entry (no duplicate). The
chapter's other headings are shifted to nest below the entry they follow. ebooklib reads the
package (spine, manifest, metadata, TOC); the chapters are written by the HTML reader's walk.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote

from chunker.readers.base import ReadSettings, Reader, missing_modules
from chunker.readers.epub_container import check_drm, check_size, is_epub
from chunker.readers.html import parse, prune
from chunker.readers.html_styles import infer_structure, stylesheets
from chunker.readers.html_writer import Block, Writer, assemble, text_of
from chunker.readers.model import ExtraMissing, Extracted, Image, Metadata, ReaderError

EXTRA = "epub"
TOC_MIN_LINKS = 3
TOC_LINK_SHARE = 0.9
TOC_NAMED_SHARE = 0.5
"""A spine page with at least TOC_MIN_LINKS links to the book's pages making up TOC_LINK_SHARE
of its text (headings aside), or TOC_NAMED_SHARE if the OPF guide names it the TOC, is a table
of contents, left out (`_toc_page`)."""


@dataclass(frozen=True)
class Entry:
    depth: int
    title: str
    part: str
    """The chapter's path inside the zip."""
    fragment: str | None


def require() -> None:
    try:
        import ebooklib  # noqa: F401
        import lxml  # noqa: F401
    except ImportError as exc:
        raise ExtraMissing(f"reading EPUB needs the '{EXTRA}' extra ({exc.name} is missing): "
                           f"pip install 'chunker-tree[{EXTRA}]'", EXTRA) from None


def _toc(items, opf_dir: str, depth: int = 1) -> list[Entry]:
    entries: list[Entry] = []
    for item in items:
        node, children = item if isinstance(item, tuple) else (item, ())
        href = getattr(node, "href", None) or ""
        title = " ".join((getattr(node, "title", "") or "").split())
        if href and title:
            file, _, fragment = href.partition("#")
            part = posixpath.normpath(posixpath.join(opf_dir, file))
            entries.append(Entry(depth, title, part, fragment or None))
        entries += _toc(children, opf_dir, depth + 1)
    return entries


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().casefold()


def _same(a: str, b: str) -> bool:
    a, b = _norm(a), _norm(b)
    return bool(a and b) and (a == b or a in b or b in a)


def structure(blocks: list[Block], entries: list[Entry], depth: int) -> tuple[list[Block], int]:
    """One chapter's blocks with the TOC entries that point into it as headings at their depth,
    the chapter's own headings shifted below; `depth` is the TOC depth in force at its start."""
    starts: dict[int, list[Entry]] = {}
    for n, entry in enumerate(entries):
        at = 0 if entry.fragment is None else next(
            (i for i, b in enumerate(blocks) if entry.fragment in b.ids), None)
        if at is None and n == 0 and blocks:
            at = 0  # the first entry's id was on nothing we keep: it still opens the chapter
        if at is not None:
            starts.setdefault(at, []).append(entry)
    out: list[Block] = []
    shift = None  # added to a chapter heading's level in the current entry's span
    for i, block in enumerate(blocks):
        for entry in starts.get(i, []):
            depth = entry.depth
            if block.level and _same(block.title, entry.title):
                shift = depth - block.level
                block = replace(block, level=depth,
                                text="#" * depth + block.text[block.level:])
                break
            out.append(replace(block, text=f"{'#' * depth} {entry.title}", level=depth,
                               title=entry.title, source=False))
            shift = None
        else:
            if block.level and depth:
                if shift is None:  # the first heading under a TOC entry sits just below it
                    shift = depth + 1 - block.level
                level = min(6, max(depth + 1, block.level + shift))
                block = replace(block, level=level, text="#" * level + block.text[block.level:])
        out.append(block)
    return out, depth


def extract_epub(path) -> Extracted:
    """An EPUB book as Markdown: its chapters in spine order under its table of contents."""
    require()
    from ebooklib import epub

    path = Path(path)
    try:
        with zipfile.ZipFile(path) as zf:
            check_drm(zf, path.name)

        reader = epub.EpubReader(str(path), {"ignore_ncx": True})
        book = reader.load()
        reader.process()
    except ReaderError:
        raise
    except Exception as exc:  # noqa: BLE001 - ebooklib raises KeyError, AttributeError, lxml's
        # and zipfile's errors on a malformed book: each is a broken EPUB to the user
        raise ReaderError(f"{path.name} is not a readable EPUB ({type(exc).__name__}: "
                          f"{str(exc)[:120]})", "broken-epub") from None
    opf_dir = reader.opf_dir
    entries = _toc(book.toc, opf_dir)
    blocks: list[Block] = []
    parts: list[str] = []
    images: list[tuple[str, object, Block]] = []  # its name, the <img>, the block holding it
    names: dict[str, str] = {}
    depth, notes = 0, []
    spine_files = {it.file_name for it in map(book.get_item_with_id, (i for i, _ in book.spine)) if it}
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if (item is None or item.media_type not in ("application/xhtml+xml", "text/html")
                or isinstance(item, epub.EpubNav)):  # the nav document is the TOC, read above
            continue
        part = posixpath.normpath(posixpath.join(opf_dir, item.file_name))

        def image_name(src: str, _base=posixpath.dirname(item.file_name)) -> str:
            href = posixpath.normpath(posixpath.join(_base, unquote(src.split("#")[0])))
            if href not in names:
                ext = posixpath.splitext(href)[1] or ".img"
                names[href] = f"image-{len(names) + 1}{ext}"
            return names[href]

        try:
            root = parse(item.content)  # the bytes as stored (get_content rebuilds the page)
        except ReaderError:
            notes.append(f"{part}: not readable as XHTML, left out")
            continue
        css = stylesheets(root, lambda href, _base=posixpath.dirname(item.file_name): _css(book, _base, href))
        prune(root, chrome=False)
        body = next(root.iter("body"), root)
        if _toc_page(book, item, body, spine_files):
            continue  # the book's table of contents as a page: the TOC above already shapes it
        infer_structure(root, css)  # a chapter that marks no heading: its styles say (LibreOffice)
        chapter = Writer(image_name).walk(body)
        chapter, depth = structure(chapter, [e for e in entries if e.part == part], depth)
        for block in chapter:
            for el in block.elements:
                for img in ([] if isinstance(el, str) else el.iter("img")):
                    if img.get("src"):
                        images.append((image_name(img.get("src")), img, block))
        blocks += chapter
        parts += [part] * len(chapter)
    markdown, places = assemble(blocks, None)
    places = _with_parts(places, parts, blocks)
    return Extracted(markdown=markdown, places=places, metadata=_metadata(book),
                     images=_images(book, images, names, blocks, places), notes=tuple(notes))


def _toc_page(book, item, body, spine_files: set[str]) -> bool:
    """A spine page that is the book's table of contents: a page whose text outside its
    headings is nearly all links to the book's own pages (`TOC_LINK_SHARE`), or half of it
    when the OPF guide names the page the TOC (an EPUB 2 book puts one in the reading order:
    pandoc's, calibre's; Sphinx names its first page, prose and all, so the guide alone is not
    enough)."""
    named = any((ref.get("type") or "").lower() == "toc"
                and (ref.get("href") or "").split("#")[0] == item.file_name
                for ref in getattr(book, "guide", None) or [])
    base = posixpath.dirname(item.file_name)
    links = [a for a in body.iter("a") if (a.get("href") or "") and not re.match(r"^[a-z][\w+.-]*:", a.get("href"))
             and posixpath.normpath(posixpath.join(base, unquote(a.get("href").split("#")[0]))) in spine_files]
    def chars(el) -> int:  # letters, not the spaces between them
        return len(re.sub(r"\s", "", text_of(el)))

    text = chars(body) - sum(chars(h) for h in body.iter("h1", "h2", "h3", "h4", "h5", "h6"))
    share = TOC_NAMED_SHARE if named else TOC_LINK_SHARE
    return len(links) >= TOC_MIN_LINKS and text > 0 and sum(chars(a) for a in links) >= share * text


def _css(book, base: str, href: str) -> str | None:
    """A stylesheet of the book, by its href relative to the chapter's folder."""
    item = book.get_item_with_href(posixpath.normpath(posixpath.join(base, unquote(href.split("#")[0]))))
    return item.get_content().decode("utf-8", "replace") if item is not None else None


def _with_parts(places, parts, blocks):
    """Give each place its chapter file and its block's index within that chapter (a heading
    the TOC added has the index of the block it stands before)."""
    out, seen = [], {}
    for place, part, block in zip(places, parts, blocks):
        index = seen.get(part, -1) + 1
        if block.source:
            seen[part] = index
        out.append(replace(place, part=part, paragraph=index))
    return tuple(out)


def _metadata(book) -> Metadata:
    def first(name: str) -> str | None:
        values = [v for v, _ in book.get_metadata("DC", name) if v and v.strip()]
        return values[0].strip() if values else None

    authors = tuple(v.strip() for v, _ in book.get_metadata("DC", "creator") if v and v.strip())
    return Metadata(title=first("title"), authors=authors, date=first("date"),
                    language=first("language"))


def _images(book, found, names, blocks, places) -> tuple[Image, ...]:
    by_href = {v: k for k, v in names.items()}
    start = {id(b): p.start for b, p in zip(blocks, places)}
    out, done = [], set()
    for name, img, block in found:
        item = book.get_item_with_href(by_href[name])
        if item is None or name in done:
            continue
        done.add(name)
        figure = next(img.iterancestors("figure"), None)
        caption = next((text_of(c) for c in figure.iter("figcaption")), None) if figure is not None else None
        at = block.text.find(f"]({name})")
        offset = start.get(id(block), 0) + max(0, block.text.rfind("![", 0, max(at, 0)))
        out.append(Image(name=name, data=item.get_content(), mime=item.media_type,
                         offset=offset, alt=img.get("alt"), caption=caption))
    return tuple(out)


class EpubReader(Reader):
    id = "epub"
    label = "EPUB book"
    extra = EXTRA

    def sniff(self, head: bytes, path: Path) -> bool:
        return is_epub(head, path)

    def available(self) -> str | None:
        return missing_modules(["ebooklib", "lxml"], self.extra, "reading EPUB books")

    def check(self, data: bytes, path: Path, settings: ReadSettings) -> None:
        """A truncated zip (`broken-epub`) or DRM (`drm-epub`), from the bytes alone."""
        name = Path(path).name
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                if "META-INF/container.xml" not in zf.namelist():
                    raise ReaderError(f"{name} has no META-INF/container.xml: not a readable EPUB",
                                      "broken-epub")
                check_drm(zf, name)
        except ReaderError:  # a ValueError too: let it through as it is
            raise
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            raise ReaderError(f"{name} is not a readable EPUB (a broken or truncated zip)",
                              "broken-epub") from None

    def read(self, path: Path, settings: ReadSettings) -> Extracted:
        check_size(Path(path), settings.max_bytes)
        extracted = extract_epub(path)
        if not extracted.markdown.strip():
            raise ReaderError(f"{Path(path).name} holds no text in its spine", "empty")
        return extracted
