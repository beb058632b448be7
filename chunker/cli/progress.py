"""The progress bar (fed by the graph's custom stream events) and the stats table."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table

# The grounding package is imported where the advice and the table need it: `chunker --help`
# (inspect's help included) must not pay for it.
if TYPE_CHECKING:
    from chunker.grounding import GroundingPolicy


class RunProgress:
    """Characters processed out of the total, leaves, LLM calls, elapsed time and ETA."""

    def __init__(self, console: Console, enabled: bool = True):
        self.enabled = enabled
        self.leaves = 0
        self.calls = 0
        self.progress = Progress(
            TextColumn("[bold]chunking"), BarColumn(), TaskProgressColumn(),
            TextColumn("{task.fields[chars]} chars"),
            TextColumn("{task.fields[leaves]} leaves"), TextColumn("{task.fields[calls]} LLM calls"),
            TimeElapsedColumn(), TimeRemainingColumn(), console=console, disable=not enabled,
            transient=False,
        )
        self.task = None
        self.regions: dict[int, tuple[int, int]] = {}
        """A document read in regions: each region's span, from its `regions` event."""
        self.read: dict[int | None, tuple[int, int]] = {}
        """Per cursor (a region's, or the document's: None): characters read and leaves cut."""

    def __enter__(self) -> "RunProgress":
        self.progress.__enter__()
        self.task = self.progress.add_task("run", total=None, leaves=0, calls=0, chars="0")
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def on_event(self, event: dict) -> None:
        if not isinstance(event, dict):
            return
        kind = event.get("event")
        if kind == "llm_call":
            self.calls += 1
        elif kind == "regions":
            self.regions = {i: tuple(span) for i, span in enumerate(event.get("spans") or [])}
        elif kind == "progress":
            region = event.get("region")
            start = self.regions.get(region, (0, 0))[0] if region is not None else 0
            self.read[region] = (event.get("cursor", 0) - start, event.get("leaves", 0))
            # the regions' cursors read at once: what they read adds up
            cursor = sum(chars for chars, _ in self.read.values())
            self.leaves = sum(leaves for _, leaves in self.read.values())
            total = event.get("total") or 0
            self.progress.update(self.task, total=total, completed=cursor,
                                 chars=f"{cursor:,}/{total:,}")
        self.progress.update(self.task, leaves=self.leaves, calls=self.calls)


class CorpusProgress(RunProgress):
    """A corpus: files and bytes done out of the total, with a line per finished file."""

    def __init__(self, console: Console, enabled: bool = True):
        super().__init__(console, enabled)
        self.console = console
        self.files = 0
        self.progress = Progress(
            TextColumn("[bold]corpus"), BarColumn(), TaskProgressColumn(),
            TextColumn("{task.fields[files]} files"), TextColumn("{task.fields[chars]} bytes"),
            TextColumn("{task.fields[calls]} LLM calls"), TextColumn("{task.fields[current]}"),
            TimeElapsedColumn(), TimeRemainingColumn(), console=console, disable=not enabled,
            transient=False,
        )

    def __enter__(self) -> "CorpusProgress":
        self.progress.__enter__()
        self.task = self.progress.add_task("corpus", total=None, files="0", chars="0", calls=0,
                                           current="", leaves=0)
        return self

    def on_event(self, event: dict) -> None:
        if not isinstance(event, dict):
            return
        if event.get("event") == "llm_call":
            self.calls += 1
        elif event.get("event") == "document":
            phase, source = event.get("phase"), event.get("source", "")
            if phase in ("start", "done"):
                done, total = event.get("bytes", 0), event.get("bytes_total") or 0
                if phase == "done":
                    self.files = event.get("files", event["index"] + 1)
                    if self.enabled:
                        self.progress.console.print(f"done {source} ({event.get('leaves', 0)} leaves)",
                                                    highlight=False, markup=False)
                self.progress.update(self.task, total=total, completed=done,
                                     files=f"{self.files}/{event.get('total', 0)}",
                                     chars=f"{done:,}/{total:,}",
                                     current=source if phase == "start" else "")
            elif phase == "skipped" and self.enabled:
                self.progress.console.print(f"skipped {source}: {event.get('reason', '')}",
                                            highlight=False, markup=False)
        self.progress.update(self.task, calls=self.calls)


def advice(stats: dict[str, int], model: str | None, policy: GroundingPolicy) -> list[str]:
    from chunker.grounding import fallback_advice
    from chunker.grounding.advice import extracted_note, task_outcomes

    counts = task_outcomes(stats)
    note = extracted_note(counts)
    return fallback_advice(counts, model=model, policy=policy) + ([note] if note else [])


def stats_rows(stats: dict[str, int], wall_s: float | None) -> list[tuple[str, str]]:
    from chunker.grounding.advice import task_outcomes

    rows = [(k, stats[k]) for k in ("documents", "skipped") if k in stats]
    rows += [("leaves", stats.get("leaves", 0))]
    rows += sorted((k, v) for k, v in stats.items() if k.startswith("blocks."))
    rows += [("forced splits", stats.get("forced_splits", 0))]
    # an update: what it reused, redid, added and removed (chunker/update/)
    rows += sorted((k.replace(".", " ", 1), v) for k, v in stats.items() if k.startswith("update."))
    for outcome in ("match", "retry_match", "deepest", "section", "end", "fallback", "miss", "incomplete",
                    *(("rejoin",) if "boundary.rejoin" in stats else ())):
        rows.append((f"boundary {outcome}", stats.get(f"boundary.{outcome}", 0)))
    rows += sorted((f"LLM calls: {k[6:]}", v) for k, v in stats.items() if k.startswith("calls."))
    rows += [("prompt tokens", stats.get("tokens.prompt", 0)),
             ("completion tokens", stats.get("tokens.completion", 0)),
             ("invalid outputs repaired", stats.get("repairs", 0))]
    outcomes = task_outcomes(stats)
    rows += [(f"{task}: kept / fell back", f"{c.kept:,} / {c.fell_back:,}")
             for task, c in outcomes.items() if c.total]
    rows += [(f"{task}: extracted (model not asked)", c.extracted)
             for task, c in outcomes.items() if c.extracted]
    rows += sorted((k, v) for k, v in stats.items()
                   if k.startswith(("grounding.", "group.", "signals.", "records.", "checks.")))
    if wall_s is not None:
        rows.append(("wall time (s)", f"{wall_s:.1f}"))
    return [(k, f"{v:,}" if isinstance(v, int) else str(v)) for k, v in rows]


def print_stats(console: Console, stats: dict[str, int], wall_s: float | None, as_json: bool,
                advice_lines: list[str] = (), skipped: list | None = None) -> None:
    """The table (or JSON); a corpus's `skipped` files are listed with their reasons."""
    if as_json:
        out = {"stats": stats, "wall_s": wall_s, "advice": list(advice_lines)}
        if skipped is not None:
            out["skipped"] = [{"source": s.rel, "reason": s.reason} for s in skipped]
        print(json.dumps(out, sort_keys=True))
        return
    title = "chunker update" if any(k.startswith("update.") for k in stats) else "chunker run"
    table = Table(title=title, show_header=True)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in stats_rows(stats, wall_s):
        table.add_row(key, value)
    console.print(table)
    if skipped:
        listing = Table(title="skipped files", show_header=True)
        listing.add_column("file")
        listing.add_column("reason")
        for s in skipped:
            listing.add_row(s.rel, s.reason)
        console.print(listing)
    for line in advice_lines:
        console.print(f"[yellow]note:[/] {line}", highlight=False)
