"""What the rewrite of a PDF chunk adds: its pages, scanned-page flags, and page images for
the vision model.

Only the rewrite sees images: completeness and boundary calls read text alone, so no vision
tokens are spent on finding boundaries. Without a vision model a PDF is read as text (the CLI
says so once) and a scanned page stays a flagged leaf without content.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from chunker import prompts
from chunker.config.settings import ChunkerSettings
from chunker.document.pdf_source import SCANNED_NOTE, load_page_map

log = logging.getLogger("chunker.pdf")

_NOTE = re.compile(re.escape(SCANNED_NOTE).replace(r"\{number\}", r"\d+"))


@dataclass
class ChunkPages:
    """A chunk's place in its PDF and what its rewrite call gets besides the text."""

    pages: tuple[int, int] | None = None
    scanned: list[int] | None = None
    images: list[bytes] = field(default_factory=list)
    preamble: str = ""
    """The vision instructions put before the rewrite prompt (empty without images)."""
    model: str | None = None
    """The model the rewrite goes to (the vision model), None for the run's model."""
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def transcribes_scan(self) -> bool:
        """The rewrite reads a scanned page from its image: nothing in the text can ground it."""
        return bool(self.scanned) and bool(self.images)


def chunk_pages(cfg: ChunkerSettings, span: tuple[int, int], out_dir: str | None) -> ChunkPages:
    """Pages, scan flags and (with a vision model) page images of a chunk; empty for text runs.
    The page map lies in the run's folder `out_dir` (a PDF run always has one)."""
    page_map = load_page_map(out_dir) if cfg.pdf.source and out_dir else None
    if page_map is None:
        return ChunkPages()
    first, last = page_map.range_of(span)
    scanned = page_map.scanned_in(first, last) or None
    out = ChunkPages(pages=(first, last), scanned=scanned)
    if scanned:
        out.stats["pdf.scanned_pages"] = len(scanned)
    if not cfg.llm.vision_model:
        out.stats["pdf.text_only_leaves"] = 1
        if scanned:
            log.warning("page(s) %s scanned without a text layer: flagged leaf, no content "
                        "(pass --vision-model to transcribe)", ", ".join(map(str, scanned)))
        return out
    from chunker.document.pdf import render_pages  # the pdf extra; present in a PDF run

    numbers = list(range(first, last + 1))
    out.images = render_pages(page_map.pdf, numbers, dpi=cfg.pdf.dpi, max_images=cfg.pdf.max_images)
    shown = numbers[:len(out.images)]
    label = str(shown[0]) if len(shown) == 1 else f"{shown[0]}-{shown[-1]}"
    out.preamble = prompts.render("rewrite_pages", pages=label)
    out.model = cfg.llm.vision_model
    out.stats["pdf.images"] = len(out.images)
    return out


def text_without_notes(original: str) -> str:
    """The chunk's own text, without the lines that stand for scanned pages."""
    return _NOTE.sub("", original)
