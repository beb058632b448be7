"""A figure's description, written by the vision model from its image (`--vision-model`).

Each figure whose image was taken into the run (`chunker/structured/media.py`) is shown to
the vision model with its caption, alt text and the sentences that cite it
(`prompts/describe_figure.md`). The answer is kept only when the grounding check of every
other model text (`chunker/grounding/`) finds it supported by that caption, alt text and
citing text: names and numbers the evidence does not hold, or too few of its words, and the
figure has no description (it is never replaced by an invented or extractive one). No vision
model, or a figure without an image: no call and no description. A failed call is counted
(`figures.vision_errors`) and leaves the figure without one; the run goes on.

The model's answers are kept beside the images (`OUT/.chunker/media/descriptions.json`, by the
image's file, the model and a hash of the prompt), so an update asks again only for a figure
whose image, caption, citing text or vision model changed (`figures.descriptions_reused`).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
from pathlib import Path

from chunker import prompts
from chunker.grounding.gate import grounded
from chunker.structured.figures import citing_text, describe
from chunker.structured.media import image_bytes
from chunker.structured.records import FigureRecord, StructuredRecords

log = logging.getLogger("chunker")
TASK = "describe_figure"
GROUNDING_TASK = "figure_description"


def as_png(data: bytes) -> bytes | None:
    """The image as PNG (what the vision call sends), or None when it cannot be rasterised
    here (an SVG, a format Pillow does not read, Pillow not installed)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return data
    try:
        from PIL import Image  # noqa: PLC0415
    except ImportError:
        return None
    try:
        with Image.open(io.BytesIO(data)) as img:
            out = io.BytesIO()
            img.save(out, format="PNG")
            return out.getvalue()
    except (OSError, ValueError):
        return None


class Answers:
    """The vision model's earlier answers, by (image file, model, prompt): one JSON file."""

    def __init__(self, out_dir: str | None) -> None:
        self.path = Path(out_dir) / ".chunker" / "media" / "descriptions.json" if out_dir else None
        try:
            self.known: dict[str, str] = json.loads(self.path.read_text(encoding="utf-8")) if self.path else {}
        except (OSError, ValueError):
            self.known = {}

    @staticmethod
    def key(media: str, model: str, user: str) -> str:
        return hashlib.sha256(f"{Path(media).name}\0{model}\0{user}".encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def put(self, key: str, said: str) -> None:
        self.known[key] = said
        if self.path is not None and self.path.parent.is_dir():
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(json.dumps(self.known, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)


def describe_figures(cfg, rs, records: StructuredRecords, text: str, stats: dict[str, int]) -> StructuredRecords:
    """The records with each figure's grounded description (see the module docstring);
    `stats` counts the calls' tokens, the descriptions kept and those rejected."""
    from chunker.llm.invoke import call_llm  # noqa: PLC0415

    answers = Answers(rs.out_dir)
    asked: dict[str, int | None] = {}  # figure id -> its call's log id
    shown: list[str] = []  # the figure whose answer is being judged (describe() asks in turn)

    def vision(fig: FigureRecord) -> str:
        shown.append(fig.id)
        png = as_png(image_bytes(rs.out_dir, fig.media) or b"")
        if png is None:
            return ""
        user = prompts.render(TASK, caption=fig.caption or "(none)", alt=fig.alt or "(none)",
                              citing=citing_text(text, fig) or "(none)")
        key = Answers.key(fig.media or "", cfg.llm.vision_model, user)
        if key in answers.known:  # asked before (an update): the same answer, no call
            stats["figures.descriptions_reused"] = stats.get("figures.descriptions_reused", 0) + 1
            asked[fig.id] = None
            return answers.known[key]
        try:
            result = call_llm(cfg.llm, node="load_document", task=TASK, user=user, background="",
                              images=[png], model=cfg.llm.vision_model, memo=rs,
                              calls_dir=rs.calls_dir, slots=rs.slots, max_output_tokens=400)
        except Exception as exc:  # noqa: BLE001 - a figure without description, never a failed run
            log.warning("the vision model could not describe %s: %s", fig.id, exc)
            stats["figures.vision_errors"] = stats.get("figures.vision_errors", 0) + 1
            return ""
        for name, value in result.stats.items():
            stats[name] = stats.get(name, 0) + value
        asked[fig.id] = result.log_id
        said = result.parsed.description.strip() if result.parsed else ""
        if result.parsed:
            answers.put(key, said)
        return said

    def is_grounded(said: str, evidence: list[str]) -> bool:
        return grounded(cfg.grounding, GROUNDING_TASK, said, evidence, stats, asked.get(shown[-1]),
                        calls_dir=rs.calls_dir)

    figures = describe(records.figures, text, vision, is_grounded)
    kept = sum(1 for f in figures if f.description)
    if kept:
        stats["figures.described"] = kept
    if len(asked) - kept:
        stats["figures.description_rejected"] = len(asked) - kept
    return records.model_copy(update={"figures": figures})
