"""A tree shaped for choosing (issue 21): each heading's section is a node titled by its
heading, blocks group only within a section and aim for fanout_min..fanout_max children, an
empty heading folds into its first subsection; leaves stay lossless."""

from __future__ import annotations

import json
from pathlib import Path

from langgraph.store.memory import InMemoryStore

from chunker.config.settings import ChunkerSettings
from chunker.state.run import RunContext
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.output.hierarchy import Hierarchy, check_tree
from conftest import check_markdown_tree, scripted

SMALL = {"min_chunk_tokens": 20, "max_chunk_tokens": 60, "background_budget_tokens": 30}


def para(topic: str, n: int) -> str:
    return "\n\n".join(f"The {topic} note number {i} tells one more plain fact about {topic}."
                       for i in range(n))


def build(tmp_path: Path, text: str, name: str = "doc.md", **cfg) -> dict:
    """Build `text` from a real file through the whole graph; the checked hierarchy.json."""
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    graph = build_graph(store=InMemoryStore(), llm_retry=llm_retry_policy(1, 0.0))
    ctx = RunContext.of(ChunkerSettings(model=scripted(), **{**SMALL, **cfg}), out_dir=str(out))
    graph.invoke({"path": str(src)}, context=ctx, config={"recursion_limit": 10**9})
    data = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    check_tree(Hierarchy.model_validate(data))
    check_markdown_tree(out)
    nodes = {n["id"]: n for n in data["nodes"]}
    leaves = [n for n in data["nodes"] if not n["children"]]
    assert "".join(n["original"] for n in sorted(leaves, key=lambda n: n["span"][0])) == text
    for n in nodes.values():  # a block's level is one above its highest child
        if n["children"]:
            assert n["level"] == 1 + max(nodes[c]["level"] for c in n["children"]), n["id"]
    return data


def by_title(data: dict) -> dict[str, dict]:
    return {n["title"]: n for n in data["nodes"] if n.get("title")}


def book(chapters: int, notes: int, byline: str = "by A. Writer\n\n") -> str:
    return "# Book\n\n" + byline + "".join(
        f"## Chapter {c}\n\n{para(f'topic{c}', notes)}\n\n" for c in range(chapters))


def test_each_section_is_a_node_titled_by_its_heading(tmp_path):
    text = book(6, 6) + "## Appendix\n\n### Tables\n\n" + para("tables", 5) + "\n\n### Notes\n\n" + para("notes", 5) + "\n"
    data = build(tmp_path, text)
    titled = by_title(data)
    assert {f"Chapter {c}" for c in range(6)} | {"Book", "Appendix", "Tables", "Notes"} <= set(titled)
    assert titled["Book"]["id"] == data["root"]
    nodes = {n["id"]: n for n in data["nodes"]}
    appendix = titled["Appendix"]
    assert [nodes[c]["title"] for c in appendix["children"]] == ["Tables", "Notes"]
    for c in range(1, 6):  # a chapter's node spans its section exactly
        chapter = titled[f"Chapter {c}"]
        start = text.index(f"## Chapter {c}\n")
        assert chapter["span"][0] == start and text[chapter["span"][1]:].startswith("## ")


def test_an_empty_heading_folds_into_its_first_subsection(tmp_path):
    text = book(3, 6)
    data = build(tmp_path, text)
    first = min((n for n in data["nodes"] if not n["children"]), key=lambda n: n["span"][0])
    # no five-token leaf of "# Book / by A. Writer": the first leaf runs on into Chapter 0
    assert first["original"].startswith("# Book\n\nby A. Writer\n\n## Chapter 0\n\nThe topic0 note")
    assert first["header_path"] == ["Book", "Chapter 0"]
    chapter0 = by_title(data)["Chapter 0"]
    assert chapter0["span"][0] == 0  # the folded heading's text lives in its first leaf
    root = {n["id"]: n for n in data["nodes"]}[data["root"]]
    assert len(root["children"]) == 3


def test_a_heading_with_text_of_its_own_keeps_it(tmp_path):
    text = book(3, 4, byline=para("introduction", 3) + "\n\n")
    data = build(tmp_path, text)
    first = min((n for n in data["nodes"] if not n["children"]), key=lambda n: n["span"][0])
    assert "## Chapter 0" not in first["original"] and first["header_path"] == ["Book"]


def test_blocks_stay_within_a_section_and_aim_for_the_fanout_range(tmp_path):
    text = book(20, 3) + "## Long\n\n" + para("long", 40) + "\n"
    data = build(tmp_path, text, fanout_min=4, fanout_max=8)
    nodes = {n["id"]: n for n in data["nodes"]}
    titled = by_title(data)
    for n in nodes.values():
        if n["children"]:
            assert len(n["children"]) <= 8, (n["id"], len(n["children"]))
        if n["children"] and not n.get("title"):  # an intermediate block: 4-8 of one section's
            assert 4 <= len(n["children"]) <= 8, (n["id"], len(n["children"]))
            section = nodes[n["parent"]]
            while not section.get("title"):
                section = nodes[section["parent"]]
            path = section["header_path"]
            for c in (nodes[c] for c in n["children"]):  # whole subsections, or its own parts
                assert (c["header_path"][:-1] if c.get("title") else c["header_path"]) == path, c["id"]
    root = nodes[data["root"]]
    assert root["title"] == "Book" and 3 <= len(root["children"]) <= 8
    for kid in root["children"]:  # the 21 chapters, grouped: every group holds whole chapters
        for c in nodes[kid]["children"]:
            assert nodes[c].get("title", "").startswith(("Chapter", "Long")), nodes[c]
    long = titled["Long"]
    assert long["span"] == [text.index("## Long"), len(text)] and len(long["children"]) >= 2


def test_source_context_replays_the_same_shape(tmp_path):
    text = book(8, 4)
    shape = lambda d: sorted((n["span"][0], n["span"][1], n["level"], n.get("title")) for n in d["nodes"])
    written = build(tmp_path / "w", text) if (tmp_path / "w").mkdir() is None else None
    source = build(tmp_path / "s", text, background_context="source") if (tmp_path / "s").mkdir() is None else None
    assert shape(written) == shape(source)


def test_a_document_without_headings_still_builds(tmp_path):
    text = para("plain", 60) + "\n"
    data = build(tmp_path, text)
    assert not any(n.get("title") for n in data["nodes"])
    peel = build(tmp_path / "p", text, strategy="peel", fanout_min=4, fanout_max=8) \
        if (tmp_path / "p").mkdir() is None else None
    assert all(len(n["children"]) <= 8 for n in peel["nodes"])
