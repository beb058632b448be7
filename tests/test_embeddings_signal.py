"""Depth scores, numbered candidates, the resumable vector cache and split_at_dips."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.embeddings import Embeddings
from langgraph.store.sqlite import SqliteStore

from chunker.document.units import Units
from chunker.embeddings import (
    SignalSettings,
    candidates,
    deepest,
    document_depths,
    sentence_texts,
    split_at_dips,
    summary_dips,
)
from chunker.embeddings.lexical import LexicalEmbeddings
from chunker.embeddings.signal import depth_scores
from conftest import CINDERELLA


def test_depth_climbs_to_both_peaks():
    sims = [0.9, 0.5, 0.7, 0.2, 0.6, 0.8, 0.8]
    # gap 3: left peak 0.7 (climb stops at 0.5), right peak 0.8 -> 0.5 + 0.6
    assert depth_scores(sims)[3] == pytest.approx(1.1)
    assert depth_scores(sims)[1] == pytest.approx(0.4 + 0.2)
    assert depth_scores([0.1, 0.5, 0.2])[1] == 0.0  # a peak has no depth


# -- candidates on a real document ---------------------------------------------------

@pytest.fixture(scope="module")
def tale():
    text = CINDERELLA.read_text(encoding="utf-8")
    units = Units.of(text)
    depths = LexicalEmbeddings().embed_array(sentence_texts(text, units.sentences))
    from chunker.embeddings.signal import depths_of
    return text, units, depths_of(depths, SignalSettings("rank", 3))


@settings(max_examples=200, deadline=None)
@given(cursor=st.integers(0, 14000), window=st.integers(1, 3000), minimum=st.integers(0, 2000),
       lookahead=st.integers(0, 800), k=st.integers(1, 8))
def test_candidates_lie_past_the_minimum_at_sentence_ends_inside_the_shown_text(
        tale, cursor, window, minimum, lookahead, k):
    text, units, depths = tale
    cursor = min(cursor, len(text) - 1)
    window_end = min(len(text), cursor + window)
    min_end = min(window_end, cursor + minimum)
    shown_end = min(len(text), window_end + lookahead)
    got = candidates(units.sentences, depths, cursor=cursor, window_end=window_end,
                     min_end=min_end, shown_end=shown_end, k=k)
    ends = set(units.sentences[:-1])
    eligible = [e for e in units.sentences[:-1] if cursor < e <= shown_end and e >= min_end]
    assert len(got) == min(k, len(eligible))
    assert [c.number for c in got] == list(range(1, len(got) + 1))
    assert [c.offset for c in got] == sorted(c.offset for c in got)  # numbered in document order
    for c in got:
        assert c.offset in ends and cursor < c.offset <= shown_end and c.offset >= min_end
        assert units.sentences[c.sentence] == c.offset and c.depth == pytest.approx(depths[c.sentence])
        assert c.in_window == (c.offset <= window_end)
    if got:  # the offered ones are the deepest of the eligible gaps
        weakest = min(c.depth for c in got)
        offered = {c.offset for c in got}
        assert all(depths[units.sentences.index(e)] <= weakest for e in eligible if e not in offered)
    best = deepest(units.sentences, depths, cursor=cursor, min_end=min_end, end=window_end)
    inside = [e for e in eligible if e <= window_end]
    if not inside:
        assert best is None
    else:
        assert best.offset in inside
        assert best.depth == max(depths[units.sentences.index(e)] for e in inside)


def test_candidates_rank_by_depth_then_number_in_order():
    sentences = [10, 20, 30, 40, 50, 60]
    depths = [0.9, 0.1, 0.5, 0.7, 0.3]
    got = candidates(sentences, depths, cursor=0, window_end=40, min_end=20, shown_end=60, k=3)
    assert [(c.number, c.offset, c.in_window) for c in got] == [(1, 30, True), (2, 40, True),
                                                                  (3, 50, False)]
    assert deepest(sentences, depths, cursor=0, min_end=20, end=40).offset == 40
    assert candidates(sentences, depths, cursor=50, window_end=60, min_end=55, shown_end=60) == []


# -- the resumable cache ------------------------------------------------------------

class CountingEmbeddings(Embeddings):
    """Lexical vectors through the plain LangChain interface, counting calls; can crash."""

    cacheable = True

    def __init__(self, crash_on_call: int | None = None) -> None:
        self.inner = LexicalEmbeddings(dimensions=256, idf=False)
        self.calls: list[int] = []
        self.crash_on_call = crash_on_call

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.crash_on_call is not None and len(self.calls) + 1 == self.crash_on_call:
            raise KeyboardInterrupt("simulated crash between batches")
        self.calls.append(len(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def _store(path) -> SqliteStore:
    store = SqliteStore(sqlite3.connect(str(path), check_same_thread=False, isolation_level=None))
    store.setup()
    return store


def test_resume_after_a_crash_recomputes_no_finished_batch(tmp_path):
    text = CINDERELLA.read_text(encoding="utf-8")
    texts = sentence_texts(text, Units.of(text).sentences)
    batches = -(-len(texts) // 16)
    assert batches >= 5
    ns, signal = ("chunker", "run-1", "embeddings", "test"), SignalSettings("tiling", 2)

    whole = CountingEmbeddings()
    expected = document_depths(_store(tmp_path / "a.sqlite"), ns, texts, whole, signal=signal,
                               batch_size=16)
    assert len(whole.calls) == batches and len(expected) == len(texts) - 1

    crashing = CountingEmbeddings(crash_on_call=4)
    with pytest.raises(KeyboardInterrupt):
        document_depths(_store(tmp_path / "b.sqlite"), ns, texts, crashing, signal=signal,
                        batch_size=16)
    assert len(crashing.calls) == 3

    resumed = CountingEmbeddings()  # a new process: a fresh provider, the same store file
    got = document_depths(_store(tmp_path / "b.sqlite"), ns, texts, resumed, signal=signal,
                          batch_size=16)
    assert len(resumed.calls) == batches - 3
    assert got == expected  # bit-identical to the uninterrupted run

    again = CountingEmbeddings()
    assert document_depths(_store(tmp_path / "b.sqlite"), ns, texts, again, signal=signal,
                           batch_size=16) == expected
    assert again.calls == []


def test_a_stored_batch_of_other_sentences_is_recomputed(tmp_path):
    store, ns = _store(tmp_path / "s.sqlite"), ("ns",)
    first = CountingEmbeddings()
    document_depths(store, ns, ["Cinderella wept.", "The prince searched.", "Rust has types."],
                    first, batch_size=2)
    other = CountingEmbeddings()
    depths = document_depths(store, ns, ["Cinderella wept.", "The prince searched.",
                                         "Integers are whole numbers.", "Floats are not."],
                             other, batch_size=2)
    assert other.calls == [2] and len(depths) == 3  # first batch reused, second recomputed


# -- grouping -----------------------------------------------------------------------

def test_summary_dips_peak_between_topics():
    summaries = ["Cinderella's stepsisters mock her and take her fine dresses.",
                 "Cinderella weeps at her mother's grave under the hazel tree.",
                 "The prince holds a festival and Cinderella's stepsisters dress for the ball.",
                 "Rust integers are signed or unsigned and have a fixed bit width.",
                 "Rust floating-point numbers are f32 or f64 with IEEE-754 semantics.",
                 "Rust integer overflow panics in debug builds and wraps in release builds."]
    dips = summary_dips(summaries, LexicalEmbeddings())
    assert len(dips) == 5 and int(np.argmax(dips)) == 2
    assert split_at_dips(6, dips, 2, 4) == [[0, 1, 2], [3, 4, 5]]


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 40), min_size=st.integers(2, 4), extra=st.integers(0, 6),
       data=st.data())
def test_split_at_dips_never_makes_a_group_of_one(n, min_size, extra, data):
    max_size = min_size + extra
    dips = data.draw(st.lists(st.floats(0, 2), min_size=n - 1, max_size=n - 1))
    groups = split_at_dips(n, dips, min_size, max_size)
    assert [i for g in groups for i in g] == list(range(n))  # contiguous, in order, all items
    count = max(1, min(-(-n // max_size), n // min_size))
    assert len(groups) == count
    if n >= 2:
        assert all(len(g) >= 2 for g in groups)
    if n >= min_size:
        assert all(len(g) >= min_size for g in groups)
    if count * max_size >= n:
        assert all(len(g) <= max_size for g in groups)


def test_split_at_dips_cuts_at_the_deepest_dips():
    dips = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9, 0.0, 0.0, 0.0, 0.0]
    assert split_at_dips(12, dips, 2, 8) == [list(range(7)), list(range(7, 12))]
    assert split_at_dips(12, [0.0] * 11, 2, 8) == [list(range(6)), list(range(6, 12))]  # even
