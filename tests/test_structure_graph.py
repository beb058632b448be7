"""Structure first (issue 13): Markdown headings bound leaves and blocks, atomic units stay
whole, front matter is metadata, the strategy adapts to the document."""

from __future__ import annotations

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from chunker.config.settings import ChunkerSettings
from chunker.state.run import RunContext
from chunker.document.structure import parse_structure, table_row_cuts
from chunker.document.tokens import count_tokens
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.llm.errors import is_transient
from chunker.chunking.outline import outline_of
from chunker.chunking.sections import fan_groups
from chunker.chunking.strategy import choose_strategy, flat_limit
from conftest import CINDERELLA, FIXTURES, assert_lossless, leaves, run_text, scripted

SMALL = {"min_chunk_tokens": 20, "max_chunk_tokens": 80, "summary_count_threshold": 3,
         "background_budget_tokens": 30}


def para(topic: str, n: int) -> str:
    return " ".join(f"The {topic} note number {i} tells one more plain fact." for i in range(n))


def run_md(text: str, **cfg):
    cfg = {**SMALL, "structure": "markdown", "strategy": "peel", **cfg}
    out, store = run_text(text, **cfg)
    assert_lossless(out["tree"], text)
    return out["tree"]


def leaf_starts(tree: dict) -> set[int]:
    return {leaf["span"][0] for leaf in leaves(tree)}


def leaf_ends(tree: dict) -> set[int]:
    return {leaf["span"][1] for leaf in leaves(tree)}


def test_headings_of_every_level_and_style_start_leaves():
    text = (FIXTURES / "structure_all.md").read_text(encoding="utf-8")
    structure = parse_structure(text)
    assert {h.level for h in structure.headings} == {1, 2, 3, 4, 5, 6}
    assert {h.style for h in structure.headings} == {"atx", "setext"}
    tree = run_md(text)
    # every heading starts a leaf, but one without text of its own, which folds into its
    # first subsection (issue 21): it starts the leaf that runs on into the subsection
    folded = outline_of(structure, text).folded
    kept = [s for s in structure.sections if s.heading is not None and s.index not in folded
            and s.index - 1 not in folded]
    assert folded and {s.start for s in kept} <= leaf_starts(tree)
    assert not {structure.sections[i + 1].start for i in folded} & leaf_starts(tree)
    for unit in structure.atomic_units:  # code, tables, math, figures: never cut inside
        assert not any(unit.start < end < unit.end for end in leaf_ends(tree)), unit
    by_start = {leaf["span"][0]: leaf for leaf in leaves(tree)}
    for section in kept:  # the leaf at a heading carries its heading path
        assert by_start[section.start]["header_path"] == section.header_path
    assert {leaf["content"] for leaf in leaves(tree)} <= {"prose", "table", "code", "math", "figure", "mixed"}


def test_a_heading_inside_a_code_fence_is_not_a_heading():
    text = ("# Guide\n\n" + para("intro", 6) + "\n\n```sh\n## not a heading\necho one\n"
            + "\n".join(f"echo line {i}" for i in range(30)) + "\n```\n\n" + para("outro", 6) + "\n")
    fake = text.index("## not a heading")
    tree = run_md(text)
    assert fake not in leaf_starts(tree)
    fence_start, fence_end = text.index("```sh"), text.index("```\n\n") + 4
    assert not any(fence_start < end < fence_end for end in leaf_ends(tree))
    assert all(leaf["header_path"] == ["Guide"] for leaf in leaves(tree))


def test_a_document_that_starts_without_a_heading():
    text = para("preamble", 8) + "\n\n## First\n\n" + para("first", 8) + "\n\n## Second\n\n" + para("second", 3) + "\n"
    tree = run_md(text)
    first = leaves(tree)[0]
    assert first["span"][0] == 0 and first["header_path"] == [] and first["content"] == "prose"
    assert {text.index("## First"), text.index("## Second")} <= leaf_starts(tree)
    # a small section is one leaf on its own, ended without a completeness call
    last = leaves(tree)[-1]
    assert last["span"] == [text.index("## Second"), len(text)] and last["boundary"] == "section"


def test_empty_sections_are_leaves_of_their_own():
    text = "# Book\n## Empty one\n## Empty two\n### Full\n\n" + para("full", 10) + "\n"
    tree = run_md(text)
    # an empty heading with a subsection folds into it (issue 21): "# Book" into "## Empty
    # one", "## Empty two" into "### Full"; "## Empty one" has no subsection, stays a leaf
    starts = leaf_starts(tree)
    assert {0, text.index("## Empty two")} <= starts
    assert not {text.index("## Empty one"), text.index("### Full")} & starts
    empty = next(leaf for leaf in leaves(tree) if leaf["span"][0] == 0)
    assert empty["original"] == "# Book\n## Empty one\n"
    assert empty["header_path"] == ["Book", "Empty one"]
    full = next(leaf for leaf in leaves(tree) if leaf["span"][0] == text.index("## Empty two"))
    assert full["header_path"] == ["Book", "Empty two", "Full"]


