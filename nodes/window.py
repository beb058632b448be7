"""expand_window: grow the window one split unit at a time.

A new window grows from the cursor until it holds `min_chunk_tokens`; each later
expansion adds `expand_step` units; the run's boundary policy may grow it further until it
offers a choice (candidates mode: a candidate cut past the minimum). The lookahead shown
to the LLM is the next `lookahead_units` sentences.

With Markdown structure (`chunker/chunking/peel.py`) the window, its lookahead and its candidates
stop at the end of the cursor's section, and a window end never falls inside a table,
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
from chunker.state.schema import ChunkerState


def expand_window(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    units = rs.units(state["doc_id"])
    text, n = units.text, len(units.text)
    cursor = state["cursor"]
    peel = peel_of(rs, state["doc_id"], cursor)
    stop = peel.limit if peel else n

    def step(pos: int) -> int:
        nxt = units.next_end(pos, cfg.chunking.split_unit)
        return peel.grow(nxt) if peel else nxt

    end = state.get("window_end")
    grown_from = end  # after an "incomplete" answer, the window must offer a new cut
    if end is None:
        end, tokens = cursor, 0
        while end < stop and tokens < cfg.chunking.min_chunk_tokens:
            nxt = step(end)
            tokens = count_tokens(text[cursor:nxt])  # exact: unit counts summed overestimate
            end = nxt
        min_end, expansions = end, 0
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
    update = {
        "window_end": end,
        "window_tokens": tokens,
        "min_end": min_end,
        "shown_end": shown_end,
        "expansions": expansions,
        "complete": None,
        "phrase": None,
        "boundary_number": None,
        "boundary_attempt": 0,
        "boundary_status": None,
        "chunk_end": None,
        "section_end": None,
    }
    if end >= stop and tokens < cfg.chunking.max_chunk_tokens and (
            min_end >= stop or policy.nothing_to_choose(
                Window(state={**state, **update}, rs=rs, cfg=cfg, peel=peel))):
        update["section_end"] = stop  # the rest of the section (or text), with no cut to choose
    return update
