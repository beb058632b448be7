"""Images as documents (PNG, JPEG, TIFF; a multi-page TIFF's frames as pages), read by OCR.

Each frame is one page: its text is tesseract's (`chunker/readers/ocr.py`), its place has
`page`, `scanned` and `ocr_confidence`, and its image is kept for a vision model (`page_images`,
`Extracted.images`). Without tesseract or its binding the reader is unavailable, with the line
of what to install; with OCR turned off (`ReadSettings.ocr`) an image is refused.
"""

from __future__ import annotations

import io
from pathlib import Path

from chunker.readers.base import ReadSettings, Reader
from chunker.readers.model import Extracted, Image, Metadata, Place, ReaderError

MAGIC = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"II*\x00": "image/tiff",
    b"MM\x00*": "image/tiff",
}
MAX_PAGES = 500
"""A TIFF with more frames is refused (`too-large`): OCR takes seconds a page."""


def _frames(path: Path):
    """Each frame of the image as PNG bytes, in order; ReaderError for a damaged image."""
    from PIL import Image as PILImage, ImageSequence, UnidentifiedImageError

    try:
        with PILImage.open(path) as im:
            n = getattr(im, "n_frames", 1)
            if n > MAX_PAGES:
                raise ReaderError(f"{path} has {n} pages, over the {MAX_PAGES} an image may have",
                                  reason="too-large")
            for frame in ImageSequence.Iterator(im):
                buf = io.BytesIO()
                frame.convert("RGB" if frame.mode not in ("L", "RGB") else frame.mode).save(buf, format="PNG")
                yield buf.getvalue()
    except ReaderError:
        raise
    except PILImage.DecompressionBombError as exc:  # Pillow's guard against a pixel bomb
        raise ReaderError(f"{path} is too large an image ({exc})", reason="too-large") from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise ReaderError(f"{path} is a damaged image ({exc})", reason="broken-image") from exc


class ImageReader(Reader):
    id = "image"
    label = "image"
    extra = "ocr"
    split_unit = "page"

    def sniff(self, head: bytes, path: Path) -> bool:
        return any(head.startswith(magic) for magic in MAGIC)

    def available(self) -> str | None:
        from chunker.readers import ocr

        return ocr.missing()

    def read(self, path: Path, settings: ReadSettings) -> Extracted:
        from chunker.readers import ocr

        if not settings.ocr:
            raise ReaderError(f"{path} is an image: its text can only be read by OCR, which is "
                              "turned off", reason="ocr-off")
        parts: list[str] = []
        places: list[Place] = []
        images: list[Image] = []
        pos = 0
        for number, png in enumerate(_frames(Path(path)), 1):
            try:
                text, confidence = ocr.read_image(png, lang=settings.ocr_lang)
            except ocr.OcrError as exc:
                raise ReaderError(f"{path}: {exc}", reason="ocr-failed") from exc
            if not text.strip():
                continue
            chunk = text.strip() + "\n\n"
            images.append(Image(name=f"page-{number}.png", data=png, mime="image/png", offset=pos, figure=False))
            places.append(Place(start=pos, end=pos + len(chunk), page=number, scanned=True,
                                ocr_confidence=confidence))
            parts.append(chunk)
            pos += len(chunk)
        if not parts:
            raise ReaderError(f"{path} has no text that OCR could read", reason="empty")
        last = places[-1]
        parts[-1] = parts[-1][:-1]  # one final newline
        places[-1] = Place(start=last.start, end=last.end - 1, page=last.page, scanned=True,
                           ocr_confidence=last.ocr_confidence)
        return Extracted(markdown="".join(parts), places=tuple(places), metadata=Metadata(),
                         images=tuple(images))

    def page_images(self, path: Path, pages: list[int], *, dpi: int, max_images: int) -> list[bytes]:
        wanted = set(pages[:max_images])
        return [png for number, png in enumerate(_frames(Path(path)), 1) if number in wanted]
