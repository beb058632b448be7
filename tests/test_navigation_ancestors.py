"""The `ancestors` context field: a leaf is indexed with its section's summary even when that
summary runs past `context_tokens`: never dropped, BM25 reads it whole and the embedding model
cut to what fits at a word end, after the leaf's own lines.

Before, a summary longer than `context_tokens` ended the list before it began: 730 of
fastapi-docs' 1,280 leaves and 135 of Emma's 303 were indexed with no section context at all,
and a summary that grew by a few tokens took its section's words out of the search
(bench/results/markup/nav/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunker.document.tokens import count_tokens
from chunker.navigation.as_written import summary_as_written
from chunker.navigation.context_index import ancestor_summaries, build_units, context_lines
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import open_tree
from conftest import invoke

STRINGS = Path(__file__).resolve().parent / "data" / "markdown" / "rust-book-ch08-02-strings.md"


@pytest.fixture(scope="module")
def strings(tmp_path_factory):
    out = tmp_path_factory.mktemp("ancestors") / "strings"
    proc = invoke("run", str(STRINGS), "--model", "scripted", "--embeddings", "lexical", "-o", str(out), "-q")
    assert proc.returncode == 0, proc.stderr
    return open_tree(out)


def _section_summary(tree, leaf_id: str) -> str:
    return " ".join((tree.node(tree.ancestors(leaf_id)[-2]).summary or "").split())


@pytest.mark.parametrize("context_tokens", [8, 16, 24])
def test_a_section_summary_longer_than_the_context_is_cut_not_dropped(strings, context_tokens):
    leaves = [n for n in strings.hierarchy.leaves()
              if count_tokens(_section_summary(strings, n.id)) > context_tokens]
    assert len(leaves) >= 5  # every leaf's section summary is longer than the smallest contexts
    for leaf in leaves:
        got = ancestor_summaries(strings, leaf.id, context_tokens)
        assert len(got) == 1 and got[0], leaf.id
        summary = _section_summary(strings, leaf.id)
        assert summary.startswith(got[0]) and count_tokens(got[0]) <= context_tokens
        assert summary[len(got[0]):][:1] in (" ", "")  # whole words: no word cut in two


def test_the_section_words_reach_the_search_index(strings):
    cfg = NavigatorSettings(embeddings="bm25", context_tokens=16)
    leaf = strings.hierarchy.leaves()[0]
    lines = context_lines(strings, leaf.id, ("ancestors",), cfg.context_tokens, embedded=True)
    assert lines and lines[0] != _section_summary(strings, leaf.id)
    assert _section_summary(strings, leaf.id).startswith(lines[0])  # the embedded view: cut
    _, long_texts, _, _ = build_units(strings, cfg.context_fields, cfg.piece_tokens,
                                    cfg.context_tokens)
    whole = context_lines(strings, leaf.id, ("ancestors",), cfg.context_tokens)
    assert whole == [_section_summary(strings, leaf.id)]  # BM25 reads the section's summary whole
    assert whole[0] in long_texts[f"{leaf.id}#0"]


def test_the_embedded_context_cuts_the_section_summary_before_the_leafs_own(strings):
    """The embedded prefix is cut at `context_tokens`: what goes is the section's summary (the
    least specific line), not the leaf's own summary, which the section's would push out now
    that it always fills its share."""
    cfg = NavigatorSettings(embeddings="bm25", context_tokens=64)
    _, _, short_texts, _ = build_units(strings, cfg.context_fields, cfg.piece_tokens, cfg.context_tokens)
    kept = 0
    for leaf in strings.hierarchy.leaves():
        own = summary_as_written(" ".join((leaf.summary or "").split()), leaf.original or "")
        above = ancestor_summaries(strings, leaf.id, cfg.context_tokens)
        lines = context_lines(strings, leaf.id, cfg.context_fields, cfg.context_tokens, embedded=True)
        assert lines[-len(above):] == above and own in lines
        head = short_texts[f"{leaf.id}#0"]
        if count_tokens("\n".join(lines[:lines.index(own) + 1])) <= cfg.context_tokens:
            assert own in head  # the leaf's own summary fits before the cut: it is embedded
            kept += 1
    assert kept >= 8