def big_table(rows: int) -> str:
    head = "| Name | Value | Note |\n| ---- | ----: | ---- |\n"
    return head + "".join(f"| item{i} | {i * 7} | row note {i} here |\n" for i in range(rows))


def test_a_table_larger_than_max_chunk_tokens_splits_between_rows_with_its_header_repeated():
    table = big_table(60)
    text = "# Data\n\nThe table below lists the items.\n\n" + table + "\n" + para("after", 5) + "\n"
    start = text.index("| Name")
    span = (start, start + len(table))
    assert count_tokens(table) > SMALL["max_chunk_tokens"]
    rows = set(table_row_cuts(span, text))
    tree = run_md(text)
    inside = [leaf for leaf in leaves(tree) if span[0] < leaf["span"][0] < span[1]]
    assert len(inside) >= 2  # the table is split ...
    header = table[:table.index("| item0")]
    for leaf in inside:
        assert leaf["span"][0] in rows  # ... between rows only
        assert leaf["rewritten"].startswith(header)  # with its header in the rewritten text
        assert not leaf["original"].startswith("| Name")  # while the original stays exact
    assert all(leaf["content"] == "table" for leaf in inside[:-1])
    assert inside[-1]["content"] in ("table", "mixed")  # the last part may run on into prose
    assert span[0] in leaf_starts(tree)  # the table is not cut from its intro at a row


def test_front_matter_becomes_metadata_and_is_never_split():
    front = "---\ntitle: A Tale\nauthors:\n" + "".join(f"  - Author {i}\n" for i in range(40)) + "---\n"
    text = front + "# Start\n\n" + para("tale", 8) + "\n"
    out, _ = run_text(text, **{**SMALL, "structure": "markdown", "strategy": "peel"})
    tree = out["tree"]
    assert_lossless(tree, text)
    assert tree["meta"]["front_matter"]["title"] == "A Tale"
    assert len(tree["meta"]["front_matter"]["authors"]) == 40
    assert count_tokens(front) > SMALL["max_chunk_tokens"]
    assert not any(0 < end < len(front) for end in leaf_ends(tree))


def test_plain_text_takes_the_path_it_always_took():
    text = CINDERELLA.read_text(encoding="utf-8")
    trees = [run_text(text, model="scripted", structure=mode)[0]["tree"] for mode in ("none", "auto")]
    assert trees[1]["meta"]["stats"]["strategy.full"] == 1
    assert json.dumps(trees[0]["nodes"]) == json.dumps(trees[1]["nodes"])
    assert trees[0]["meta"]["stats"] == trees[1]["meta"]["stats"]
    assert "front_matter" not in trees[1]["meta"] and "content" not in trees[1]["nodes"][0]


def test_the_adaptive_rule_at_its_thresholds():
    cfg = ChunkerSettings(model="scripted")
    limit = flat_limit(cfg)
    assert limit == int(cfg.chunking.flat_window_share * cfg.llm.model_window)
    at, over = "alpha" + " alpha" * (limit - 1), "alpha" + " alpha" * limit  # one token each
    assert count_tokens(at) == limit and count_tokens(over) == limit + 1
    assert choose_strategy(cfg, at, structured=True) == "flat"
    assert choose_strategy(cfg, over, structured=True) == "peel"
    # headings: the section tree (peel) at any length (issue 21)
    assert choose_strategy(cfg, at, structured=True, headings=True) == "peel"
    assert choose_strategy(cfg, at, structured=False) == "full"
    assert choose_strategy(cfg, over, structured=False) == "full"
    for forced in ("flat", "peel", "full"):
        assert choose_strategy(ChunkerSettings(model="scripted", strategy=forced), over,
                               structured=False) == forced


def test_flat_builds_one_block_over_all_leaves():
    text = "".join(f"## Part {i}\n\n{para(f'part{i}', 5)}\n\n" for i in range(7))
    out, _ = run_text(text, **{**SMALL, "structure": "markdown", "strategy": "flat"})
    tree = out["tree"]
    assert out["stats"]["strategy.flat"] == 1 and "calls.group" not in out["stats"]
    root = next(n for n in tree["nodes"] if n["id"] == tree["root"])
    assert root["level"] == 1 and len(root["children"]) == len(leaves(tree)) >= 7


