"""What the authors said about their files: titles, tags, categories and a table of contents.

These are the most trusted signals for the corpus's upper levels (`plan`): a document's
front matter and first heading name it, and a table of contents the folder carries (an
mkdocs `nav:` or an mdBook/GitBook `SUMMARY.md`) gives reading order and grouping. Pure
functions: the only I/O is reading the table-of-contents file.
"""

from __future__ import annotations

import hashlib

import logging
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from chunker.document.markdown_parse import markdown_parser
from chunker.document.structure import parse_structure

from .model import DocInfo

log = logging.getLogger(__name__)

MKDOCS_FILES = ("mkdocs.yml", "mkdocs.yaml", "nav.yml")
SUMMARY_FILE = "SUMMARY.md"
INDEX_STEMS = ("index", "_index", "readme")
"""File stems that stand for their folder (`index.md`, `_index.md`, `README.md`), by preference."""

# A toc is small; a YAML alias bomb or a pathological nesting is not one worth reading.
MAX_TOC_ITEMS = 100_000

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?!\d)")
_NUMBERING = re.compile(r"^\d+(?:\.\d+)*[.)]?[-_ .)]+(?=\S)")
# mkdocs/pandoc heading attributes: `# Security { #security }` or `{: .class }`
_HEADING_ATTRS = re.compile(r"\s*\{:?\s*[#.][^{}]*\}\s*$")
_URL_SCHEME = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


@dataclass
class TocEntry:
    """A table-of-contents item: a document (`rel`), a section (`children`), or both
    (a SUMMARY.md chapter with sub-chapters). `title` None: untitled (an mkdocs `""` section)."""

    title: str | None
    rel: str | None
    children: list[TocEntry] = field(default_factory=list)


@dataclass
class Toc:
    source: str
    """Rel path of the toc file ('mkdocs.yml', 'SUMMARY.md')."""
    entries: list[TocEntry] = field(default_factory=list)


def readable_name(name: str, *, is_file: bool = True) -> str:
    """A file (its stem) or folder name as a title: `-`/`_` as spaces, leading numbering
    (`01-`, `2.`) removed, first letter capitalised; an ISO date prefix is kept as written."""
    stem = posixpath.splitext(name)[0] if is_file else name
    date = _ISO_DATE.match(stem)
    if date:
        head, rest = date.group(), stem[date.end():]
    else:
        head, rest = "", _NUMBERING.sub("", stem)
    words = " ".join(re.sub(r"[-_]+", " ", rest).split())
    if not words and not head:  # nothing but numbering ('01'): keep the number
        words = " ".join(re.sub(r"[-_]+", " ", stem).split())
    if words and not head:
        words = words[0].upper() + words[1:]
    return " ".join(part for part in (head, words) if part)


def is_index(rel: str) -> bool:
    """Whether the document stands for its folder (index.md, _index.md, README.md)."""
    return posixpath.splitext(posixpath.basename(rel))[0].casefold() in INDEX_STEMS


def doc_info(rel: str, text: str | None) -> DocInfo:
    """The document's title, tags and category; `text` None (not extracted yet): the file name."""
    fallback = readable_name(posixpath.basename(rel))
    if text is None:
        return DocInfo(rel=rel, title=fallback, title_source="file_name")
    structure = parse_structure(text)
    meta = structure.front_matter.metadata if structure.front_matter else {}
    tags = _tags(meta.get("tags"))
    category = next((c for c in (_scalar(_first(meta.get(k))) for k in ("topic", "category"))
                     if c), None)
    title = _scalar(meta.get("title"))
    if title:
        return DocInfo(rel=rel, title=title, title_source="front_matter", tags=tags,
                       category=category)
    for heading in structure.headings:
        plain = _HEADING_ATTRS.sub("", heading.title).strip()
        if plain:
            return DocInfo(rel=rel, title=plain, title_source="heading", tags=tags,
                           category=category)
    return DocInfo(rel=rel, title=fallback, title_source="file_name", tags=tags,
                   category=category)


