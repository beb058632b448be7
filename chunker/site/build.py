"""`chunker site OUT [--to DIR]`: write the whole site into a fresh folder beside DIR, then put
it in DIR's place, so a reader (or `chunker serve`) never sees half a site.

DIR is chunker's own: it holds `.chunker-site`, the list of the files it wrote. A DIR that
holds anything else (a file that list does not name, or a folder that is not a site) is
refused before anything is written: a user's files are never deleted.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from chunker.site.data import as_script, outline_data, search_data
from chunker.site.pages import Pages
from chunker.site.tree import SiteInputError, load_site_tree, page_name

MARKER = ".chunker-site"
ASSETS = ("site.css", "site.js", "search.js")


@dataclass
class SiteReport:
    path: Path
    pages: int
    files: int
    bytes: int
    seconds: float

    def as_dict(self) -> dict:
        return {"path": str(self.path), "pages": self.pages, "files": self.files,
                "bytes": self.bytes, "seconds": round(self.seconds, 3)}


def _owned(dest: Path) -> set[str]:
    """The files a previous export wrote in `dest`, or SiteInputError when `dest` is not ours."""
    if not dest.exists():
        return set()
    if not dest.is_dir():
        raise SiteInputError(f"{dest} exists and is not a directory")
    if not any(dest.iterdir()):
        return set()
    marker = dest / MARKER
    if not marker.is_file():
        raise SiteInputError(f"{dest} is not empty and holds no site chunker wrote: choose another --to")
    owned = set(marker.read_text(encoding="utf-8").splitlines())
    for path in dest.rglob("*"):
        rel = path.relative_to(dest).as_posix()
        if path.is_file() and rel != MARKER and rel not in owned:
            raise SiteInputError(f"{path} is in the way: chunker did not write it; move it away and "
                                 "run again")
    return owned


def write_site(out: Path, to: Path | None = None) -> SiteReport:
    started = time.perf_counter()
    out = Path(out)
    t = load_site_tree(out)
    dest = Path(to) if to is not None else out / "site"
    _owned(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.new-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    written: list[str] = []
    size = 0

    def put(rel: str, text: str) -> None:
        nonlocal size
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        written.append(rel)
        size += len(data)

    try:
        assets = resources.files("chunker.site") / "assets"
        for name in ASSETS:
            put(f"assets/{name}", (assets / name).read_text(encoding="utf-8"))
        put("data/tree.js", as_script("CHUNKER_TREE", outline_data(t)))
        put("data/search.js", as_script("CHUNKER_SEARCH", search_data(t)))
        pages = Pages(t)
        put("index.html", pages.overview())
        put("search.html", pages.search())
        put("picture.html", pages.picture())
        for n in t.order:
            put(f"n/{page_name(n.id)}", pages.node(n.id))
        (tmp / MARKER).write_text("\n".join(written) + "\n", encoding="utf-8")
        _swap(tmp, dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return SiteReport(path=dest, pages=len(t.order) + 3, files=len(written), bytes=size,
                      seconds=time.perf_counter() - started)


def _swap(new: Path, dest: Path) -> None:
    """`new` becomes `dest`; the old site (ours: checked by `_owned`) goes."""
    if not dest.exists():
        new.rename(dest)
        return
    old = dest.parent / f".{dest.name}.old-{os.getpid()}"
    dest.rename(old)
    new.rename(dest)
    shutil.rmtree(old)
