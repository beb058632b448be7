"""`chunker eval navigation` on a corpus tree (the hand-made three-file tree of
test_navigation_corpus): spans name their file, every passage read names its file, a question's
`prefix` keeps every method to the files under it, fixed chunks are cut per file, and questions
the corpus cannot hold are refused."""

from __future__ import annotations

import json

import pytest

from chunker.evaluation.navigation import evaluate_navigation
from chunker.evaluation.navigation_flat import build_units
from chunker.evaluation.navigation_questions import file_texts, load_questions
from chunker.evaluation.navigation_report import write_navigation
from chunker.navigation import NavigatorSettings, open_tree
from test_navigation_corpus import INSTALL, INSTALL_LEAVES, SECURITY, corpus_hierarchy, write_tree

BM25 = NavigatorSettings(embeddings="bm25")
LEXICAL = NavigatorSettings(embeddings="lexical")
PROXY = len(INSTALL[0]) + INSTALL[1].index("HTTPS_PROXY")
"""Where `HTTPS_PROXY` starts in guide/install.md."""


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("evalcorpus") / "docs", corpus_hierarchy())


def _questions(tmp_path, lines: list[dict]):
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path, load_questions(path)


def test_files_are_the_corpus_files_and_fixed_chunks_never_cross_them(out):
    tree = open_tree(out)
    files = file_texts(tree)
    assert files == {"guide/install.md": "".join(INSTALL), "guide/security.md": SECURITY,
                     "README.md": files["README.md"]}
    for kind in ("fixed200", "fixed400"):
        units, _ = build_units(tree, files, kind, BM25)
        assert {u.source for u in units} == set(files)
        for u in units:
            assert u.text == files[u.source][u.span[0]:u.span[1]]


def test_a_span_in_a_file_is_found_there_and_every_passage_names_its_file(out, tmp_path):
    path, qs = _questions(tmp_path, [
        {"question": "Which variable must be set behind a firewall?",
         "spans": [{"file": "guide/install.md", "start": PROXY, "end": PROXY + len("HTTPS_PROXY")}]}])
    res = evaluate_navigation(out, qs, settings=LEXICAL, budgets=(40, 400), questions_path=path)
    assert res.corpus and res.rules == ["spans"] and res.gold_leaves == [[INSTALL_LEAVES[1]]]
    for name in ("navigator", "bm25-leaves", "fusion-leaves", "bm25-fixed200", "bm25-contextual"):
        assert res.outcomes[name][400][0].success, name
    for by_budget in res.outcomes.values():
        for rows in by_budget.values():
            for read in rows[0].read:
                if read["kind"] != "summary":
                    assert read["file"] in ("guide/install.md", "guide/security.md", "README.md")


PREFIX_QUESTION = {"question": "Which variable must be set behind a firewall to install?",
                   "must_contain": "HTTPS_PROXY"}


@pytest.fixture(scope="module")
def prefixed(out, tmp_path_factory):
    path, qs = _questions(tmp_path_factory.mktemp("prefix"), [{**PREFIX_QUESTION, "prefix": "README"},
                                                              {**PREFIX_QUESTION, "prefix": "guide/"}])
    return evaluate_navigation(out, qs, settings=LEXICAL, budgets=(400,), questions_path=path)


def _kept(res, name: str) -> None:
    readme, guide = res.outcomes[name][400]
    assert all(r["file"] == "README.md" for r in readme.read), name
    assert guide.read and all(r["file"] in (None, "guide/install.md", "guide/security.md")
                              for r in guide.read), name  # None: a folder's summary
    assert not readme.success, name  # the answer is not in README.md


def test_a_prefix_keeps_every_method_to_its_files(prefixed):
    for name in prefixed.outcomes:
        if name != "navigator-descend":
            _kept(prefixed, name)
    assert prefixed.outcomes["navigator"][400][1].success
    assert prefixed.outcomes["bm25-leaves"][400][1].success


def test_a_prefix_keeps_the_descending_navigator_to_its_files(prefixed):
    _kept(prefixed, "navigator-descend")


@pytest.mark.parametrize("line, message", [
    ({"question": "q?", "start": 0, "end": 5}, "a span needs `file`: this tree holds 3 files"),
    ({"question": "q?", "start": 0, "end": 5, "file": "guide/nope.md"},
     "the tree holds no file 'guide/nope.md' (it holds guide/install.md, guide/security.md, README.md)"),
    ({"question": "q?", "spans": [{"file": "README.md", "start": 0, "end": 10 ** 6}]},
     "span 0-1000000 is out of range: README.md has"),
    ({"question": "q?", "must_contain": "x", "prefix": "tutorial/"},
     "no file of this tree starts with 'tutorial/'"),
])
def test_corpus_questions_the_tree_cannot_hold_are_refused(out, tmp_path, line, message):
    path, qs = _questions(tmp_path, [line])
    with pytest.raises(ValueError) as exc:
        evaluate_navigation(out, qs, settings=BM25, questions_path=path)
    assert str(exc.value).startswith(f"{path}:1: ") and message in str(exc.value)


def test_the_llm_navigator_reports_its_calls_and_tokens_within_budget(out, tmp_path):
    path, qs = _questions(tmp_path, [PREFIX_QUESTION])
    res = evaluate_navigation(out, qs, settings=LEXICAL, model="scripted", budgets=(60, 400),
                              methods=["navigator-llm"], questions_path=path)
    assert res.methods() == ["navigator-llm"]
    for budget in (60, 400):
        outcome = res.outcomes["navigator-llm"][budget][0]
        assert outcome.llm_calls > 0 and outcome.llm_tokens > 0 and outcome.tokens_read <= budget
    md = write_navigation(res, tmp_path / "report")["report"].read_text(encoding="utf-8")
    calls = " / ".join(f"{res.summary()['navigator-llm'][b]['llm_calls']:.1f}" for b in (60, 400))
    assert f"| {calls} |" in md
    assert "target not measured" in md
