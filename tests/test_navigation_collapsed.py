"""Collapsed search, then the tree (the default navigator): every unit ranked at once, pieces
read within a hard budget, passages back in document order with where they sit; contextual
indexing (a heading's words find its section's passages); zooming out to a section's summary;
a model starting from the best branches; `chunker ask` printing the passages."""

from __future__ import annotations

import json

import pytest

from chunker.graph.navigator_ask import ask
from chunker.navigation import NavigatorSettings, open_tree
from chunker.navigation.collapsed import collapsed_read, ranked_branches, unit_index
from chunker.navigation.pieces import piece_spans, windows
from conftest import invoke
from test_navigation_trees import build_tree, copy_tree

BM25 = NavigatorSettings(embeddings="bm25")

SECTIONS = {
    "Lighthouse keeping": "The keeper climbs the tower at dusk. He trims the wick and polishes the "
                          "great lens until it shines. Ships rely on the beam through the night. ",
    "Orchard grafting": "A scion is cut in early spring. It is bound to the rootstock with raffia "
                        "and sealed with wax. Within weeks the buds swell and leaves appear. ",
    "Harbour tides": "Twice a day the water rises and falls. The harbour master posts the times "
                     "on a board by the quay. Fishing boats leave on the ebb. ",
}


def _markdown(repeat: int = 6) -> str:
    parts = ["# Coastal handbook\n\n"]
    for title, text in SECTIONS.items():
        parts.append(f"## {title}\n\n")
        parts.extend(text + "\n\n" for _ in range(repeat))
    return "".join(parts)


@pytest.fixture(scope="module")
def cinderella(tmp_path_factory, cinderella_tree):
    return copy_tree(cinderella_tree, tmp_path_factory.mktemp("collapsed"))


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    base = tmp_path_factory.mktemp("handbook")
    doc = base / "handbook.md"
    doc.write_text(_markdown(), encoding="utf-8")
    return build_tree(base / "out", doc, "--embeddings", "lexical", "--min-chunk-tokens", "60",
                      "--max-chunk-tokens", "160")


@pytest.mark.parametrize("budget", [60, 150, 400, 1500])
def test_the_budget_bounds_everything_read_and_passages_are_exact_source(cinderella, budget):
    tree = open_tree(cinderella)
    source = "".join(tree.node(i).original for i in tree.leaf_ids())
    reading = collapsed_read(tree, "Who lost a golden slipper on the stairs?",
                             NavigatorSettings(embeddings="bm25", budget_tokens=budget))
    assert reading.tokens <= budget
    assert reading.tokens == sum(p.tokens for p in reading.passages)
    for p in reading.passages:
        assert p.path == tree.ancestors(p.id) and p.path[0] == tree.root_id
        if p.kind != "summary":  # what was read is the source, character for character
            assert source[p.span[0]:p.span[1]] == p.text
    if budget >= 400:
        assert reading.passages
    starts = [tree.reading_order()[p.id] for p in reading.passages]
    assert starts == sorted(starts)  # document order, not rank order


