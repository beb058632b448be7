"""expand_window: grow the window one split unit at a time.

A new window grows from the cursor until it holds `min_chunk_tokens`; each later
expansion adds `expand_step` units; the run's boundary policy may grow it further until it
offers a choice (candidates mode: a candidate cut past the minimum). The lookahead shown
to the LLM is the next `lookahead_units` sentences.

With Markdown structure (`chunker/chunking/peel.py`) the window, its lookahead and its candidates
stop at the end of the cursor's section (and in a document read in regions, at its region's end), and a window end never falls inside a table,
code block, formula, figure or heading. A window that holds the rest of its section and
offers no cut to choose ends the chunk at the section end without asking the LLM (a
small section is one leaf on its own): `section_end` is set and the route goes to
end_at_section. So does a window that holds the rest of a plain text: whatever the model
answered, the leaf could only end at the end (a short file is one leaf, with no call).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.chunking.boundary import Window, boundary_policy
from chunker.chunking.peel import peel_of
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.nodes.common import run_store
from chunker.nodes.reuse import index_of, reusable_old
from chunker.state.schema import ChunkerState, reading_end
from chunker.update.index import ReuseIndex


def expand_window(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    units = rs.units(state["doc_id"])
    text, n = units.text, len(units.text)
    cursor = state["cursor"]
    peel = peel_of(rs, state["doc_id"], cursor)
    region_end = reading_end(state)  # a region's end is a hard end, like a section's
    stop = min(peel.limit if peel else n, region_end)

    def step(pos: int) -> int:
        nxt = units.next_end(pos, cfg.chunking.split_unit)
        return peel.grow(nxt) if peel else nxt

    index = index_of(state, runtime)  # an update's reuse index (None in a run)
    end = state.get("window_end")
    grown_from = end  # after an "incomplete" answer, the window must offer a new cut
    if end is None:
        end, tokens = cursor, 0
        while end < stop and tokens < cfg.chunking.min_chunk_tokens:
            nxt = step(end)
            tokens = count_tokens(text[cursor:nxt])  # exact: unit counts summed overestimate
            end = nxt
        min_end, expansions = end, 0
        if index is not None:  # an update: rejoin the old boundaries where the text is the old one
            rejoin = _rejoin(state, runtime, index, cursor, min_end, stop, text, cfg.chunking.max_chunk_tokens)
            if rejoin is not None:
                end, origin = rejoin
                return _window(end, count_tokens(text[cursor:end]), min_end) | rejoin_fields(
                    state, index, end, origin)
    else:
        tokens = state["window_tokens"]
        for _ in range(cfg.chunking.expand_step):
            if end >= stop:
                break
            nxt = step(end)
            tokens = count_tokens(text[cursor:nxt])  # exact: unit counts summed overestimate
            end = nxt
        min_end, expansions = state["min_end"], state["expansions"] + 1
    # The policy may grow the window further until it offers a choice: in candidates mode,
    # one it did not offer before an "incomplete" answer.
    policy = boundary_policy(cfg.chunking)
    lo = min_end if grown_from is None else max(min_end, grown_from + 1)
    end, tokens = policy.grow_until_choice(
        Window(state=state, rs=rs, cfg=cfg, peel=peel), lo, end, tokens, stop, step,
        lambda pos: count_tokens(text[cursor:pos]))  # exact: unit counts summed overestimate
    shown_end = end
    for _ in range(cfg.chunking.lookahead_units):
        shown_end = units.next_end(shown_end, "sentence")
    if peel:
        shown_end = peel.clamp(shown_end)
    shown_end = min(shown_end, region_end)
    update = _window(end, tokens, min_end, shown_end, expansions)
    if end >= stop and tokens < cfg.chunking.max_chunk_tokens and (
            min_end >= stop or policy.nothing_to_choose(
                Window(state={**state, **update}, rs=rs, cfg=cfg, peel=peel))):
        update["section_end"] = stop  # the rest of the section (or text), with no cut to choose
    if index is not None and index.patch:
        update["latest"] = index.latest_ids(cursor)
    return update


def _window(end: int, tokens: int, min_end: int, shown_end: int | None = None, expansions: int = 0) -> dict:
    return {
        "window_end": end,
        "window_tokens": tokens,
        "min_end": min_end,
        "shown_end": end if shown_end is None else shown_end,
        "expansions": expansions,
        "complete": None,
        "phrase": None,
        "boundary_number": None,
        "boundary_attempt": 0,
        "boundary_status": None,
        "chunk_end": None,
        "section_end": None,
        "rejoin_end": None,
        "rejoin_origin": None,
    }


def _rejoin(state: ChunkerState, runtime: Runtime[ChunkerSettings], index: ReuseIndex, cursor: int,
            min_end: int, stop: int, text: str, max_tokens: int) -> tuple[int, str | None] | None:
    """Where this passage ends without a choice in an update: when only the leaves' texts
    are stale, the old passage's own end; else the first old boundary past the minimum
    (and within the cap and the section) after which the old text goes on unchanged. With
    the end, the old passage's id when the leaf is that passage again."""
    if index.leaf_text_stale:
        leaf = reusable_old(state, runtime, index, cursor)
        return (leaf["new"][1], leaf["id"]) if leaf is not None else None
    for start in index.starts_after(max(min_end, cursor + 1), stop):
        if count_tokens(text[cursor:start]) > max_tokens:
            return None
        return start, None
    return None


def rejoin_fields(state: ChunkerState, index: ReuseIndex, end: int, origin: str | None) -> dict:
    """The rejoin itself, and in a patch the old blocks above the cursor as `latest`."""
    out = {"rejoin_end": end, "rejoin_origin": origin}
    if index.patch:
        out["latest"] = index.latest_ids(state["cursor"])
    return out
