"""What a run keeps of its source's places: `OUT/.chunker/places.json`, beside `OUT/source.md`.

It is written when an extracted run starts and read by whoever needs to map a span of the
run's text back to the original file while the graph runs (the rewrite's pages and page
images, the assembly's locations). It never enters the graph state. A run started before
this file existed has `pages.json` (a PDF's page map): it is read as the same thing.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, fields
from pathlib import Path

from chunker.document.units import register_page_ends
from chunker.readers.location import Location, Locator
from chunker.readers.model import Place

SOURCE_FILE = "source.md"
"""The extracted text, in OUT: what the leaves concatenate to."""
PLACES_FILE = "places.json"
"""The places of the text, in OUT/.chunker."""
OLD_PAGE_MAP_FILE = "pages.json"
"""A PDF run's page map before the reader interface (read, never written)."""
_FIELDS = [f.name for f in fields(Place) if f.name not in ("start", "end")]


@dataclass(frozen=True)
class SourceMap:
    """A run's source file and the places of its text."""

    reader: str
    original: str
    """The original file's absolute path (where it was when the run last looked)."""
    sha256: str | None
    places: tuple[Place, ...]

    @functools.cached_property
    def locator(self) -> Locator:
        return Locator(self.places)

    def locate(self, span: tuple[int, int]) -> Location | None:
        return self.locator.locate(*span)

    def pages(self, span: tuple[int, int]) -> tuple[int, int] | None:
        return self.locator.pages(*span)

    @property
    def page_ends(self) -> list[int]:
        return [p.end for p in self.places if p.page is not None]


def write_map(meta_dir: Path, reader: str, original: Path, sha256: str, places: tuple[Place, ...],
              text: str) -> None:
    meta_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for p in places:
        row: dict = {"start": p.start, "end": p.end}
        for name in _FIELDS:
            value = getattr(p, name)
            if value is not None and value is not False:
                row[name] = value
        rows.append(row)
    atomic_write(meta_dir / PLACES_FILE, json.dumps(
        {"reader": reader, "original": str(original), "sha256": sha256, "places": rows},
        indent=0, ensure_ascii=False) + "\n")
    _register(text, places)


def load_map(run_dir: str | Path | None) -> SourceMap | None:
    """The run's source map (None when OUT has none: a text run), with the page unit
    registered for its text; cached per file version, since every rewrite asks."""
    if not run_dir:
        return None
    meta_dir = Path(run_dir) / ".chunker"
    for name in (PLACES_FILE, OLD_PAGE_MAP_FILE):
        path = meta_dir / name
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            continue
        return _load(str(path), stamp, str(Path(run_dir) / SOURCE_FILE))
    return None


@functools.lru_cache(maxsize=8)
def _load(path: str, stamp: int, source: str) -> SourceMap:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if path.endswith(OLD_PAGE_MAP_FILE):
        places = tuple(Place(s, e, page=n, scanned=bool(sc)) for n, s, e, sc in data["pages"])
        found = SourceMap("pdf", data["pdf"], data.get("pdf_sha256"), places)
    else:
        places = tuple(Place(**row) for row in data["places"])
        found = SourceMap(data["reader"], data["original"], data.get("sha256"), places)
    if os.path.exists(source):
        with open(source, encoding="utf-8", newline="") as f:
            _register(f.read(), places)
    return found


def relocate(run_dir: str | Path, original: Path) -> None:
    """Point the map at the original's new place (a resume with `--source`)."""
    meta_dir = Path(run_dir) / ".chunker"
    for name, key in ((PLACES_FILE, "original"), (OLD_PAGE_MAP_FILE, "pdf")):
        path = meta_dir / name
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            data[key] = str(original.resolve())
            atomic_write(path, json.dumps(data, indent=0, ensure_ascii=False) + "\n")


def _register(text: str, places: tuple[Place, ...]) -> None:
    """Tell the `page` split unit where the pages of `text` end (formats with pages)."""
    ends = [p.end for p in places if p.page is not None]
    if ends:
        register_page_ends(text, ends)


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)
