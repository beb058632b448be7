"""Boundaries on long topics (issue 22), on real text: Choi-style documents of 9-11-sentence
topics built from public-domain prose (`tests/data/synthetic/`, written by
`chunker.evaluation.synthetic` from Emma, the Rust book and FastAPI pages), chunked by the whole
graph with MiniLM and the scripted model, which takes the first cut it is offered: what is scored
is the candidates alone."""

from __future__ import annotations

from chunker.evaluation.gold import load_gold
from chunker.evaluation.metrics import pk, window_size
from conftest import GOLD, leaves, run_text

SETS = GOLD
ISSUE_SETTINGS = {"embeddings": "local", "min_chunk_tokens": 60, "max_chunk_tokens": 400}


def _scores(docs, **settings) -> tuple[float, float]:
    """Mean Pk and segments per gold segment of the chunker's leaves over `docs`."""
    pks, ratios = [], []
    for doc in docs:
        out, _ = run_text(doc.text, **ISSUE_SETTINGS, **settings)
        masses, _ = doc.masses_from_chars([leaf["span"][0] for leaf in leaves(out["tree"])])
        pks.append(pk(doc.masses, masses, window_size(doc.masses)))
        ratios.append(len(masses) / len(doc.masses))
    return sum(pks) / len(pks), sum(ratios) / len(ratios)


def test_long_topics_are_cut_about_as_often_as_they_change():
    docs = load_gold([SETS / "9-11"], limit=3)
    new_pk, new_ratio = _scores(docs)
    old_pk, old_ratio = _scores(docs, candidate_cutoff="peak_std")
    assert 0.8 <= new_ratio <= 1.25 and new_pk <= 0.2, (new_pk, new_ratio)
    # issue 10's rule offers the dips inside a topic, and the first offered cut is taken
    assert old_ratio > 1.25 and old_pk >= new_pk + 0.1, (old_pk, old_ratio, new_pk, new_ratio)


def test_short_topics_keep_their_cuts():
    docs = load_gold([SETS / "3-5-distinct"])  # neighbours from different works, as in Choi's sets
    new_pk, new_ratio = _scores(docs)
    assert 0.8 <= new_ratio <= 1.2 and new_pk <= 0.15, (new_pk, new_ratio)
