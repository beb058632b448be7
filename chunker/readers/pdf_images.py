"""A PDF's figures: the images embedded in its pages, as `Image`s placed on their page.

The text of a PDF has no image paragraphs, so each image is placed at its page's caption line
(`Figure 2: ...`, the n-th caption of the page for its n-th image, top to bottom) or, without
one, at the page's start; the records pass makes it a figure there. An image drawn on more
than one page (a logo, a page background) is decoration, not a figure, and so is one smaller
than `min_px` on either side; a scanned page's image is the page itself (OCR or the vision
model reads it). The text is not changed: a run started before stays the same.
"""

from __future__ import annotations

import re
from pathlib import Path

from chunker.readers.model import Image, Place

CAPTION_LINE = re.compile(r"^[ \t*_]*(?:Figure|Fig\.)\s+[\w.\-]+\s*[:.\u2014\u2013-].*$",
                          re.IGNORECASE | re.MULTILINE)
MIME = {"png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "jpx": "image/jp2",
        "gif": "image/gif", "tiff": "image/tiff", "bmp": "image/bmp"}


def embedded_images(path: Path, text: str, places: tuple[Place, ...], min_px: int) -> tuple[Image, ...]:
    """The figures' images of the PDF at `path` whose text (with `places`, one a page) is `text`;
    none when MuPDF cannot read them (the text was read: a damaged image costs only its figure's
    image)."""
    try:
        return _images(path, text, places, min_px)
    except (RuntimeError, ValueError):
        return ()


def _images(path: Path, text: str, places: tuple[Place, ...], min_px: int) -> tuple[Image, ...]:
    import pymupdf

    pages = {p.page: p for p in places if p.page is not None}
    out: list[Image] = []
    with pymupdf.open(path) as doc:
        seen: dict[int, int] = {}  # xref -> pages it is drawn on
        listed = []
        for index in range(doc.page_count):
            page = doc.load_page(index)
            refs = []
            for info in page.get_images(full=True):
                xref, width, height = info[0], info[2], info[3]
                seen[xref] = seen.get(xref, 0) + 1
                if width >= min_px and height >= min_px:
                    rects = page.get_image_rects(xref)
                    refs.append((rects[0].y0 if rects else 0.0, xref))
            listed.append((index + 1, sorted(refs)))
        for number, refs in listed:
            place = pages.get(number)
            if place is None or place.scanned:  # a scan's image is its page, not a figure
                continue
            captions = [m for m in CAPTION_LINE.finditer(text, place.start, place.end)]
            kept = [xref for _, xref in refs if seen[xref] == 1]
            for k, xref in enumerate(kept):
                got = doc.extract_image(xref)
                if not got or not got.get("image"):
                    continue
                ext = str(got.get("ext") or "png").lower()
                caption = captions[k] if k < len(captions) else None
                out.append(Image(name=f"page-{number}-image-{k + 1}.{ext}", data=got["image"],
                                 mime=MIME.get(ext, f"image/{ext}"),
                                 offset=caption.start() if caption else place.start,
                                 caption=" ".join(caption.group(0).strip(" *_").split()) if caption else None))
    return tuple(out)
