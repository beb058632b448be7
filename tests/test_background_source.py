"""`background.context: source` (issue 20): a call sees only the source before it, so a
document's leaves are written in parallel once the cursor reached the end, and a sweep's
blocks together; the tree is the same at every concurrency, a run that fails in the middle
of the leaves' fan-out resumes to it, and an update of such a tree is right.

Real runs of the graph (in-process, as tests/test_concurrency.py invokes it) and of the CLI
(in-process too, through typer's runner), with the scripted model. Its answers read the task's own text and never the background,
so `source` and `written` must build the very same nodes with it: that checks that the
levels replayed after the leaves are the sweeps `written` makes while it reads.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import Result
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from pydantic import PrivateAttr
from typer.testing import CliRunner

from chunker.background.policy import SOURCE_LABEL
from chunker.cli.app import app
from chunker.config.settings import ChunkerSettings
from chunker.state.run import RunContext
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.llm.calllog import read_calls
from chunker.llm.registry import register_instance
from chunker.runs.rundir import RunDir
from chunker.state.slots import CallSlots
from chunker.testing.scripted import ScriptedChatModel, ScriptedTransientError
from conftest import CINDERELLA, RUST, assert_lossless, leaves, tree_bytes

SMALL = {"min_chunk_tokens": 60, "max_chunk_tokens": 300, "summary_count_threshold": 4}
DOCS = {  # a plain text (the `full` strategy) and a Markdown file, peeled by its headings
    "plain": (CINDERELLA, {"summary_count_threshold": 8}),  # sweeps of several groups
    # the section tree makes one block a sweep, but where a section holds more than
    # fanout_max children (intermediate blocks, written together under `source`)
    "peel": (RUST / "rust-book-ch03-02-data-types.md",
             {"strategy": "peel", "fanout_min": 2, "fanout_max": 3}),
}
_BACKGROUND = re.compile(r"^<background>\n(.*?)\n</background>$", re.DOTALL | re.MULTILINE)


def run(path: Path, context: str, n: int = 1, model: str = "scripted", out_dir: Path | None = None,
        **settings) -> tuple[dict, CallSlots]:
    """The tree of one in-process run at `max_concurrency` n (and n call slots), and the slots."""
    settings = ChunkerSettings(model=model, background_context=context, return_tree=True, **{**SMALL, **settings})
    ctx = RunContext.of(settings, out_dir=str(out_dir) if out_dir else None, slots=CallSlots(n))
    graph = build_graph(store=InMemoryStore(), llm_retry=llm_retry_policy(1, 0.0))
    out = graph.invoke({"path": str(path)}, context=ctx,
                       config={"recursion_limit": 10**9, "max_concurrency": n})
    return out["tree"], ctx.resources.slots


def timeless(tree: dict) -> dict:
    return {**tree, "meta": {k: v for k, v in tree["meta"].items() if k != "finished_at"}}


def backgrounds(calls: list[dict], task: str) -> list[str]:
    """The background block of each logged call of `task` ('' when it had none)."""
    out = []
    for call in calls:
        if call["task"] == task:
            found = _BACKGROUND.search(call["prompt"])
            out.append(found.group(1) if found else "")
    return out


def overlapping(calls: list[dict], task: str) -> bool:
    """Whether two logged calls of `task` were answered at the same time."""
    spans = sorted((c["ts"] - c["duration_ms"] / 1000, c["ts"]) for c in calls if c["task"] == task)
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize("doc", DOCS)
def test_source_builds_writtens_tree_and_the_same_one_at_concurrency_1_and_4(doc, tmp_path):
    path, settings = DOCS[doc]
    text = path.read_text(encoding="utf-8")
    written, _ = run(path, "written", **settings)
    slow = "scripted:delay_ms=20"  # long enough that tasks started together are in flight together
    one, one_slots = run(path, "source", 1, slow, **settings)
    four, four_slots = run(path, "source", 4, slow, tmp_path, **settings)
    assert_lossless(written, text)
    assert_lossless(four, text)
    assert timeless(four) == timeless(one)
    assert four["nodes"] == written["nodes"]  # the same leaves, and the same sweeps over them
    assert max(n["level"] for n in four["nodes"]) >= 3
    assert four["meta"]["stats"][f"strategy.{settings.get('strategy', 'full')}"] == 1
    assert one_slots.max_in_flight == 1 and four_slots.max_in_flight > 1
    calls = read_calls(tmp_path)
    # the leaves were written together, and so were the blocks of one sweep
    assert overlapping(calls, "rewrite_summarize") and overlapping(calls, "synthesize")
    assert not overlapping(calls, "completeness_candidates")  # each boundary call waits on the last
    assert not overlapping(calls, "group")


def test_a_completeness_call_under_source_sees_only_the_source_before_it(tmp_path):
    text = CINDERELLA.read_text(encoding="utf-8")
    run(CINDERELLA, "source", 2, out_dir=tmp_path / "source")
    shown = backgrounds(read_calls(tmp_path / "source"), "completeness_candidates")
    assert len(shown) > 10
    label = f"[{SOURCE_LABEL}]\n"
    assert shown[0] == "(this is the start of the document)"
    for background in shown[1:]:
        # one item, the predecessor's own words: no summary, rewrite or overview of anything
        assert background.startswith(label) and background.count("\n[") == 0, background[:200]
        assert background[len(label):] in text
    # what the same calls see under `written`: the summaries so far (model output)
    run(CINDERELLA, "written", out_dir=tmp_path / "written")
    written = backgrounds(read_calls(tmp_path / "written"), "completeness_candidates")
    assert any("[previous passage, summary]" in b for b in written)


def test_a_rewrite_under_source_sees_its_predecessors_original_and_a_summary_its_end(tmp_path):
    text = CINDERELLA.read_text(encoding="utf-8")
    # a profile that asks for the summary in a call of its own
    tree, _ = run(CINDERELLA, "source", 4, out_dir=tmp_path, combine_rewrite_and_summary=False)
    assert_lossless(tree, text)
    order = leaves(tree)
    by_original = {leaf["original"]: k for k, leaf in enumerate(order)}
    calls = read_calls(tmp_path)
    rewrites = [c for c in calls if c["task"] == "rewrite"]
    assert len(rewrites) == len(order)
    for call in rewrites:
        chunk = call["prompt"].split("<chunk>\n", 1)[1].rsplit("\n</chunk>", 1)[0]
        k = by_original[chunk]
        background = _BACKGROUND.search(call["prompt"]).group(1)
        if k:
            assert background == f"[{SOURCE_LABEL}]\n{order[k - 1]['original']}"
        else:
            assert background == "(this is the start of the document)"
    summaries = backgrounds(calls, "summarize")
    assert len(summaries) == len(order)
    start = "(this is the start of the document)"
    assert summaries.count(start) == 1  # the first leaf's
    for background in filter(lambda b: b != start, summaries):
        assert background.startswith(f"[{SOURCE_LABEL}]\n") and background.count("\n[") == 0
        assert background.removeprefix(f"[{SOURCE_LABEL}]\n") in text


def test_a_sweeps_later_block_sees_its_siblings_children_in_place_of_its_synthesis(tmp_path):
    path, settings = DOCS["plain"]
    tree, _ = run(path, "source", 4, out_dir=tmp_path, **settings)
    nodes = {n["id"]: n for n in tree["nodes"]}
    by_children = {tuple(n["children"]): n for n in tree["nodes"] if n["children"]}
    later = 0
    for call in read_calls(tmp_path):
        if call["task"] != "synthesize":
            continue
        children = tuple(re.findall(r"^\[passage ([^\]]+)\]$", call["prompt"], re.MULTILINE))
        block = by_children[children]
        found = _BACKGROUND.search(call["prompt"])
        shown = re.findall(r"^\[earlier passage\] (.*)$", found.group(1), re.MULTILINE) if found else []
        if not shown:
            continue  # the first block of its sweep: what `written` shows it
        later += 1
        level, index = block["level"], int(block["id"].split("-")[1])
        sibling = nodes[f"L{level}-{index - 1:05d}"]
        assert shown == [nodes[c]["summary"] for c in sibling["children"]]
        assert "[previous section, summary]" not in found.group(1)
    assert later >= 2


class FailsOnce(ScriptedChatModel):
    """The scripted model, but its `nth` call of `task` raises (a dropped connection)."""

    task: str = "Summary"
    nth: int = 6
    _seen: int = PrivateAttr(default=0)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if (kwargs.get("json_schema") or {}).get("title") == self.task:
            with self._lock:
                self._seen += 1
                seen = self._seen
            if seen == self.nth:
                raise ScriptedTransientError(f"{self.task} call {seen} dropped")
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_run_failed_in_the_leaves_fan_out_resumes_to_the_uninterrupted_tree(tmp_path):
    """A leaf's call fails beside others in flight (4 slots), the run stops (exit 1), and
    `chunker resume` finishes it: the tree is the uninterrupted run's, and at most the calls
    that were in flight are made again."""
    doc = tmp_path / "doc.txt"
    shutil.copy(CINDERELLA, doc)
    model = FailsOnce(task="RewriteWithSummary", nth=0, delay_ms=10)  # nth 0: never fails
    spec = f"scripted-fails-once-{tmp_path.name}"
    register_instance(spec, model)
    args = ["--model", spec, "--min-chunk-tokens", "60", "--max-chunk-tokens", "300",
            "--summary-count-threshold", "4", "--set", "background_context=source",
            "--set", "max_concurrency=4", "--set", "llm_max_attempts=1"]
    _cli("run", doc, "-o", tmp_path / "ref", *args)
    model.nth, model._seen = 6, 0  # now the 6th leaf's call fails
    failed = _cli("run", doc, "-o", tmp_path / "out", *args, code=1)
    assert "RewriteWithSummary call 6 dropped" in failed.output
    assert RunDir(tmp_path / "out").status() != "finished"
    _cli("resume", tmp_path / "out")
    assert tree_bytes(tmp_path / "out") == tree_bytes(tmp_path / "ref")
    ref_calls, calls = read_calls(tmp_path / "ref"), read_calls(tmp_path / "out")
    assert [c["task"] for c in calls if c["outcome"].startswith("error")] == ["rewrite_summarize"]
    repeated = len(calls) - len(ref_calls)
    assert 1 <= repeated <= 4, repeated  # the failed call, and at most the others in flight


def test_a_leaf_whose_summary_call_failed_keeps_its_rewrite_when_resumed(tmp_path):
    """The summary in a call of its own: the task whose summary call failed finds its rewrite
    in the store when the step is resumed, so every leaf is rewritten exactly once."""
    spec = f"scripted-fails-summary-{tmp_path.name}"
    register_instance(spec, FailsOnce(task="Summary", nth=6))
    settings = {"combine_rewrite_and_summary": False, **DOCS["plain"][1]}
    ref, _ = run(CINDERELLA, "source", 2, **settings)
    ctx = RunContext.of(ChunkerSettings(model=spec, background_context="source", return_tree=True,
                                        **{**SMALL, **settings}), out_dir=str(tmp_path), slots=CallSlots(2))
    graph = build_graph(InMemorySaver(), InMemoryStore(), llm_retry=llm_retry_policy(1, 0.0))
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10**9, "max_concurrency": 2}
    with pytest.raises(ScriptedTransientError):
        graph.invoke({"path": str(CINDERELLA)}, config, context=ctx)
    out = graph.invoke(None, config, context=ctx)  # resume from the last checkpoint
    assert out["tree"]["nodes"] == ref["nodes"]
    calls = read_calls(tmp_path)
    failed = [c for c in calls if c["outcome"].startswith("error")]
    assert [c["task"] for c in failed] == ["summarize"]
    rewritten = Counter(c["prompt"].split("<chunk>\n", 1)[1] for c in calls
                        if c["task"] == "rewrite" and c["outcome"] == "ok")
    assert sorted(rewritten.values()) == [1] * len(leaves(ref))  # none twice, the failed one's neither


def _edited(text: str) -> str:
    i = text.index(" ", len(text) // 2) + 1
    return text[:i] + "Zanzibarian" + text[text.index(" ", i):]


def test_an_update_of_a_source_tree_is_the_update_of_a_written_one(tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_text(CINDERELLA.read_text(encoding="utf-8"), encoding="utf-8")
    edited = tmp_path / "edited.txt"
    edited.write_text(_edited(doc.read_text(encoding="utf-8")), encoding="utf-8")
    changes = {"patch": [], "rebuild": ["--set", "max_group_size=4"]}  # the blocks' setting: regrouped
    trees: dict[tuple[str, str], dict] = {}
    for context in ("written", "source"):
        base = tmp_path / context
        _cli("run", doc, "-o", base, "--model", "scripted", "--min-chunk-tokens", "60",
             "--max-chunk-tokens", "300", "--summary-count-threshold", "4",
             "--set", f"background_context={context}", "--set", "max_concurrency=4")
        for name, change in changes.items():
            out = tmp_path / f"{context}-{name}"
            shutil.copytree(base, out)
            _cli("update", out, "--source", edited, *change)
            trees[context, name] = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    for name in changes:
        source = trees["source", name]
        assert_lossless(source, edited.read_text(encoding="utf-8"))
        assert source["nodes"] == trees["written", name]["nodes"], name
        update = source["meta"]["updates"][-1]
        assert update["reused"]["leaves"] > 0 and (update["redone"] or update["added"]), name
        assert any("Zanzibarian" in leaf["rewritten"] for leaf in leaves(source)), name
    assert source["meta"]["stats"].get("update.blocks.reused") is None  # the rebuild regrouped


def _cli(*args, env: dict[str, str] | None = None, code: int = 0) -> Result:
    """`chunker ARGS --quiet` in-process (no interpreter start per command)."""
    result = CliRunner().invoke(app, [*map(str, args), "--quiet"], env=env, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result
