"""Choi-style test sets of every topic length (issue 22): seeded, gold by construction, read
back by the evaluation as written."""

from __future__ import annotations

import random

import pytest

from chunker.evaluation.gold import load_gold
from chunker.evaluation.synthetic import LENGTHS, corpus_units, document, markdown_units, write_sets
from conftest import DATA

# two pools whose material a test may not carry (Choi's Brown-corpus segments, the manifestos):
# small stand-ins in their formats, this test's own sentences; the manifesto's curly quote in the
# cp1252 mojibake the real files have
CHOI_STANDIN = ("==========\nThe river rose all night and the town waited on the hill.\n"
                "By morning the water had reached the first houses by the mill.\n"
                "Nobody spoke much while the boats went out.\n==========\n"
                "The committee met on Tuesday to settle the budget for the year.\n"
                "Its chairman asked for a vote before the long lunch began.\n"
                "Two members left early and the vote was put off again.\n==========\n")
MANIFESTO_STANDIN = ("We will build the homes this country needs.\n==========\n"
                     "Our towns deserve a fair share of what the nation earns.\n"
                     "We\u00e2\u20ac\u2122ll keep every promise we make in this plan for the years ahead.\n")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The shared corpus's layout: tests/data's Emma, Rust book and FastAPI pages, and the two
    stand-ins."""
    root = tmp_path_factory.mktemp("corpus")
    for sub in ("emma", "markdown", "folders"):
        (root / sub).symlink_to(DATA / sub, target_is_directory=True)
    (root / "choi-3-5").mkdir()
    (root / "choi-3-5" / "0.ref").write_text(CHOI_STANDIN, encoding="utf-8")
    (root / "manifesto").mkdir()
    (root / "manifesto" / "1_2020.txt").write_text(MANIFESTO_STANDIN, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def units(corpus):
    return corpus_units(corpus)


def test_every_pool_of_the_shared_corpus_gives_units(units):
    pools = {u.pool for u in units}
    assert pools == {"emma", "manifesto", "rust-book", "fastapi-docs", "choi"}
    emma = [u for u in units if u.pool == "emma"]
    assert len(emma) == 55 and all(u.name.startswith("emma#VOLUME") for u in emma)  # one a chapter
    manifesto = " ".join(s for u in units if u.pool == "manifesto" for s in u.sentences)
    assert "\u2019" in manifesto and "\u00e2\u20ac" not in manifesto  # cp1252 mojibake repaired
    for u in units:
        assert all("\n" not in s and s == s.strip() for s in u.sentences)


def test_markdown_keeps_prose_only():
    md = ("# Title { #title }\n\nFirst we read the **config** file. See [the docs](http://x.y) now.\n\n"
          "```python\nprint('code is not prose at all here')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
          "{* ../docs_src/app.py hl[3] *}\n\n## Second part\n\n/// tip\n\nA tip that is kept as prose.\n\n///\n")
    got = markdown_units("docs", "page.md", md)
    assert [u.name for u in got] == ["page.md#Title { #title }", "page.md#Second part"]
    assert got[0].sentences == ("First we read the config file.", "See the docs now.")
    assert got[1].sentences == ("A tip that is kept as prose.",)


def test_a_document_is_runs_of_consecutive_sentences_from_distinct_units(units):
    by_name = {u.name: u for u in units}
    for name, (lo, hi) in LENGTHS.items():
        doc = document(units, (lo, hi), random.Random(name))
        assert len(doc) == 10
        assert len({seg.unit for seg in doc}) == 10  # never one text twice, so never two neighbours
        for seg in doc:
            assert lo <= len(seg.sentences) <= hi
            source = by_name[seg.unit].sentences
            assert seg.sentences == source[seg.start:seg.start + len(seg.sentences)]


def test_sets_are_seeded_and_read_back_with_their_gold(corpus, units, tmp_path):
    first = write_sets(corpus, tmp_path / "a", seed=7, documents=2, names=("6-8", "9-11"))
    again = write_sets(corpus, tmp_path / "b", seed=7, documents=2, names=("6-8", "9-11"), units=units)
    other = write_sets(corpus, tmp_path / "c", seed=8, documents=2, names=("6-8",), units=units)
    assert [p.read_bytes() for p in first["6-8"]] == [p.read_bytes() for p in again["6-8"]]
    assert first["6-8"][0].read_bytes() != other["6-8"][0].read_bytes()
    for doc in load_gold([tmp_path / "a" / "9-11"]):
        assert len(doc.masses) == 10 and all(9 <= m <= 11 for m in doc.masses)