def test_a_small_budget_reads_the_piece_that_holds_a_quote(cinderella):
    tree = open_tree(cinderella)
    leaf = max(tree.leaf_ids(), key=lambda i: tree.node(i).token_count)
    original = tree.node(leaf).original
    halves = piece_spans(original, BM25.piece_tokens // 2)
    assert len(halves) >= 3, "the test needs a leaf of several pieces"
    middle = original[halves[1][0]:halves[1][1]]
    quote = " ".join(middle.split()[2:14])
    reading = collapsed_read(tree, f'Where does it say "{quote}"?',
                             NavigatorSettings(embeddings="bm25", budget_tokens=220, zoom_hits=0))
    hit = [p for p in reading.passages if " ".join(quote.split()) in " ".join(p.text.split())]
    assert hit and hit[0].id == leaf and hit[0].kind == "piece"
    assert len(hit[0].text) < len(original)


def test_consecutive_leaves_read_together_are_one_passage_under_one_header(cinderella):
    tree = open_tree(cinderella)
    first, second = tree.leaf_ids()[2:4]
    a, b = tree.node(first), tree.node(second)
    assert a.span[1] == b.span[0]
    question = " ".join(a.original.split()[-12:] + b.original.split()[:12])  # across the seam
    reading = collapsed_read(tree, question, NavigatorSettings(embeddings="bm25", budget_tokens=4000,
                                                               zoom_hits=0, leaf_share=1.0))
    joined = [p for p in reading.passages if first in p.ids and second in p.ids]
    assert joined, "both leaves were read, as one passage"
    p = joined[0]
    assert p.ids.index(second) == p.ids.index(first) + 1 and p.text.count("\n[") == 0
    assert a.original + b.original in p.text and p.span[0] <= a.span[0] and p.span[1] >= b.span[1]


def test_windows_overlap_so_a_quote_across_a_cut_is_whole_in_one():
    halves = [(0, 10), (10, 20), (20, 30), (30, 35)]
    assert windows(halves) == [(0, 1), (1, 2), (2, 3)]
    assert windows(halves[:2]) == [(0, 1)]
    text = "One sentence here. " * 200
    spans = piece_spans(text, 50)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # they tile the text
    assert all(text[b - 1] == " " for _, b in spans[:-1])  # cut after a sentence


def test_a_heading_word_finds_its_section_only_with_the_path_field(handbook):
    tree = open_tree(handbook)
    question = "What does the orchard section say?"  # "orchard" is only in a heading
    with_path = collapsed_read(tree, question, NavigatorSettings(embeddings="bm25", budget_tokens=120,
                                                                 zoom_hits=0))
    assert with_path.passages and all("Orchard grafting" in p.where for p in with_path.passages)
    def matching(cfg: NavigatorSettings) -> set[str]:  # leaves with a piece that holds "orchard"
        index = unit_index(tree, cfg)
        scores = index.bm25.scores("orchard")
        return {u.node for u in index.units if u.kind == "piece" and scores.get(u.id, 0) > 0}

    section = {i for i in tree.leaf_ids() if "Orchard grafting" in (tree.node(i).header_path or [])}
    assert len(section) >= 2, "the test needs a section of several leaves"
    assert matching(NavigatorSettings(embeddings="bm25")) == section
    bare = matching(NavigatorSettings(embeddings="bm25", context_fields=("summary", "rewritten")))
    assert bare < section, "without the heading path only the leaf holding the heading matches"


def test_zooming_out_reads_the_section_summary_first(cinderella):
    tree = open_tree(cinderella)
    block = next(n for n in tree.hierarchy.in_order()
                 if n.level == 1 and len(n.children) >= 2 and n.parent is not None)
    first, second = (tree.node(c).original for c in block.children[:2])
    question = " ".join(first.split()[3:15] + second.split()[3:15])  # words of two of its leaves
    cfg = NavigatorSettings(embeddings="bm25", budget_tokens=3000, zoom_hits=2, zoom_window=4)
    reading = collapsed_read(tree, question, cfg)
    summaries = [p for p in reading.passages if p.kind == "summary"]
    assert block.id in [p.id for p in summaries], "two of its leaves matched: its summary is read"
    at = [p.id for p in reading.passages].index(block.id)
    inside = [p for p in reading.passages[at + 1:] if block.id in p.path]
    assert inside, "the summary comes before the passages it holds"
    assert reading.passages[at].text == " ".join(block.summary.split())
    off = collapsed_read(tree, question, NavigatorSettings(embeddings="bm25", budget_tokens=3000,
                                                           zoom_hits=0))
    assert not [p for p in off.passages if p.kind == "summary"]


def test_ask_collapsed_without_a_model_reads_and_a_model_starts_from_the_best_branches(cinderella):
    tree = open_tree(cinderella)
    question = "Who lost a golden slipper on the stairs?"
    plain = ask(str(cinderella), question, NavigatorSettings(embeddings="bm25", budget_tokens=800))
    assert plain.status == "read" and plain.llm_calls == 0 and 0 < plain.tokens_read <= 800
    assert plain.leaves == list(dict.fromkeys(i for p in plain.passages for i in p["ids"]))
    cfg = NavigatorSettings(model="scripted", embeddings="bm25", budget_tokens=5000, max_leaves=3)
    walked = ask(str(cinderella), question, cfg)
    branches = [b for b, _ in ranked_branches(tree, question, cfg)]
    assert walked.llm_calls >= 2 and walked.path[0] == tree.root_id
    assert walked.path[1] in branches, "the model chose among the collapsed search's branches"
    assert walked.leaves and all(p["kind"] == "leaf" for p in walked.passages)
    assert walked.tokens_read <= 5000
    descend = ask(str(cinderella), question, NavigatorSettings(mode="descend", embeddings="bm25",
                                                               budget_tokens=5000))
    assert descend.path[1] in tree.node(tree.root_id).children


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="unknown context field"):
        NavigatorSettings(context_fields=("title", "colour"))
    with pytest.raises(ValueError, match="mode"):
        NavigatorSettings(mode="sideways")  # type: ignore[arg-type]
    assert NavigatorSettings(context_fields=("rewritten", "title")).context_fields == ("title", "rewritten")


def test_chunker_ask_prints_the_passages_in_document_order(cinderella):
    proc = invoke("ask", cinderella, "Who lost a golden slipper on the stairs?", "--embeddings-only",
                  "--embeddings", "bm25", "--budget", "500", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "tokens read | read" in proc.stdout and "[L0-" in proc.stdout
    proc = invoke("ask", cinderella, "Who lost a golden slipper?", "--embeddings-only",
                  "--embeddings", "bm25", "--json", "--quiet")
    record = json.loads(proc.stdout)
    assert record["status"] == "read" and record["passages"][0]["where"]
    bad = invoke("ask", cinderella, "Who?", "--mode", "sideways", "--embeddings-only", check=2)
    assert "mode must be collapsed or descend" in bad.stderr
