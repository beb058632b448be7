"""The knowledge section of the settings, and terms proposed by a model (`model_tasks: terms`),
kept only when grounded. The trees are small texts run in-process with the scripted model;
the two runs that ask for terms share one module-scoped tree."""

from __future__ import annotations

import pytest

from chunker.config.settings import ChunkerSettings
from chunker.knowledge.passes import annotate
from chunker.knowledge.proposals import carried, ground
from chunker.llm.calllog import read_calls
from chunker.output.hierarchy import Hierarchy
from conftest import invoke, run_text, scripted

TREE_TASKS = ["boundary", "rewrite", "summary", "group", "synthesis"]
TEXT = ("# Parts\n\nA widget is a small reusable part of a machine. Widgets are everywhere.\n\n"
        "The Sprocket Engine powers the mill. The mill grinds the corn slowly every day.\n\n"
        "## More\n\nA widget is a small reusable part of a machine, said the catalogue again.\n")
PROPOSALS = [
    # grounded: the term occurs, the definition is the source's sentence (its spaces differ)
    {"term": "Sprocket Engine", "definition": "The Sprocket  Engine powers\nthe mill."},
    # invented: the term is nowhere in the text
    {"term": "flux capacitor", "definition": "The mill grinds the corn slowly every day."},
    # the term occurs, but its definition is the model's words, no span of the source
    {"term": "mill", "definition": "A mill is a building that grinds grain."},
]


def _run(tmp_path, model: str, **cfg) -> Hierarchy:
    out, _ = run_text(TEXT, model=model, out_dir=str(tmp_path), return_tree=True, structure="markdown", **cfg)
    return Hierarchy.model_validate(out["tree"])


@pytest.fixture(scope="module")
def proposed(tmp_path_factory) -> tuple[Hierarchy, str]:
    out = tmp_path_factory.mktemp("proposed")
    h = _run(out, scripted(terms=PROPOSALS), model_tasks=[*TREE_TASKS, "terms"])
    return h, str(out)


def test_a_grounded_proposal_is_kept_with_the_sources_span(proposed):
    h, _ = proposed
    term = next(t for t in h.terms if t.name == "Sprocket Engine")
    assert term.origin == "model" and [d.how for d in term.definitions] == ["model"]
    d = term.definition
    assert d.text == "The Sprocket Engine powers the mill."  # the source's words, not the model's
    assert TEXT[d.span[0]:d.span[1]] == d.text and TEXT[d.term_span[0]:d.term_span[1]] == "Sprocket Engine"
    widget = next(t for t in h.terms if t.name == "widget")
    assert widget.origin == "extractive"


def test_an_invented_term_and_a_definition_that_is_no_span_are_dropped(proposed):
    h, calls_dir = proposed
    names = {t.name.casefold() for t in h.terms}
    assert "flux capacitor" not in names and "mill" not in names
    assert not any("grinds grain" in d.text for t in h.terms for d in t.definitions)
    stats = h.meta.stats
    assert (stats["calls.propose_terms"], stats["proposed_terms.kept"], stats["proposed_terms.term-absent"],
            stats["proposed_terms.not-a-span"]) == (1, 1, 1, 1)
    [call] = [c for c in read_calls(calls_dir) if c["task"] == "propose_terms"]  # logged as every call
    assert call["grounding"] == ("terms: 'Sprocket Engine': kept, 'flux capacitor': term-absent, "
                                 "'mill': not-a-span")


def test_a_profile_without_the_task_makes_no_call(tmp_path):
    assert ChunkerSettings(model="local").llm.model_tasks == ()  # the embedded model: asked nothing
    assert ChunkerSettings(model="qwen3:8b").llm.asks("terms")
    assert not ChunkerSettings(model="scripted").llm.asks("terms")
    h = _run(tmp_path, scripted(terms=PROPOSALS))
    assert "calls.propose_terms" not in h.meta.stats
    assert all(c["task"] != "propose_terms" for c in read_calls(tmp_path)) and read_calls(tmp_path)
    assert "Sprocket Engine" not in {t.name for t in h.terms}


def test_grounding_reads_the_leaf_as_written():
    leaf = "Intro. The Borrow Checkers enforce   the rules.\nMore text."
    kept = ground(leaf, 100, "borrow checker", "The Borrow Checkers enforce the rules.", 600)
    assert kept.reason == "kept" and kept.candidate.how == "model"
    assert kept.candidate.term == "Borrow Checkers" and kept.candidate.term_span == (111, 126)
    assert leaf[kept.candidate.definition[0] - 100:kept.candidate.definition[1] - 100] == \
        "The Borrow Checkers enforce   the rules."
    assert ground(leaf, 0, "borrow", "the borrow checker enforces the rules.", 600).reason == "not-a-span"  # case
    assert ground(leaf, 0, "linter", "The Borrow Checkers enforce the rules.", 600).reason == "term-absent"
    assert ground(leaf, 0, "Intro", "Intro. The Borrow Checkers enforce the rules.", 20).reason == "too-long"


