"""Candidates mode (issue 10): the signal proposes numbered peak gaps, the LLM answers a
number. Each routing path on a real multi-topic text (a Choi-style document of tests/data), a
real store and the `lexical` signal."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from chunker.config.settings import ChunkerSettings
from chunker.evaluation.gold import load_gold
from chunker.graph import cut
from chunker.llm.registry import get_model
from chunker.nodes.boundary import fallback_boundary, force_split, validate_boundary
from chunker.chunking.candidates import offered
from chunker.nodes.completeness import check_completeness, retry_boundary
from chunker.chunking.candidates import run_depths, run_peaks
from chunker.nodes.embed import embed_document
from chunker.nodes.load_document import load_document
from chunker.nodes.window import expand_window
from chunker.state.store import RunStore
from conftest import GOLD, assert_lossless, leaves, run_text, runtime, scripted

CHOI = load_gold([GOLD / "3-5"])[0]  # a Choi-style document built from public-domain prose


def _start(**model):
    cfg = ChunkerSettings(model=scripted(**model), min_chunk_tokens=40, max_chunk_tokens=400,
                          embeddings="lexical", boundary_mode="candidates")
    rt = runtime(cfg, InMemoryStore())
    state = load_document({"text": CHOI.text}, rt)
    state.update(embed_document(state, rt))
    state.update(expand_window(state, rt))
    return state, rt


def _rs(state, rt):
    return RunStore(rt.store, state["run_key"])


def test_offered_cuts_are_peaks_past_the_minimum_at_sentence_ends():
    state, rt = _start()
    cfg, rs = rt.context, _rs(*(state, rt))
    units = rs.units(state["doc_id"])
    peaks = run_peaks(rs, cfg, state["doc_id"])
    cursor = 0
    while cursor < len(CHOI.text) - 1:
        cuts = offered(state, rs, cfg)
        assert [c.number for c in cuts] == list(range(1, len(cuts) + 1))
        for c in cuts:
            assert state["min_end"] <= c.offset <= state["shown_end"] and c.offset > state["cursor"]
            assert c.offset in units.sentences and c.sentence in peaks
        assert cuts, "expand_window must stop only once the window holds a candidate"
        cursor = cuts[0].offset
        state = {**state, "cursor": cursor, "window_end": None}
        state.update(expand_window(state, rt))
        if state["window_end"] >= len(CHOI.text):
            break


def test_complete_at_once_cuts_at_the_first_offered_number():
    state, rt = _start()
    state.update(check_completeness(state, rt))
    assert state["complete"] is True and state["boundary_number"] == 1
    out = validate_boundary(state, rt)
    first = offered(state, _rs(state, rt), rt.context)[0]
    assert out["boundary_status"] == "match" and out["chunk_end"] == first.offset
    assert cut.after_validate({**state, **out}, rt) == "__end__"
    assert cut.after_boundary({**state, **out}, rt) == "__end__"  # decided: the cut subgraph ends


def test_incomplete_then_expand():
    state, rt = _start(complete_after_chars=10**6)
    state.update(check_completeness(state, rt))
    out = validate_boundary(state, rt)
    assert state["complete"] is False and out["boundary_status"] == "expand"
    assert cut.after_boundary({**state, **out}, rt) == "expand_window"
    grown = expand_window({**state, **out}, rt)
    assert grown["window_end"] > state["window_end"] and grown["expansions"] == 1


def test_invalid_number_then_retry_then_deepest_candidate_fallback():
    state, rt = _start(faults={"absent": 1.0})  # answers a number that was not offered
    state.update(check_completeness(state, rt))
    assert state["boundary_number"] not in [c.number for c in offered(state, _rs(state, rt), rt.context)]
    out = validate_boundary(state, rt)
    assert out["boundary_status"] == "miss"
    state.update(out)
    assert cut.after_validate(state, rt) == "retry_boundary"
    state.update(retry_boundary(state, rt))
    state.update(validate_boundary(state, rt))
    assert state["boundary_status"] == "miss" and cut.after_validate(state, rt) == "fallback_boundary"
    out = fallback_boundary(state, rt)
    cfg, rs = rt.context, _rs(state, rt)
    depths, sentences = run_depths(rs, cfg, state["doc_id"]), rs.units(state["doc_id"]).sentences
    in_window = [i for i, e in enumerate(sentences[:-1]) if state["min_end"] <= e <= state["window_end"]]
    deepest = max(in_window, key=lambda i: (depths[i], -i))
    assert out["chunk_end"] == sentences[deepest] and out["chunk_outcome"] == "fallback"


def test_no_candidate_in_the_window_grows_it_by_more_than_one_unit():
    state, rt = _start()
    cfg, rs = rt.context, _rs(state, rt)
    units, peaks = rs.units(state["doc_id"]), run_peaks(rs, cfg, state["doc_id"])
    # a cursor right after a peak: the next sentence ends are not peaks for a while
    starts = [units.sentences[i] for i in sorted(peaks)
              if i + 2 < len(units.sentences) - 1 and i + 1 not in peaks and i + 2 not in peaks]
    assert starts
    fresh = {**state, "cursor": starts[0], "window_end": None}
    plain = rt.context.with_(boundary_mode="phrase")
    by_units = expand_window(fresh, runtime(plain, rt.store))
    by_peaks = expand_window(fresh, rt)
    assert by_peaks["window_end"] > by_units["window_end"]
    assert any(state["cursor"] < units.sentences[i] <= by_peaks["window_end"] for i in peaks)


def test_the_force_split_valve_cuts_at_the_deepest_gap_under_the_cap():
    state, rt = _start()
    out = force_split({**state, "window_end": len(CHOI.text)}, rt)
    assert out["forced"] and out["chunk_outcome"] == "forced_deepest"


@pytest.mark.parametrize("faults", [{}, {"absent": 1.0}, {"incomplete": 0.5}, {"invalid_json": 0.5}])
def test_whole_runs_stay_lossless_and_count_every_outcome(faults):
    spec = scripted(faults=faults)
    out, _ = run_text(CHOI.text, spec, min_chunk_tokens=40, max_chunk_tokens=300,
                      embeddings="lexical", boundary_mode="candidates")
    assert_lossless(out["tree"], CHOI.text)
    s, fired = out["stats"], get_model(ChunkerSettings(model=spec).llm).fired
    n = lambda key: s.get(key, 0)  # noqa: E731
    outcomes = {leaf["boundary"] for leaf in leaves(out["tree"])}
    # each leaf's outcome is counted once; forced splits count as forced_splits
    assert sum(n(f"boundary.{o}") for o in ("match", "retry_match", "end", "deepest", "fallback")) + \
        n("forced_splits") == s["leaves"] == len(leaves(out["tree"]))
    # every boundary answer is validated once: a cut, a miss or an expansion (fallback and
    # forced leaves end without one); a repaired answer took two calls (`repairs` counts
    # the repairs of every task)
    calls = n("calls.completeness_candidates") + n("calls.boundary_retry_candidates")
    # (a last window that holds the rest of the text with no cut to offer ends without a
    # question: `calls_saved.end`)
    validated = s["leaves"] - n("boundary.fallback") - n("forced_splits") - n("calls_saved.end") \
        + n("boundary.miss") + n("boundary.incomplete")
    assert calls - n("repairs") <= validated <= calls
    assert validated == calls or n("repairs")
    assert set(fired) == set(faults)  # the fault set acted, and nothing else did
    if not faults:
        assert outcomes == {"match", "end"} and n("boundary.miss") == n("boundary.incomplete") == 0
    if faults.get("absent"):
        # every number is unoffered: a miss, a retry, a second miss, then the deepest gap
        assert outcomes == {"fallback", "end"}
        assert fired["absent"] == n("boundary.miss") == 2 * n("calls.boundary_retry_candidates") \
            == 2 * n("boundary.fallback") == 2 * (s["leaves"] - 1)
    if faults.get("incomplete"):
        assert n("boundary.incomplete") + n("boundary.end") >= fired["incomplete"]
        assert n("boundary.incomplete") > 0 and n("boundary.miss") == 0
    if faults.get("invalid_json"):
        # each invalid answer is counted and repaired once; a repaired boundary answer names
        # no cut (the repair turn shows no markers), so the deepest gap decides
        assert n("invalid_outputs") == fired["invalid_json"] > 0
        assert n("repairs") > 0 and "deepest" in outcomes
