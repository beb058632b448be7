"""Figures' images into OUT: what the reader extracted, or the local file the document names.

The images of a run are taken in once, where the run's text is read (`intake`): a reader's
images (a PDF page's embedded ones, a DOCX/ODT/PPTX/EPUB's inside its zip) and, for Markdown
and HTML, the image files the document names by a relative path inside its own folder. Their
bytes go into `OUT/.chunker/media/` (chunker's own folder) under stable names (the stem and
the first digits of the bytes' sha256: the same image gets the same name in every run and
update), listed in `OUT/.chunker/images.json`. The records pass then points each figure at
its file (`FigureRecord.media`, `media/<name>`), and the writer copies the files of the tree's
figures into `OUT/media/` with every other file of the tree (`chunker/output/writer.py`:
through the manifest, so a user's file there is never replaced).

Never fetched: an `http:`, `data:` or any other URL, an absolute path, or a path that leaves
the document's folder is no local image and is left as the document gives it. A user's file
is only ever read.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import unquote

from chunker.structured.records import FigureRecord

MEDIA = "media"
"""The folder in OUT that holds the figures' images."""
CACHE = "media"
"""The folder in OUT/.chunker that holds every image taken in (the writer's source)."""
INDEX = "images.json"
IMAGE_SUFFIXES = frozenset(".png .jpg .jpeg .gif .webp .svg .bmp .tif .tiff .avif".split())
"""What a local file must end with to be taken as an image (nothing else is copied)."""
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_SAFE = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class MediaImage:
    """One image taken into the run: as the document names it, and its file in the cache."""

    name: str
    """The name the text shows (`image-3.png`, `img/chart.png`)."""
    file: str
    """Its stable file name in `OUT/.chunker/media/` and `OUT/media/`."""
    mime: str
    offset: int = 0
    alt: str | None = None
    caption: str | None = None
    figure: bool = True
    """False for a render of a whole page (a scan): not a figure of the document."""


def stable_name(stem: str, data: bytes, suffix: str) -> str:
    """`<stem>-<10 hex of sha256>.<ext>`: the same bytes and stem, the same name."""
    clean = _SAFE.sub("-", stem.lower()).strip("-")[:40] or "image"
    ext = _SAFE.sub("", suffix.lower().lstrip(".")) or "bin"
    return f"{clean}-{hashlib.sha256(data).hexdigest()[:10]}.{ext}"


def local_image(src: str | None, folder: Path) -> Path | None:
    """The file a relative image path names inside `folder` (the document's), or None for a
    URL, an absolute path, a path out of the folder, a missing file or one not an image."""
    if not src or _SCHEME.match(src) or src.startswith(("/", "\\", "//")):
        return None
    rel = unquote(src.split("#", 1)[0].split("?", 1)[0])
    if not rel or Path(rel).suffix.lower() not in IMAGE_SUFFIXES:
        return None
    base = folder.resolve()
    path = (base / rel).resolve()
    if not path.is_relative_to(base) or not path.is_file():
        return None
    return path


def intake(meta_dir: str | Path, text: str, original: str | Path | None, images: Sequence = (),
           max_bytes: int = 200 * 1024 * 1024) -> list[MediaImage]:
    """Take the run's images into `meta_dir/media/` and list them in `meta_dir/images.json`:
    the reader's `images` (`chunker.readers.model.Image`), then the local files the text's
    image paragraphs name, relative to the folder of `original` (files over `max_bytes` are
    left out). Returns what it listed (nothing written when there is nothing)."""
    from chunker.document.markdown_parse import markdown_parser  # noqa: PLC0415
    from chunker.structured.figures import parse_figures  # noqa: PLC0415

    meta = Path(meta_dir)
    found: list[tuple[MediaImage, bytes]] = []
    for img in images:
        found.append((MediaImage(name=img.name, file=stable_name("image", img.data, Path(img.name).suffix),
                                 mime=img.mime, offset=img.offset, alt=img.alt, caption=img.caption,
                                 figure=getattr(img, "figure", True)), img.data))
    named = {m.name for m, _ in found}
    if original is not None and "![" in text:
        folder = Path(original).parent
        for fig in parse_figures(text, markdown_parser(front_matter=text.startswith("---")).parse(text), None):
            path = local_image(fig.image, folder) if fig.image not in named else None
            if path is None or path.stat().st_size > max_bytes:
                continue
            data = path.read_bytes()
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            found.append((MediaImage(name=fig.image, file=stable_name(path.stem, data, path.suffix), mime=mime,
                                     offset=fig.span[0], alt=fig.alt, caption=fig.caption), data))
            named.add(fig.image)
    index = meta / INDEX
    if not found:
        if index.exists():
            index.unlink()
        return []
    cache = meta / CACHE
    cache.mkdir(parents=True, exist_ok=True)  # and OUT/.chunker above it
    for image, data in found:
        target = cache / image.file
        if not target.exists():  # content-addressed: an existing file holds these bytes
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)
    listed = [image for image, _ in found]
    tmp = index.with_name(INDEX + ".tmp")
    tmp.write_text(json.dumps([asdict(i) for i in listed], ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    os.replace(tmp, index)
    return listed


def load_images(out_dir: str | Path | None) -> list[MediaImage]:
    """The images `intake` listed for the run in `out_dir` (none without one)."""
    if not out_dir:
        return []
    index = Path(out_dir) / ".chunker" / INDEX
    try:
        rows = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [MediaImage(**row) for row in rows]


def figure_images(out_dir: str | None, path: str | None, text: str, max_bytes: int) -> list[MediaImage]:
    """The run's images, when it has a folder: an extracted run's were taken in with its
    source (`OUT/.chunker/places.json` is there), a text run's are taken in now from the
    file's folder (an update takes them again), a corpus document's were taken in when its
    file was read (its `path` is relative to the corpus)."""
    if not out_dir:
        return []
    extracted = (Path(out_dir) / ".chunker" / "places.json").exists()
    if not extracted and path and Path(path).is_absolute() and Path(path).is_file():
        return intake(Path(out_dir) / ".chunker", text, path, (), max_bytes=max_bytes)
    return load_images(out_dir)


def attach(figures: list[FigureRecord], images: Sequence[MediaImage]) -> list[FigureRecord]:
    """Each figure pointed at its image's file (`media/<name>`): by the name the text gives
    it, else by the reader's offset inside the figure."""
    by_name = {i.name: i for i in images}
    out = []
    for fig in figures:
        img = by_name.get(fig.image or "") or next(
            (i for i in images if i.figure and fig.span[0] <= i.offset <= fig.span[1]), None)
        out.append(fig.model_copy(update={"media": f"{MEDIA}/{img.file}"}) if img is not None else fig)
    return out


def image_bytes(out_dir: str | Path | None, media: str | None) -> bytes | None:
    """The bytes of a figure's image (`media/<name>`) from the run's cache, or None."""
    if not out_dir or not media:
        return None
    path = Path(out_dir) / ".chunker" / CACHE / Path(media).name
    try:
        return path.read_bytes()
    except OSError:
        return None


def media_sources(out: Path) -> dict[str, Path]:
    """Every cached image under OUT by file name: the run's own, and for a corpus each
    document's (`OUT/.chunker/docs/<key>/.chunker/media/`)."""
    found: dict[str, Path] = {}
    meta = out / ".chunker"
    folders = [meta / CACHE, *sorted((meta / "docs").glob(f"*/.chunker/{CACHE}"))]
    for folder in folders:
        if folder.is_dir():
            for path in folder.iterdir():
                if path.is_file() and not path.name.endswith(".tmp"):
                    found.setdefault(path.name, path)
    return found
