"""Round-2 correctness defects, each with a test that failed on the code before its fix:
background that reaches the rewrite, runs sharing one store, idempotent counters, at most
one call re-issued per crash, CR-only line endings, and no silent default model."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from chunker.background.builder import START_MARKER
from chunker.config.settings import ChunkerSettings
from chunker.state.run import RunContext
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.llm.calllog import read_calls
from chunker.llm.invoke import call_llm
from chunker.llm.registry import get_model
from chunker.nodes.summarize import summarize_chunk
from chunker.state.store import RunStore
from conftest import CINDERELLA, EMMA, assert_lossless, leaves, run_text, runtime, scripted


def _squash(text: str) -> str:
    return " ".join(text.split())


def _rewrite_prompts(run_dir) -> list[str]:
    return [c["prompt"] for c in read_calls(run_dir) if c["node"] == "rewrite_chunk"]


@pytest.mark.parametrize("source", ["cinderella", "emma"])
def test_every_rewrite_after_the_first_sees_its_predecessor(tmp_path, source):
    """Defect 1: with the default settings the predecessor never fitted the budget."""
    text = (CINDERELLA.read_text() if source == "cinderella"
            else EMMA.read_text()[:60_000])
    # one cursor: read in regions, a region's first passage sees the source before the region
    # in place of its predecessor (tests/test_regions.py)
    out, _ = run_text(text, model="scripted", out_dir=str(tmp_path), return_tree=True, reading="one_cursor")
    tree_leaves = leaves(out["tree"])
    prompts = _rewrite_prompts(tmp_path)
    assert len(prompts) == len(tree_leaves) >= 3
    assert START_MARKER in prompts[0]
    for prev, prompt in zip(tree_leaves, prompts[1:]):
        assert START_MARKER not in prompt
        assert _squash(prev["original"]) in _squash(prompt)


def test_two_interleaved_runs_on_one_store_keep_apart():
    """Defect 4: keys depended only on the document, so two threads overwrote each other."""
    text = CINDERELLA.read_text()
    store = InMemoryStore()
    graph = build_graph(InMemorySaver(), store, llm_retry=llm_retry_policy(1, 0.0))
    settings = [RunContext(model="scripted", min_chunk_tokens=m, max_chunk_tokens=3 * m) for m in (120, 300)]
    streams = [graph.stream({"text": text}, {"configurable": {"thread_id": f"t{i}"},
                                             "recursion_limit": 10**6},
                            context=s, stream_mode="values") for i, s in enumerate(settings)]
    finals: list[dict | None] = [None, None]
    while any(st is not None for st in streams):
        for i, st in enumerate(streams):  # one step of each thread in turn
            if st is None:
                continue
            try:
                finals[i] = next(st)
            except StopIteration:
                streams[i] = None
    alone = [run_text(text, model="scripted", min_chunk_tokens=m, max_chunk_tokens=3 * m)[0]["tree"]
             for m in (120, 300)]
    for final, solo in zip(finals, alone):
        assert_lossless(final["tree"], text)
        assert [n["span"] for n in final["tree"]["nodes"]] == [n["span"] for n in solo["nodes"]]
    assert len(leaves(finals[0]["tree"])) > len(leaves(finals[1]["tree"]))


def test_summarize_counts_the_same_when_run_again(cinderella):
    """Defect 6: in combined mode a re-run after the store write lost `fallback.summary`."""
    model = scripted(summary="...")  # not prose: the summary falls back
    cfg = ChunkerSettings(model=model, combine_rewrite_and_summary=True, min_chunk_tokens=100)
    out, store = run_text(cinderella, model=model, combine_rewrite_and_summary=True,
                          min_chunk_tokens=100)
    assert out["stats"]["fallback.summary"] == out["stats"]["leaves"]
    # replay the last leaf's summarize step twice against the finished store
    run_key = next(iter(store.search(("chunker",), limit=1))).namespace[1]
    rs = RunStore(store, run_key)
    last = len(leaves(out["tree"])) - 1
    state = {"run_key": run_key, "doc_id": out["doc_id"], "leaf_count": last, "pending": [[]],
             "chunk_end": 10, "doc_chars": len(cinderella), "latest": [None]}
    rt = runtime(cfg, store)
    first, second = summarize_chunk(state, rt), summarize_chunk(state, rt)
    assert first["stats"] == second["stats"] and first["stats"]["fallback.summary"] == 1
    record = rs.get_node(f"L0-{last:05d}")
    assert record.summary_hint == "..." and record.summary != "..."  # the answer is kept apart


def test_a_crash_during_a_repair_reissues_one_call():
    """Defect 7: the original call and its repair lived in one node run: a crash in the
    repair re-issued both."""
    spec = scripted(faults={"invalid_json": 1.0}, fail_calls=[2])
    cfg = ChunkerSettings(model=spec)
    rs = RunStore(InMemoryStore(), "run")
    model = get_model(cfg.llm)
    kwargs = dict(node="check_completeness", task="completeness", background="",
                  user="<window>\nSome text.\n</window>\n<lookahead>\nMore.\n</lookahead>", memo=rs)
    with pytest.raises(ConnectionError):
        call_llm(cfg.llm, **kwargs)  # call 1: invalid; call 2 (the repair): the crash
    assert model._calls == 2
    result = call_llm(cfg.llm, **kwargs)  # the node runs again after resume
    assert model._calls == 3  # only the repair was sent again
    assert result.stats["calls.total"] == 2 and result.stats["repairs"] == 1  # both calls counted


def test_cr_only_line_endings_break_into_paragraphs_and_sentences():
    """Defect 8: CR-only files were one long line: every leaf was force-split."""
    emma = EMMA.read_text()[2_000:22_000]
    mac = emma.replace("\r\n", "\n").replace("\n", "\r")
    out, _ = run_text(mac, model="scripted", min_chunk_tokens=150, max_chunk_tokens=500,
                      boundary_mode="phrase")
    assert_lossless(out["tree"], mac)
    assert out["stats"].get("forced_splits", 0) == 0
    para, _ = run_text(mac, model="scripted", min_chunk_tokens=150, max_chunk_tokens=500,
                       split_unit="paragraph", boundary_mode="phrase")
    ends = [leaf["span"][1] for leaf in leaves(para["tree"])][:-1]
    assert ends and all(mac[:e].rstrip(" ").endswith("\r\r") for e in ends)


def test_no_model_set_is_a_clear_error():
    """Defect 9: an unset model silently used the scripted test model."""
    graph = build_graph(store=InMemoryStore())
    with pytest.raises(ValueError, match="no model is set"):
        graph.invoke({"text": "Some text. More text."}, context=ChunkerSettings())
    with pytest.raises(ValueError, match="no model is set"):
        graph.invoke({"text": "Some text. More text."})
