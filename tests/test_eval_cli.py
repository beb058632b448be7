"""`chunker eval fidelity|cost|segmentation` end to end, with the scripted model."""

import json
import shutil
from pathlib import Path

import pytest
from chunker.cli.eval_cmd import eval_app
from chunker.document.tokens import count_tokens
from chunker.evaluation.fidelity import (
    names,
    numbers,
    opening_pronoun,
    retention,
    summary_shape,
)
from chunker.evaluation.gold import load_gold
from chunker.evaluation.metrics import pk as metric_pk
from chunker.evaluation.metrics import window_diff as metric_window_diff
from typer.testing import CliRunner

from conftest import GOLD

SET = GOLD / "3-5"  # Choi-style documents of 3-5-sentence topics, from public-domain prose
runner = CliRunner()


def _eval(*args):
    result = runner.invoke(eval_app, [str(a) for a in args])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished scripted run on a Choi document, made by `chunker run`."""
    from chunker.cli.app import app

    tmp = tmp_path_factory.mktemp("run")
    doc = tmp / "doc.txt"
    doc.write_text(load_gold([SET / "4.ref"])[0].text, encoding="utf-8")
    out = tmp / "out"
    result = runner.invoke(app, ["run", str(doc), "--model", "scripted", "-o", str(out), "--quiet",
                                 "--min-chunk-tokens", "150", "--max-chunk-tokens", "500"])
    assert result.exit_code == 0, result.output
    return out, doc.read_text(encoding="utf-8")


def test_cost(finished_run, tmp_path):
    out, text = finished_run
    _eval("cost", out, "--out", tmp_path, "-q")
    data = json.loads((tmp_path / "cost.json").read_text())
    run = data["runs"][0]
    h = json.loads((out / "hierarchy.json").read_text())
    stats = h["meta"]["stats"]
    leaves = [n for n in h["nodes"] if n["level"] == 0]
    assert run["leaves"] == len(leaves) == stats["leaves"] >= 3
    assert run["source_tokens"] == count_tokens(text)
    assert run["calls"]["total"] == stats["calls.total"]
    assert run["calls_per_leaf"]["total"] == pytest.approx(stats["calls.total"] / len(leaves), abs=1e-6)
    per_leaf = run["calls_per_leaf"]  # one rewrite call a leaf, separate or combined with the summary
    assert per_leaf.get("rewrite", 0) + per_leaf.get("rewrite_summarize", 0) == pytest.approx(1.0)
    assert run["prompt_tokens_per_source_token"] == pytest.approx(
        stats["tokens.prompt"] / count_tokens(text), abs=1e-6)
    assert run["forced_split_rate"] == pytest.approx(stats.get("forced_splits", 0) / len(leaves), abs=1e-6)
    assert run["wall_s"] > 0
    by_kind = {k.split(".", 2)[2] for k in stats if k.startswith("tokens.prompt.")}
    assert set(run["prompt_tokens_per_source_token_by_kind"]) == by_kind
    md = (tmp_path / "cost.md").read_text()
    assert "cost_calls.png" in md and (tmp_path / "cost_calls.png").stat().st_size > 1000


def test_fidelity(finished_run, tmp_path):
    out, _ = finished_run
    _eval("fidelity", out, "--out", tmp_path, "-q")
    data = json.loads((tmp_path / "fidelity.json").read_text())
    overall = data["runs"][0]["overall"]
    assert overall["slug_valid"] == 1.0
    assert 0 <= overall["retention_micro"] <= 1 and overall["entities_found"] > 0
    for key in ("pronoun_opening_leaves", "summary_empty", "summary_too_long"):
        assert 0 <= overall[key] <= 1
    assert len(data["runs"][0]["nodes"]) == overall["nodes"]
    md = (tmp_path / "fidelity.md").read_text()
    assert "fidelity_overall.png" in md and (tmp_path / "fidelity_overall.png").exists()


def test_fidelity_counts_planted_faults(finished_run, tmp_path):
    src, _ = finished_run
    out = tmp_path / "run"
    shutil.copytree(src, out)
    h = json.loads((out / "hierarchy.json").read_text())
    leaves = sorted((n for n in h["nodes"] if n["level"] == 0), key=lambda n: n["span"][0])
    leaves[0]["rewritten"] = "It was the largest. " + leaves[0]["rewritten"]
    leaves[1]["rewritten"] = "nothing kept"
    leaves[1]["summary"] = ""
    leaves[2]["summary"] = "One. Two. Three."
    leaves[2]["slug"] = "Bad Slug!"
    leaves[2]["rewritten"] = "  " + leaves[2]["original"].replace("\n", " ")  # a fallback copy
    for n in h["nodes"]:
        if n["level"] > 0:
            n["rewritten"] = "A block overview."
    (out / "hierarchy.json").write_text(json.dumps(h))
    _eval("fidelity", out, "--out", tmp_path / "rep", "-q")
    run = json.loads((tmp_path / "rep" / "fidelity.json").read_text())["runs"][0]
    by_id = {n["id"]: n for n in run["nodes"]}
    assert by_id[leaves[0]["id"]]["opening_pronoun"] == "it"
    assert by_id[leaves[1]["id"]]["retention"]["numbers_kept"] == 0
    assert by_id[leaves[1]["id"]]["retention"]["names_kept"] == 0
    assert by_id[leaves[1]["id"]]["summary_empty"]
    assert by_id[leaves[2]["id"]]["summary_too_long"] and not by_id[leaves[2]["id"]]["slug_valid"]
    assert by_id[leaves[2]["id"]]["context_is_original"] and not by_id[leaves[1]["id"]]["context_is_original"]
    assert by_id[leaves[1]["id"]]["context_ratio"] < 0.5 <= by_id[leaves[2]["id"]]["context_ratio"]
    o = run["overall"]
    assert o["pronoun_opening_blocks"] == 0
    assert o["slug_valid"] == pytest.approx(1 - 1 / o["nodes"])
    assert o["context_is_original"] >= 1 / o["leaves"] and o["context_shrunk"] >= 1 / o["leaves"]


def test_fidelity_heuristics():
    text = ("Figures 1 and 2 show it. \nFirst , the Onset Profile grew 1,250 units in 1990. "
            "The Oslo meeting. Oslo is cold. It cost 3.5 million.")
    assert numbers(text) == {"1", "2", "1250", "1990", "3.5"}
    assert names(text) == {"Onset", "Profile", "Oslo"}  # Figures, First, The, It: sentence-initial
    r = retention(text, "In 1990 the onset profile of Oslo grew by 1250 units; figures 1 and 2.")
    assert (r["numbers"], r["numbers_kept"], r["names"], r["names_kept"]) == (5, 4, 3, 3)
    assert r["missing"] == ["3.5"]
    assert opening_pronoun('## "They said so') == "they"
    assert opening_pronoun("This approach works") == "this"
    assert opening_pronoun("The approach works") is None and opening_pronoun("") is None
    assert summary_shape("") == {"empty": True, "too_long": False, "sentences": 0, "chars": 0}
    assert summary_shape("One. Two.")["too_long"] is False
    assert summary_shape("One. Two. Three.")["too_long"] is True
    assert summary_shape("x" * 401)["too_long"] is True


def test_not_a_finished_run_is_a_usage_error(tmp_path):
    result = runner.invoke(eval_app, ["cost", str(tmp_path)])
    assert result.exit_code == 2
    result = runner.invoke(eval_app, ["fidelity", str(tmp_path / "missing")])
    assert result.exit_code == 2


def test_segmentation_on_two_choi_documents(tmp_path):
    docs = [SET / "0.ref", SET / "1.ref"]
    _eval("segmentation", *docs, "--model", "scripted", "--out", tmp_path, "-q",
          "-b", "fixed-tokens", "-b", "recursive", "-b", "random", "--set", "min_chunk_tokens=150",
          "--keep-runs", tmp_path / "runs")
    data = json.loads((tmp_path / "segmentation.json").read_text())
    assert [d["name"] for d in data["documents"]] == ["0", "1"] and not data["failed"]
    assert data["overrides"] == {"min_chunk_tokens": 150}
    for d in data["documents"]:
        gold = d["methods"]["gold"]
        assert gold["pk"] == 0 and gold["segments"] == 10
        n = d["methods"]["chunker"]["segments"]
        for m in ("chunker", "fixed-tokens", "recursive", "random"):
            res = d["methods"][m]
            assert sum(res["masses"]) == d["units"]
            # the reported figures are those of the reported masses, with the document's k
            assert res["pk"] == pytest.approx(metric_pk(gold["masses"], res["masses"], d["k"]), abs=1e-6)
            assert res["windowdiff"] == pytest.approx(
                metric_window_diff(gold["masses"], res["masses"], d["k"]), abs=1e-6)
        assert d["methods"]["random"]["segments"] == n
        assert d["methods"]["chunker"]["llm"]["calls.total"] > 0
    summary = data["summary"]["3-5"]
    assert summary["chunker"]["documents"] == 2 and "calls.total" in summary["chunker"]
    # the kept trees are run directories that eval cost and fidelity accept
    kept = tmp_path / "runs" / "3-5" / "1"
    _eval("cost", kept, "--out", tmp_path / "c", "-q")
    cost = json.loads((tmp_path / "c" / "cost.json").read_text())["runs"][0]
    assert cost["calls"]["total"] == data["documents"][1]["methods"]["chunker"]["llm"]["calls.total"]
    _eval("fidelity", kept, "--out", tmp_path / "f", "-q")
    md = (tmp_path / "segmentation.md").read_text()
    for png in ("segmentation_metrics.png", "segmentation_strip_3-5.png"):
        assert png in md and (tmp_path / png).stat().st_size > 1000


def test_segmentation_usage_errors(tmp_path):
    doc = SET / "0.ref"
    for extra in (["-b", "nope"], ["--set", "nonsense=1"], ["--units", "words"]):
        result = runner.invoke(eval_app, ["segmentation", str(doc), "-m", "scripted", "-o",
                                          str(tmp_path), *extra])
        assert result.exit_code == 2, extra
    result = runner.invoke(eval_app, ["segmentation", str(tmp_path / "none"), "-m", "scripted"])
    assert result.exit_code == 2


def test_boundary_only_mode_routes_only_completeness_to_the_model(tmp_path):
    from chunker.config.settings import ChunkerSettings
    from chunker.evaluation.hybrid import BoundaryOnlyModel
    from chunker.llm.registry import get_model

    doc = SET / "2.ref"
    _eval("segmentation", doc, "-m", "scripted", "--boundary-only", "-b", "random", "-o", tmp_path, "-q")
    data = json.loads((tmp_path / "segmentation.json").read_text())
    assert data["model"] == "boundary-only:scripted" and data["documents"][0]["methods"]["chunker"]["segments"] >= 1
    model = get_model(ChunkerSettings(model="boundary-only:scripted").llm)
    assert isinstance(model, BoundaryOnlyModel)
    calls = []

    class Spy:
        def __init__(self, name):
            self.name = name

        def _generate(self, messages, **kw):
            calls.append((self.name, kw["json_schema"]["title"]))

    spy = BoundaryOnlyModel.model_construct(boundary=Spy("real"), rest=Spy("stand-in"))
    for title in ("Completeness", "Rewrite", "Summary", "Grouping", "Synthesis"):
        BoundaryOnlyModel._generate(spy, [], json_schema={"title": title})
    assert calls == [("real", "Completeness"), ("stand-in", "Rewrite"), ("stand-in", "Summary"),
                     ("stand-in", "Grouping"), ("stand-in", "Synthesis")]


def _hand_gold(path: Path) -> Path:
    """Three gold segments of four one-line sentences each (12 units), every sentence
    about 35 tokens long, so that `min_chunk_tokens` alone decides how many sentences a
    leaf of the scripted model holds (it calls every first window complete)."""
    segments = []
    for part, who in enumerate(("miller", "baker", "smith"), start=1):
        segments.append("\n".join(
            f"Sentence {j} of part {part} tells how the {who} walked along the quiet road near the "
            f"old stone bridge and counted {j + 2} grey geese before the evening bell rang."
            for j in range(1, 5)))
    path.write_text("==========\n" + "\n==========\n".join(segments) + "\n==========\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("min_tokens, masses, pk, windowdiff, precision, recall", [
    # gold labels 0000 1111 2222, k = round(4 / 2) = 2, windows i = 0..9 compare units i, i + 2.
    # One sentence a leaf (labels 0 1 2 ... 11): no window ever lies in one hypothesis segment,
    # gold windows i = 0, 1, 4, 5, 8, 9 do: Pk = 6/10. WindowDiff: the hypothesis always has 2
    # boundaries in a window, gold 0 or 1: 10/10. Precision: 2 of 11 cuts are gold; recall 2/2.
    (20, [1] * 12, 0.6, 1.0, 2 / 11, 1.0),
    # Three sentences a leaf (labels 000 111 222 333): Pk errs at i = 1, 3, 4, 5, 6, 8 (6/10);
    # WindowDiff counts 0 1 1 0 1 1 0 1 1 0 against gold 0 0 1 1 0 0 1 1 0 0: same six (6/10);
    # the cuts after units 3, 6, 9 miss gold's 4 and 8: precision and recall 0.
    (90, [3] * 4, 0.6, 0.6, 0.0, 0.0),
])
def test_segmentation_scores_match_a_hand_computed_case(tmp_path, min_tokens, masses, pk, windowdiff,
                                                        precision, recall):
    doc = _hand_gold(tmp_path / "hand.ref")
    _eval("segmentation", doc, "--model", "scripted", "-b", "fixed-tokens", "--out", tmp_path / "rep",
          "-q", "--set", f"min_chunk_tokens={min_tokens}", "--set", "max_chunk_tokens=400",
          "--set", "boundary_mode=phrase")  # the cut follows min_chunk_tokens alone
    record = json.loads((tmp_path / "rep" / "segmentation.json").read_text())["documents"][0]
    assert record["units"] == 12 and record["k"] == 2
    assert record["methods"]["gold"]["masses"] == [4, 4, 4]
    for method in ("chunker", "fixed-tokens"):  # equal sentences: the token baseline agrees
        res = record["methods"][method]
        assert res["masses"] == masses, method
        for key, value in (("pk", pk), ("windowdiff", windowdiff), ("precision", precision),
                           ("recall", recall)):
            assert res[key] == pytest.approx(value, abs=1e-6), (method, key)  # reports keep 6 digits
