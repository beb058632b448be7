"""`chunker eval navigation` on a real small tree (Cinderella, scripted model, lexical
embeddings): every method at every budget stays within it, the flat reading rule, the span
success rule, bad question files refused in one line, the report and its plot, and the old
must_contain question files through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunker.document.tokens import count_tokens
from chunker.evaluation.navigation import NAVIGATOR, evaluate_navigation
from chunker.evaluation.navigation_flat import FlatUnit, read_within
from chunker.evaluation.navigation_questions import (SPAN_SHARE, Judge, Question, Read, Span,
                                                     file_texts, load_questions, parse_line)
from chunker.evaluation.navigation_report import success_vs_budget, write_navigation
from chunker.navigation import NavigatorSettings, open_tree
from conftest import invoke
from test_navigation_trees import copy_tree

LEXICAL = NavigatorSettings(embeddings="lexical")
SOURCE = "cinderella.txt"


@pytest.fixture(scope="module")
def run(tmp_path_factory, cinderella_tree):
    return copy_tree(cinderella_tree, tmp_path_factory.mktemp("evalnav"))


@pytest.fixture(scope="module")
def tree(run):
    return open_tree(run)


def _write(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
                    encoding="utf-8")
    return path


def _leaf(tree, n: int):
    return tree.hierarchy.leaves()[n]


@pytest.fixture(scope="module")
def result(run, tree, tmp_path_factory):
    """Every method (with the ablation) at small budgets on three questions of both kinds."""
    leaf = _leaf(tree, 4)
    qs = _write(tmp_path_factory.mktemp("q") / "q.jsonl", [
        {"question": "Who lost a golden slipper on the stairs?", "must_contain": "slipper"},
        {"question": "What did the father bring back for cinderella?",
         "spans": [{"start": leaf.span[0], "end": leaf.span[0] + 120}]},
        {"question": "Why did they call her cinderella?", "start": 1513, "end": 1700,
         "file": SOURCE}])
    return evaluate_navigation(run, load_questions(qs), settings=LEXICAL, budgets=(60, 150, 400, 1500),
                               ablation=True, questions_path=qs)


def test_every_method_runs_at_every_budget_and_never_reads_more(result):
    flat = {f"{r}-{u}" for r in ("bm25", "embeddings", "fusion")
            for u in ("leaves", "fixed200", "fixed400", "contextual")}
    assert set(result.methods("flat")) == flat
    assert result.methods("navigator") == [NAVIGATOR, "navigator-descend"]
    assert {"ablation-all", "ablation-none", "ablation-no-title", "ablation-no-rewritten"} <= set(
        result.methods("ablation"))
    for name, by_budget in result.outcomes.items():
        assert sorted(by_budget) == [60, 150, 400, 1500]
        for budget, rows in by_budget.items():
            assert len(rows) == 3
            for o in rows:
                assert o.tokens_read <= budget, (name, budget, o.tokens_read)
                if result.groups[name] == "flat":
                    assert o.tokens_read == sum(r["tokens"] for r in o.read)
    # a flat method fills its budget (Cinderella is longer than 1,500 tokens)
    assert all(o.tokens_read == 1500 for o in result.outcomes["bm25-fixed200"][1500])
    assert result.rules == ["must_contain", "spans", "spans"]


def test_a_flat_method_reads_whole_units_then_cuts_the_first_that_does_not_fit():
    text = "word " * 400
    units = [FlatUnit(f"u{i}", SOURCE, (i * 10_000, i * 10_000 + len(text[:n * 5])), text[:n * 5], n)
             for i, n in enumerate((100, 300, 50))]
    reads, tokens = read_within(units, 250)
    assert [r.id for r in reads] == ["u0", "u1"]  # u2 would fit, but reading stopped at the cut
    assert tokens == 250 and reads[1].tokens == 150
    assert reads[1].text == units[1].text[:len(reads[1].text)]
    assert reads[1].span == (10_000, 10_000 + len(reads[1].text))
    assert read_within(units, 100)[0][0].id == "u0" and len(read_within(units, 100)[0]) == 1


def test_the_span_rule_counts_characters_read_in_the_file(tree):
    leaf, other = _leaf(tree, 4), _leaf(tree, 9)
    a = leaf.span[0] + 10
    judge = Judge(Question("q", spans=[Span(SOURCE, a, a + 100)]), fuzzy=False)
    read = lambda src, span, kind="leaf": Read("x", kind, src, span, "", 0)  # noqa: E731
    assert judge.success([read(SOURCE, leaf.span)])
    assert not judge.success([read(SOURCE, other.span)])
    assert not judge.success([read("elsewhere.md", leaf.span)])
    assert not judge.success([read(SOURCE, leaf.span, "summary")])  # a summary has no characters
    half = int(100 * SPAN_SHARE)
    assert judge.success([read(SOURCE, (a, a + half // 2)), read(SOURCE, (a + half // 2, a + half))])
    assert not judge.success([read(SOURCE, (a, a + half - 1)), read(SOURCE, (a, a + 20))])


def test_a_span_inside_a_leaf_is_found_by_a_method_reading_that_leaf_only(run, tree, tmp_path):
    leaf, other = _leaf(tree, 4), _leaf(tree, 9)
    span = {"start": leaf.span[0] + 5, "end": leaf.span[1] - 5}
    qs = _write(tmp_path / "q.jsonl", [{"question": leaf.original, **span},
                                       {"question": other.original, **span}])
    for n, wanted in ((0, leaf), (1, other)):  # a budget of exactly the first leaf: it alone
        budget = count_tokens(wanted.original)
        res = evaluate_navigation(run, load_questions(qs)[n:n + 1], settings=LEXICAL,
                                  budgets=(budget,), methods=["bm25-leaves"], questions_path=qs)
        outcome = res.outcomes["bm25-leaves"][budget][0]
        assert [r["id"] for r in outcome.read] == [wanted.id]
        assert outcome.read[0]["file"] == SOURCE
        assert outcome.success is (wanted is leaf)
    assert res.gold_leaves == [[leaf.id]]


@pytest.mark.parametrize("line, message", [
    ("{not json", "not JSON"),
    ({"must_contain": "slipper"}, "`question` must be a non-empty string"),
    ({"question": "who?"}, "expected `must_contain` or reference spans"),
    ({"question": "who?", "start": "3", "end": 9}, "`start` must be an integer"),
    ({"question": "who?", "start": 9, "end": 3}, "empty or negative"),
    ({"question": "who?", "spans": []}, "non-empty list"),
])
def test_a_bad_line_is_named_with_its_file_and_line(tmp_path, line, message):
    qs = _write(tmp_path / "q.jsonl", [{"question": "ok?", "must_contain": "ok"}, line])
    with pytest.raises(ValueError) as exc:
        load_questions(qs)
    assert str(exc.value).startswith(f"{qs}:2: ") and message in str(exc.value)


@pytest.mark.parametrize("line, message", [
    ({"question": "who?", "start": 0, "end": 10 ** 7}, "out of range: cinderella.txt has"),
    ({"question": "who?", "spans": [{"start": 0, "end": 5, "file": "emma.md"}]},
     "the tree holds no file 'emma.md' (it holds cinderella.txt)"),
])
def test_questions_the_tree_cannot_hold_are_refused_before_any_method_runs(run, tmp_path, line, message):
    qs = _write(tmp_path / "q.jsonl", [line])
    with pytest.raises(ValueError) as exc:
        evaluate_navigation(run, load_questions(qs), settings=LEXICAL, questions_path=qs)
    assert str(exc.value).startswith(f"{qs}:1: ") and message in str(exc.value)


def test_a_single_document_may_be_named_by_its_path(run, tree):
    q = parse_line(json.dumps({"question": "q", "start": 0, "end": 9,
                               "file": f"examples/{SOURCE}"}), 1)
    from chunker.evaluation.navigation_questions import resolve

    assert resolve([q], tree, file_texts(tree), Path("q"))[0].spans == [Span(SOURCE, 0, 9)]
    assert file_texts(tree)[SOURCE] == Path(__file__).parents[1].joinpath(
        "examples", SOURCE).read_text(encoding="utf-8")


def test_the_report_has_its_files_the_target_per_budget_and_one_line_per_method(result, tmp_path):
    written = write_navigation(result, tmp_path / "report")
    for key in ("report", "json", "success vs budget", "per question"):
        assert written[key].is_file() and written[key].stat().st_size > 0
    assert written["success vs budget"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    labels = success_vs_budget(result, tmp_path / "again.png")
    assert labels == result.methods("navigator") + result.methods("flat")
    md = written["report"].read_text(encoding="utf-8")
    for budget in (60, 150, 400, 1500):
        assert f"budget {budget}: " in md
    assert md.count("MET: navigator") == 4
    assert "## Ablation of contextual fields" in md and "| ablation-none | none |" in md
    data = json.loads(written["json"].read_text(encoding="utf-8"))
    assert set(data["summary"]) == set(result.outcomes)
    assert data["summary"][NAVIGATOR]["1500"]["successes"] == sum(
        o.success for o in result.outcomes[NAVIGATOR][1500])


def test_the_cli_takes_old_question_files_and_refuses_bad_ones_in_one_line(run, tmp_path):
    old = _write(tmp_path / "old.jsonl", [
        {"question": "Who lost a golden slipper?", "answer": "Cinderella", "must_contain": "slipper"}])
    out = tmp_path / "report"
    proc = invoke("eval", "navigation", run, "--questions", old, "--embeddings", "lexical",
                  "--budgets", "300,900", "--method", "navigator", "--method", "bm25-leaves",
                  "--out", out, "--quiet", check=0)
    data = json.loads((out / "navigation.json").read_text(encoding="utf-8"))
    assert data["budgets"] == [300, 900] and set(data["summary"]) == {
        "navigator", "navigator-descend", "bm25-leaves"}
    bad = _write(tmp_path / "bad.jsonl", [{"question": "who?", "start": 0, "end": 10 ** 7}])
    proc = invoke("eval", "navigation", run, "--questions", bad, "--embeddings", "lexical",
                  "--out", out, check=2)
    assert len(proc.stderr.strip().splitlines()) == 1 and "bad.jsonl:1: span 0-10000000" in proc.stderr