def _scalar(value: Any) -> str | None:
    """A front matter value as one stripped string; None for maps, lists, booleans, blanks."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value).strip() or None


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _tags(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    tags = (_scalar(item) for item in items)
    return tuple(dict.fromkeys(tag for tag in tags if tag))


def find_toc(root: Path, rels: Sequence[str]) -> Toc | None:
    """The table of contents in the corpus root, restricted to the documents in `rels`:
    the first of mkdocs.yml, mkdocs.yaml, nav.yml (its `nav:`) and SUMMARY.md that lists
    any of them. A malformed file is logged and skipped, never raised."""
    known = set(rels)
    readers: list[tuple[str, Callable[[str, set[str]], list[TocEntry] | None]]] = [
        *((name, _mkdocs_entries) for name in MKDOCS_FILES), (SUMMARY_FILE, _summary_entries)]
    for name, read in readers:
        path = root / name
        if not path.is_file():
            continue
        try:
            entries = read(path.read_text(encoding="utf-8"), known)
        except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError, _Malformed) as exc:
            log.warning("table of contents %s ignored: %s", path, exc)
            continue
        if entries is None:  # a config without a `nav:`: no toc here
            continue
        if not entries:
            log.warning("table of contents %s ignored: it lists none of the corpus files", path)
            continue
        return Toc(source=name, entries=entries)
    return None


class _Malformed(ValueError):
    pass


class _TolerantLoader(yaml.SafeLoader):
    """SafeLoader reading unknown tags (`!ENV`, `!!python/name:...`) as None, not failing."""


_TolerantLoader.add_multi_constructor("", lambda loader, suffix, node: None)


class _Resolver:
    """Maps a toc link to a corpus rel (or None), each rel listed once, and bounds the work."""

    def __init__(self, known: set[str], bases: Sequence[str]) -> None:
        self.known, self.bases, self.seen, self.budget = known, bases, set[str](), MAX_TOC_ITEMS

    def tick(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise _Malformed(f"more than {MAX_TOC_ITEMS} items")

    def __call__(self, link: str) -> str | None:
        link = link.strip()
        if not link or _URL_SCHEME.match(link):
            return None
        path = unquote(link.split("#", 1)[0].split("?", 1)[0]).lstrip("/")
        if not path:
            return None
        for base in self.bases:
            rel = posixpath.normpath(posixpath.join(base, path))
            if rel in self.known and rel not in self.seen:
                self.seen.add(rel)
                return rel
        return None


def _mkdocs_entries(source: str, known: set[str]) -> list[TocEntry] | None:
    data = yaml.load(source, Loader=_TolerantLoader)  # noqa: S506 - a SafeLoader subclass
    if isinstance(data, list):  # nav.yml may be the bare list
        nav = data
    elif isinstance(data, dict) and "nav" in data:
        nav = data["nav"]
    elif data is None or isinstance(data, dict):
        return None
    else:
        raise _Malformed("not a YAML mapping")
    if not isinstance(nav, list):
        raise _Malformed("`nav:` is not a list")
    docs_dir = data.get("docs_dir") if isinstance(data, dict) else None
    bases = [".", "docs"] + ([docs_dir] if isinstance(docs_dir, str) and docs_dir else [])
    return _nav_items(nav, _Resolver(known, bases))


def _nav_items(items: list[Any], resolve: _Resolver) -> list[TocEntry]:
    """mkdocs nav shapes: `path`, `{Title: path}`, `{Title: [...]}`, `{"": [...]}`."""
    out: list[TocEntry] = []
    for item in items:
        resolve.tick()
        pairs = item.items() if isinstance(item, dict) else [(None, item)]
        for title, value in pairs:
            name = _scalar(title)
            if isinstance(value, str):
                rel = resolve(value)
                if rel is not None:
                    out.append(TocEntry(name, rel))
            elif isinstance(value, list):
                children = _nav_items(value, resolve)
                if children:
                    out.append(TocEntry(name, None, children))
    return out


def _summary_entries(source: str, known: set[str]) -> list[TocEntry]:
    """mdBook/GitBook SUMMARY.md: nested bullet lists of `[Title](path.md)`; a heading
    (other than a leading 'Summary' title) starts a top-level group."""
    resolve = _Resolver(known, ["."])
    top: list[TocEntry] = []
    group = top  # where top-level items go: the list, or the current heading's group
    lists: list[list[TocEntry]] = []  # where the items of each open list go
    items: list[TocEntry] = []  # open list items
    labelled: list[bool] = []  # per open item: its title and link are read
    tokens = markdown_parser(front_matter=True).parse(source)
    for prev, tok in zip([None, *tokens], tokens):
        resolve.tick()
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            lists.append(items[-1].children if items else group)
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif tok.type == "list_item_open":
            items.append(TocEntry(None, None))
            labelled.append(False)
            lists[-1].append(items[-1])
        elif tok.type == "list_item_close":
            items.pop()
            labelled.pop()
        elif tok.type != "inline":
            continue
        elif prev is not None and prev.type == "heading_open" and not items:
            title = tok.content.strip()
            if top or title.casefold() not in ("summary", "table of contents", "contents"):
                top.append(TocEntry(title or None, None))
                group = top[-1].children
        elif items and not labelled[-1]:
            labelled[-1] = True
            links = _links(tok.children or [])
            title, link = links[0] if links else (tok.content.strip(), "")
            items[-1].title, items[-1].rel = title or None, resolve(link)
        elif not items:  # mdBook prefix/suffix chapters: links in a plain paragraph
            group.extend(TocEntry(t or None, rel) for t, link in _links(tok.children or [])
                         if (rel := resolve(link)) is not None)
    return _prune(top)


def _links(children: list[Any]) -> list[tuple[str, str]]:
    """(text, href) of each link among an inline token's children."""
    out: list[tuple[str, str]] = []
    href: str | None = None
    text: list[str] = []
    for child in children:
        if child.type == "link_open":
            href, text = str(child.attrGet("href") or ""), []
        elif child.type == "link_close" and href is not None:
            out.append((" ".join("".join(text).split()), href))
            href = None
        elif href is not None and child.type in ("text", "code_inline"):
            text.append(child.content)
    return out


def _prune(entries: list[TocEntry]) -> list[TocEntry]:
    """Entries that lead to a corpus document (draft chapters and dead links dropped)."""
    out: list[TocEntry] = []
    for entry in entries:
        entry.children = _prune(entry.children)
        if entry.rel is not None or entry.children:
            out.append(entry)
    return out


def toc_sha256(root: Path, source: str) -> str | None:
    """The table of contents' hash: an update notices when only it changed."""
    try:
        return hashlib.sha256((root / source).read_bytes()).hexdigest()
    except OSError:
        return None