def test_a_corpus_carries_the_files_proposals_over(proposed):
    h, _ = proposed
    bare = h.model_copy(update={"terms": [], "edges": []})
    assert "Sprocket Engine" not in {t.name for t in annotate(bare).terms}
    again = annotate(bare, proposed=carried([(None, h)]))
    assert [t for t in again.terms if t.name == "Sprocket Engine"] == \
        [t for t in h.terms if t.name == "Sprocket Engine"]


def test_a_setting_of_the_knowledge_section_changes_the_passes(tmp_path):
    default = _run(tmp_path / "default", scripted())
    widget = next(t for t in default.terms if t.name == "widget")
    assert len(widget.definitions) == 2
    one = _run(tmp_path / "one", scripted(), **{"knowledge.max_definitions": 1})
    assert [len(t.definitions) for t in one.terms if t.name == "widget"] == [1]
    assert one.meta.config["term_max_definitions"] == 1  # recorded with the tree's settings
    off = _run(tmp_path / "off", scripted(), knowledge_enabled=False)
    assert off.terms == [] and off.edges == []
    assert not (tmp_path / "off" / "terms").exists() and (tmp_path / "default" / "terms").is_dir()


@pytest.mark.slow  # two CLI runs (as the corpus update's test in test_knowledge.py)
def test_a_document_update_redoes_the_terms_and_references_of_changed_nodes(tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\nA widget is a small reusable part. Sizes are in Table 1.\n\n"
                   "## Sizes\n\nTable 1: Sizes of parts\n\n| part | size |\n|---|---|\n| widget | 2 |\n",
                   encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", doc, "-o", out, "--model", "scripted", "--embeddings", "lexical", "-q", check=0)
    before = Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert "widget" in {t.name for t in before.terms}
    assert [e.text for e in before.edges if e.kind == "refers_to"] == ["Table 1"]
    doc.write_text("# Guide\n\nA gadget is a clever device. Sizes are in Table 1.\n\n"
                   "## Sizes\n\nThe sizes of parts:\n\n| part | size |\n|---|---|\n| gadget | 2 |\n",
                   encoding="utf-8")
    invoke("update", out, "--model", "scripted", "-q", check=0)
    after = Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert after.meta.updates, "an update, not a fresh run"
    names = {t.name for t in after.terms}
    assert "gadget" in names and "widget" not in names
    assert not [e for e in after.edges if e.kind == "refers_to"]
    assert [(u.text, u.reason) for u in after.unresolved if u.ref == "table"] == [("Table 1", "no table 1 in the tree")]
    assert {p.stem for p in (out / "terms").glob("*.md")} == {t.id for t in after.terms}


@pytest.mark.slow  # two CLI runs
def test_an_update_asks_for_the_terms_of_changed_leaves_only(tmp_path):
    filler = " ".join(f"Line {i} tells of the mill and its slow work in the valley." for i in range(12))
    doc = tmp_path / "parts.md"
    doc.write_text(f"# Parts\n\nGearboxes are sturdy boxes of gears. {filler}\n\n"
                   f"## Wheels\n\nSprockets are toothed wheels. {filler}\n", encoding="utf-8")
    out = tmp_path / "out"
    asked = ["--set", 'model_tasks=["boundary","rewrite","summary","group","synthesis","terms"]',
             "--set", "min_chunk_tokens=50"]  # a leaf per section
    invoke("run", doc, "-o", out, "--model", "scripted", "--embeddings", "lexical", "-q", *asked, check=0)
    before = Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert {t.name: t.origin for t in before.terms} == {"Gearboxes": "model", "Sprockets": "model"}
    assert len(before.leaves()) == 2
    doc.write_text(doc.read_text(encoding="utf-8").replace("Sprockets are toothed", "Pulleys are grooved"),
                   encoding="utf-8")
    invoke("update", out, "--model", "scripted", "-q", check=0)
    after = Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert {t.name: t.origin for t in after.terms} == {"Gearboxes": "model", "Pulleys": "model"}
    gearboxes = next(t for t in after.terms if t.name == "Gearboxes").definition
    assert doc.read_text(encoding="utf-8")[gearboxes.span[0]:gearboxes.span[1]] == gearboxes.text
    last = [c for c in read_calls(out) if c["task"] == "propose_terms"][-1]
    assert "Pulleys" in last["prompt"] and "Gearboxes" not in last["prompt"]  # the unchanged leaf: not asked
