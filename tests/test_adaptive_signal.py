"""The document's own block and cutoff (issue 22): the similarity half-life follows the topic
length, the contrast cutoff offers the topic shifts of long topics and not their inner dips,
and both are stored with the depths and read back on resume."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from chunker.config.settings import ChunkerSettings
from chunker.embeddings import SignalSettings, document_signal
from chunker.embeddings.adaptive import block_for, half_life, standout_cutoff
from chunker.embeddings.cache import DEPTHS_KEY, _sha, drop_vectors
from chunker.embeddings.signal import depths_of, own_count_gaps, signal_of, standout_gaps
from chunker.state.store import RunStore


def topics(length: int, count: int = 12, seed: int = 0, shared: float = 0.0, dim: int = 64):
    """Sentence vectors of `count` topics of `length` sentences: a random direction each (plus
    `shared` x one common direction: topics that are alike), with noise that puts the cosine
    of neighbours at about 0.2-0.3, as MiniLM's is for prose; and the gaps between topics."""
    rng = np.random.default_rng(seed)
    common = rng.normal(size=dim)
    common /= np.linalg.norm(common)
    rows, ends = [], []
    for _ in range(count):
        topic = rng.normal(size=dim)
        topic = topic / np.linalg.norm(topic) + shared * common
        rows += [topic + 1.6 * rng.normal(size=dim) / np.sqrt(dim) for _ in range(length)]
        ends.append(len(rows) - 1)
    return np.asarray(rows, dtype=np.float32), set(ends[:-1])


def test_the_half_life_is_about_half_a_topic():
    for length, lo, hi in ((4, 1.5, 3.2), (6, 2.5, 4.2), (10, 4.0, 6.5)):
        lives = [half_life(topics(length, seed=s)[0]) for s in range(3)]
        assert all(lo <= h <= hi for h in lives), (length, lives)
    assert half_life(np.ones((3, 4))) is None  # too short to say
    assert block_for(None) == 2 and block_for(2.49) == 2 and block_for(2.5) == 3


def test_long_topics_offer_their_shifts_and_not_their_inner_dips():
    for seed in range(3):
        vectors, shifts = topics(10, seed=seed)
        signal = signal_of(vectors)
        got = set(standout_gaps(signal.depths, standout_cutoff(signal, 0.5)))
        assert signal.window >= 4
        assert len(got & shifts) >= len(shifts) - 1 and len(got - shifts) <= 1
        # the rule issue 10 chose on 3-5-sentence topics offers every dip inside these
        old = set(own_count_gaps(depths_of(vectors, SignalSettings(window=2))))
        assert len(old) >= 2 * len(shifts)


def test_short_topics_keep_their_shifts():
    for seed in range(3):
        vectors, shifts = topics(4, seed=seed)
        signal = signal_of(vectors)
        got = set(standout_gaps(signal.depths, standout_cutoff(signal, 0.5)))
        assert signal.window <= 3 and len(got & shifts) >= len(shifts) - 3 and len(got - shifts) <= 2


def test_the_cutoff_follows_how_alike_the_topics_are():
    apart, shifts = topics(10, seed=1)
    alike, same_shifts = topics(10, seed=1, shared=1.0)
    a, b = signal_of(apart), signal_of(alike)
    assert standout_cutoff(b, 0.5) < 0.8 * standout_cutoff(a, 0.5)
    assert set(standout_gaps(b.depths, standout_cutoff(b, 0.5))) >= same_shifts - {min(same_shifts)}
    assert standout_cutoff(signal_of(apart, SignalSettings("rank", 3)), 0.5) is None  # ranks: no scale


class Rows:
    """An embeddings provider over fixed rows, counting its calls."""

    def __init__(self, rows):
        self.rows, self.calls = rows, 0

    def embed_documents(self, texts):
        self.calls += 1
        return [self.rows[int(t.split()[1])].tolist() for t in texts]


def test_the_block_and_contrast_are_stored_and_read_back(tmp_path):
    vectors, _ = topics(8, count=6)
    texts = [f"sentence {i}" for i in range(len(vectors))]
    store = SqliteStore(sqlite3.connect(str(tmp_path / "s.sqlite"), check_same_thread=False,
                                        isolation_level=None))
    store.setup()
    if True:  # a real SQLite store, as a run has
        emb = Rows(vectors)
        first = document_signal(store, ("e",), texts, emb, batch_size=8)
        again = document_signal(store, ("e",), texts, emb, batch_size=8)
        assert emb.calls == 6 and again == first  # the second is one read
        assert first.window == block_for(first.half_life) and first.contrast > 0
        record = store.get(("e",), DEPTHS_KEY).value
        assert record["signal"] == "tiling:auto" and record["window"] == first.window
        # a record as the code before the derived block wrote it (its hash of method and
        # window, no block or contrast) is read, not recomputed: its fixed window, no contrast
        fixed = SignalSettings("rank", 3)
        old = document_signal(store, ("f",), texts, emb, signal=fixed)
        stored = store.get(("f",), DEPTHS_KEY).value
        store.put(("f",), DEPTHS_KEY, {"sha": _sha(texts, "rank", "3"), "signal": "rank:3", "f32": stored["f32"]})
        drop_vectors(store, ("f",), len(texts), batch_size=8)
        calls = emb.calls
        assert document_signal(store, ("f",), texts, emb, signal=fixed, batch_size=8) == old
        assert emb.calls == calls and (old.window, old.contrast) == (3, None)


@pytest.mark.parametrize("provider, cutoff, rule", [
    ("local", "contrast", "contrast"), ("local", "peak_std", "peak_std"), ("lexical", "contrast", "peak_std")])
def test_run_peaks_follow_the_cutoff_setting(provider, cutoff, rule, monkeypatch):
    from chunker.chunking import candidates
    from chunker.embeddings.adaptive import DocumentSignal

    vectors, _ = topics(10, count=8)
    # 2-sentence blocks on 10-sentence topics: there the two rules disagree
    got = signal_of(vectors, SignalSettings("rank", 3) if provider == "lexical" else SignalSettings(window=2))
    monkeypatch.setattr(candidates, "run_signal", lambda rs, cfg, doc: DocumentSignal(*got.__dict__.values()))
    cfg = ChunkerSettings(model="scripted", embeddings=provider, candidate_cutoff=cutoff)
    peaks = candidates.run_peaks(RunStore(InMemoryStore(), "run"), cfg, "doc")
    if rule == "contrast":
        assert peaks == frozenset(standout_gaps(got.depths, standout_cutoff(got, 0.5)))
    else:
        assert peaks == frozenset(own_count_gaps(got.depths, cfg.chunking.candidate_peak_std))
    if provider == "local":
        assert set(own_count_gaps(got.depths)) != set(standout_gaps(got.depths, standout_cutoff(got, 0.5)))