def sectioned(chapters: int = 4, paras: int = 5, title: str = "") -> str:
    return title + "".join(
        f"## Chapter {c}\n\n" + "\n\n".join(para(f"c{c}p{p}", 3) for p in range(paras)) + "\n\n"
        for c in range(chapters))


@pytest.mark.parametrize("title", ["", "# Book\n\n"])  # a title section too small for a group
def test_blocks_never_mix_parts_of_different_sections(title):
    text = sectioned(title=title)
    tree = run_md(text, strategy="peel")
    structure = parse_structure(text)
    levels = {h.start: h.level for h in structure.headings}
    ends = {s.start: s.subtree_end for s in structure.sections}
    for block in (n for n in tree["nodes"] if n["level"] > 0):
        start, end = block["span"]
        crossed = [lvl for pos, lvl in levels.items() if start < pos < end]
        if crossed:  # a block spanning a heading holds whole sections
            assert start in levels and levels[start] <= min(crossed), block["id"]
            assert end == len(text) or (end in levels and levels[end] <= min(crossed)), block["id"]
    # chapters start where their node does: Chapter 0 at 0 when "# Book" folds into it (issue 21)
    chapters = [start for (start, _), t in outline_of(structure, text).titles.items() if t.startswith("Chapter")]
    assert len(chapters) == 4 and (not title or 0 in chapters)
    block_starts = {n["span"][0] for n in tree["nodes"] if n["level"] > 0}
    assert set(chapters) <= leaf_starts(tree) and set(chapters) <= block_starts
    titled = [n for n in tree["nodes"] if n.get("title")]
    assert titled and all(n["title"].startswith(("Chapter", "Book")) for n in titled)
    assert "group.cross_section" not in tree["meta"]["stats"]


def test_section_fan_groups():
    agg = ChunkerSettings(model="scripted").aggregation  # fanout 4-12
    assert fan_groups(12, [], agg) == [list(range(12))]  # fits: the section's node at once
    sizes = lambda groups: [len(g) for g in groups]
    assert sizes(fan_groups(13, [], agg)) == [4, 4, 5]  # 3 groups of 4+, not 2 of 6-7
    assert sizes(fan_groups(55, [], agg)) == [7, 8, 8, 8, 8, 8, 8]  # ~sqrt(55) groups
    assert all(4 <= n <= 12 for n in sizes(fan_groups(200, [], agg)))
    dips = [0.0] * 12
    dips[4] = 1.0  # the deepest dip, after item 4, is where the groups part
    assert fan_groups(13, dips, agg)[0] == list(range(5))


def test_resume_in_the_middle_of_a_section_equals_an_uninterrupted_run():
    text = sectioned(chapters=2, paras=8)
    cfg = {**SMALL, "structure": "markdown", "strategy": "peel"}
    reference = run_text(text, model=scripted(), **cfg)[0]["tree"]
    store = InMemoryStore()
    graph = build_graph(InMemorySaver(), store, llm_retry=llm_retry_policy(1, 0.0))
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10**6}
    ctx = RunContext.of(ChunkerSettings(model=scripted(fail_calls={4}), **cfg))
    with pytest.raises(Exception) as failure:
        graph.invoke({"text": text}, config, context=ctx)
    assert is_transient(failure.value)
    # where the run stopped: in the state of the subgraphs it was in (the pipeline, its step)
    snapshot = graph.get_state(config, subgraphs=True)
    while snapshot.tasks and snapshot.tasks[0].state is not None:
        snapshot = snapshot.tasks[0].state
    cursor = snapshot.values["cursor"]
    structure = parse_structure(text)
    assert cursor not in {s.start for s in structure.sections}  # mid-section
    out = graph.invoke(None, config, context=ctx)
    assert [(n["id"], n["span"], n["rewritten"], n.get("title")) for n in out["tree"]["nodes"]] == \
        [(n["id"], n["span"], n["rewritten"], n.get("title")) for n in reference["nodes"]]


def test_auto_reads_markdown_by_the_file_name_only():
    from chunker.chunking.peel import markdown_structure

    text = "# Title\n\n    indented, not code in a .txt\n"
    auto = ChunkerSettings(model="scripted").chunking
    forced = ChunkerSettings(model="scripted", structure="markdown").chunking
    assert markdown_structure(auto, "notes.md", text).headings[0].title == "Title"
    assert markdown_structure(auto, "NOTES.Markdown", text) is not None
    assert markdown_structure(auto, "notes.txt", text) is None
    assert markdown_structure(auto, None, text) is None  # text passed directly: plain
    assert markdown_structure(forced, None, text) is not None
    assert markdown_structure(ChunkerSettings(model="scripted", structure="none").chunking, "a.md", text) is None
