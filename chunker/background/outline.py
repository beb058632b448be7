"""The outline: the whole document at a glance, made before any region is read.

A document read in regions (`chunker/chunking/regions.py`) has its regions read at once, so a
call cannot be shown the summaries of the levels that other regions are still building. It
is shown the outline instead: every region in document order, with its headings and a short
extractive summary of its text (LexRank over its sentences, `chunker/grounding/extractive.py`:
no model call, and the same whatever order the regions are read in), the call's own place
marked. So a call sees what comes after it too, which a cursor never did.

The outline is one background item (`BackgroundItem`, kind `outline`) under the call's hard
budget: it takes at most `outline_share` of `background_budget_tokens`, and a call in the
middle of a book sees its own region and its neighbours in full, the regions further away by
their headings only, and the rest as a count (`render`). Every call of a region gets the same
item, first in the rendered background, so a server's prompt cache keeps it.
"""

from __future__ import annotations

import bisect

from chunker.background.builder import BackgroundItem
from chunker.chunking.regions import Planned
from chunker.config.sections import RegionSettings
from chunker.document.readable import readable_copy
from chunker.document.tokens import count_tokens
from chunker.document.units import Units
from chunker.grounding.extractive import summary_of_sentences
from chunker.grounding.policy import GroundingPolicy
from chunker.state.records import Region, RegionPlan
from chunker.state.store import RunStore

MARK = "»"
"""Marks the region (or regions) the call is about."""
TITLE_MAX_CHARS = 80
"""A region's headings are cut to this many characters in the outline (a merged region has several)."""


def summarize(units: Units, span: tuple[int, int], settings: RegionSettings, policy: GroundingPolicy) -> str:
    """A region's summary: its most central sentence, ranked among at most
    `outline_summary_sentences` of its sentences (the document's, segmented once) spread
    evenly over it: LexRank is quadratic, and a chapter of a book has hundreds."""
    start, end = span
    first = bisect.bisect_right(units.sentences, start)
    last = bisect.bisect_left(units.sentences, end)
    bounds = [start, *units.sentences[first:last], end]
    pieces = [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]
    if len(pieces) > settings.summary_sentences:
        step = len(pieces) / settings.summary_sentences
        pieces = [pieces[int(i * step)] for i in range(settings.summary_sentences)]
    readable = readable_copy(units.text[start:end], headings=False)  # same length: offsets hold
    sample = [" ".join(readable[a - start:b - start].split()) for a, b in pieces]
    return summary_of_sentences(sample, max_chars=settings.summary_chars, max_sentences=1, policy=policy)


def make_plan(units: Units, by: str, planned: list[Planned], settings: RegionSettings,
              policy: GroundingPolicy) -> RegionPlan:
    """The regions with what the outline shows of each."""
    return RegionPlan(by=by, regions=[
        Region(index=i, span=(p.start, p.end), titles=list(p.titles),
               summary=summarize(units, (p.start, p.end), settings, policy))
        for i, p in enumerate(planned)])


def _title(region: Region) -> str:
    title = "; ".join(region.titles)
    return title if len(title) <= TITLE_MAX_CHARS else title[:TITLE_MAX_CHARS - 1].rstrip() + "…"


def _line(region: Region, marked: bool, full: bool) -> str:
    head = f"{MARK} " if marked else ""
    title = _title(region)
    if not full:
        return f"{head}{region.index + 1}. {title}"
    body = f"{title}: {region.summary}" if title else region.summary
    return f"{head}{region.index + 1}. {body}"


def render(plan: RegionPlan, marked: range, budget: int) -> str:
    """The outline for a call about the regions `marked`, within `budget` tokens: the marked
    regions in full (headings and summary), then outward from them, nearest first, each in
    full while it fits, else by its headings alone; what is left out is counted in its place."""
    regions = plan.regions
    n = len(regions)
    first, last = marked.start, marked.stop - 1
    where = (f"part {first + 1}" if first == last else f"parts {first + 1}-{last + 1}")
    header = f"The document has {n} parts; the text you are given is in {where} ({MARK})."
    chosen: dict[int, bool] = {}  # index -> shown in full

    def text() -> str:
        lines, gap = [header], 0
        for r in regions:
            if r.index not in chosen:
                gap += 1
                continue
            if gap:
                lines.append(f"({gap} more)")
                gap = 0
            lines.append(_line(r, r.index in marked, chosen[r.index]))
        if gap:
            lines.append(f"({gap} more)")
        return "\n".join(lines)

    order = sorted(range(n), key=lambda i: (0 if first <= i <= last else min(abs(i - first), abs(i - last)), i))
    for i in order:
        for full in (True, False):
            if not full and not regions[i].titles:
                continue  # no headings: a region is its summary or nothing
            chosen[i] = full
            if count_tokens(text()) <= budget:
                break
            del chosen[i]
        else:
            if i in marked or not chosen:
                continue
            break  # the nearest that does not fit: those further away would not say more
    return text() if chosen else ""


def outline_item(rs: RunStore, plan: RegionPlan | None, span: tuple[int, int], budget: int) -> BackgroundItem | None:
    """The outline item for a call about the text `span`, its regions marked, within `budget`
    tokens of text (None when the document is one region, or nothing fits)."""
    if plan is None or len(plan.regions) < 2 or budget <= 0:
        return None
    first, last = plan.at(span[0]), plan.at(max(span[0], span[1] - 1))
    text = rs.memo.get(("outline", first, last, budget), lambda: render(plan, range(first, last + 1), budget))
    if not text:
        return None
    return BackgroundItem("outline", f"outline:{first}-{last}", text, count_tokens(text),
                          position=first, label="the document at a glance")
