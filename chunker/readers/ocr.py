"""OCR of a page image with the `tesseract` program through the pytesseract binding.

`missing()` says what to install (the program is a Debian package, the binding the `ocr`
extra); `read_image()` returns the text in tesseract's reading order, its lines joined per
paragraph and paragraphs separated by a blank line, with the mean confidence of its words.
Nothing is downloaded: tesseract's language data comes with its packages
(`tesseract-ocr-eng` is installed with `tesseract-ocr`; other languages are
`tesseract-ocr-<code>`).
"""

from __future__ import annotations

import importlib.util
import io
import shutil

PROGRAM_HINT = "apt-get install -y tesseract-ocr"
BINDING_HINT = "pip install 'chunker-tree[ocr]'"
MIN_WORD_CONFIDENCE = 0.0
"""Words tesseract scores below this (0-100) are dropped; -1 marks its non-word boxes."""


class OcrError(RuntimeError):
    """Tesseract failed on an image (a language it has no data for, a damaged image)."""


def missing() -> str | None:
    """None when OCR can run; else one line of what to install (program and/or binding)."""
    need = []
    if shutil.which("tesseract") is None:
        need.append(PROGRAM_HINT)
    if importlib.util.find_spec("pytesseract") is None:
        need.append(BINDING_HINT)
    if not need:
        return None
    return "OCR needs the tesseract program and its binding: " + " and ".join(need)


def languages() -> set[str]:
    """The language codes tesseract has data for (`eng`, `osd`, ...)."""
    import pytesseract

    return set(pytesseract.get_languages(config=""))


def read_image(png: bytes, *, lang: str = "eng") -> tuple[str, float]:
    """The text of an image (PNG, or any format Pillow opens) and tesseract's mean word
    confidence (0-100; 0.0 when it found no words). Paragraphs are separated by blank lines."""
    import pytesseract
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except Exception as exc:  # Pillow raises many kinds for a bad image
        raise OcrError(f"not an image tesseract can read: {exc}") from exc
    try:
        data = pytesseract.image_to_data(image, lang=lang, output_type=pytesseract.Output.DICT)
    except pytesseract.TesseractNotFoundError as exc:
        raise OcrError(f"tesseract is not installed: {PROGRAM_HINT}") from exc
    except pytesseract.TesseractError as exc:
        raise OcrError(f"tesseract failed ({lang}): {exc.message or exc}") from exc
    return _assemble(data)


def _assemble(data: dict) -> tuple[str, float]:
    """Words grouped by tesseract's block, paragraph and line numbers, in its order."""
    paragraphs: dict[tuple[int, int], dict[int, list[str]]] = {}
    confidences: list[float] = []
    for i, word in enumerate(data["text"]):
        word = (word or "").strip()
        conf = float(data["conf"][i])
        if not word or conf < MIN_WORD_CONFIDENCE:
            continue
        key = (data["block_num"][i], data["par_num"][i])
        paragraphs.setdefault(key, {}).setdefault(data["line_num"][i], []).append(word)
        confidences.append(conf)
    text = "\n\n".join("\n".join(" ".join(words) for words in lines.values())
                       for lines in paragraphs.values())
    mean = sum(confidences) / len(confidences) if confidences else 0.0
    return text, round(mean, 1)
