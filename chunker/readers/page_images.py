"""What the rewrite of a chunk adds from its source: its pages, the pages whose text is a
placeholder (scans OCR did not read), and page images for the vision model.

Only the rewrite sees images: completeness and boundary calls read text alone, so no vision
tokens are spent on finding boundaries. Without a vision model a paged document is read as
text (the CLI says so once) and a scan without OCR stays a flagged leaf without content.
Everything comes from the run's source map (`OUT/.chunker/places.json`) and the reader that
wrote it; a text run has none, and this adds nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from chunker import prompts
from chunker.config.settings import ChunkerSettings
from chunker.readers.source_map import SourceMap, load_map

log = logging.getLogger("chunker.pdf")


@dataclass
class ChunkPages:
    """A chunk's place in its paged source and what its rewrite call gets besides the text."""

    pages: tuple[int, int] | None = None
    scanned: list[int] | None = None
    """Pages of the chunk whose text is a placeholder (a scan without OCR text)."""
    images: list[bytes] = field(default_factory=list)
    preamble: str = ""
    """The vision instructions put before the rewrite prompt (empty without images)."""
    model: str | None = None
    """The model the rewrite goes to (the vision model), None for the run's model."""
    stats: dict[str, int] = field(default_factory=dict)
    placeholders: list[tuple[int, int]] = field(default_factory=list)
    """The placeholder lines' spans, relative to the chunk's start."""

    @property
    def transcribes_scan(self) -> bool:
        """The rewrite reads a scanned page from its image: nothing in the text can ground it."""
        return bool(self.scanned) and bool(self.images)

    def own_text(self, original: str) -> str:
        """The chunk's own text, without the lines that stand for unread scans."""
        out, last = [], 0
        for start, end in self.placeholders:
            out.append(original[last:start])
            last = end
        out.append(original[last:])
        return "".join(out)


def chunk_pages(cfg: ChunkerSettings, span: tuple[int, int], out_dir: str | None) -> ChunkPages:
    """Pages, scan flags and (with a vision model) page images of a chunk; empty for a source
    without pages. The source map lies in the run's folder `out_dir`."""
    source = load_map(out_dir) if cfg.input.source and out_dir else None
    pages = source.pages(span) if source is not None else None
    if pages is None:
        return ChunkPages()
    first, last = pages
    start = span[0]
    holders = [p for p in source.locator.placeholders_in(*span) if p.page is not None]
    scanned = sorted({p.page for p in holders if first <= p.page <= last}) or None
    out = ChunkPages(pages=(first, last), scanned=scanned,
                     placeholders=[(max(p.start, start) - start, min(p.end, span[1]) - start) for p in holders])
    if scanned:
        out.stats["pdf.scanned_pages"] = len(scanned)
    if not cfg.llm.vision_model:
        out.stats["pdf.text_only_leaves"] = 1
        if scanned:
            log.warning("page(s) %s scanned without a text layer: flagged leaf, no content "
                        "(pass --vision-model to transcribe)", ", ".join(map(str, scanned)))
        return out
    images = page_images(cfg, source, list(range(first, last + 1)))
    if not images:
        return out
    numbers = list(range(first, last + 1))
    out.images = images
    shown = numbers[:len(out.images)]
    label = str(shown[0]) if len(shown) == 1 else f"{shown[0]}-{shown[-1]}"
    out.preamble = prompts.render("rewrite_pages", pages=label)
    out.model = cfg.llm.vision_model
    out.stats["pdf.images"] = len(out.images)
    return out


def page_images(cfg: ChunkerSettings, source: SourceMap, numbers: list[int]) -> list[bytes]:
    """The source's reader renders its pages (the first `pdf.max_images`)."""
    from chunker.readers.registry import reader

    return reader(source.reader).page_images(source.original, numbers, dpi=cfg.pdf.dpi,
                                             max_images=cfg.pdf.max_images)
