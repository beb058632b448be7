"""Extractive fallbacks, grounded slugs and the fell-back advice line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunker.grounding import (GroundingPolicy, TaskCounts, check, document_overview, extractive_summary,
                               fallback_advice, grounded_slug, summary_of_summaries)
from chunker.grounding.text import words
from conftest import RUST as RUST_CHAPTERS

ROOT = Path(__file__).resolve().parents[1]
CINDERELLA = (ROOT / "examples" / "cinderella.txt").read_text(encoding="utf-8")
LINES = CINDERELLA.splitlines()
PASSAGES = ["\n".join(LINES[a:b]) for a, b in [(0, 25), (25, 43), (43, 96), (96, 163), (163, 209), (209, 239)]]
RUST = RUST_CHAPTERS / "rust-book-ch08-02-strings.md"
POLICY = GroundingPolicy()


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("max_chars", [80, 200, 400])
def test_extractive_summary_is_verbatim_within_max_chars_deterministic_and_grounded(max_chars):
    for passage in PASSAGES:
        summary = extractive_summary(passage, max_chars=max_chars)
        assert 0 < len(summary) <= max_chars
        assert summary == extractive_summary(passage, max_chars=max_chars)
        for sentence in re.split(r"(?<=[.!?]) ", summary):
            assert sentence in _flat(passage)
        verdict = check(summary, passage, task="summarize", policy=POLICY)
        assert verdict.ok, (summary, verdict)


def test_extractive_summary_prefers_whole_sentences_and_cuts_at_a_word_boundary():
    passage = PASSAGES[2]
    two = extractive_summary(passage, max_chars=400, max_sentences=2)
    one = extractive_summary(passage, max_chars=400, max_sentences=1)
    assert two[-1] in ".!?" and one[-1] in ".!?"
    assert len(one) < len(two)
    tiny = extractive_summary("The king's son waited until her father came, and then he told him that the "
                              "unknown maiden had leapt into the pigeon-house.", max_chars=40)
    assert tiny == "The king's son waited until her father"  # no word cut in half, no ellipsis


def test_extractive_summary_skips_picks_that_would_fail_the_check():
    text = "Go now. Out with her. The old miller sold his grey mare at the autumn fair in the valley."
    summary = extractive_summary(text, max_chars=30)  # only the two short sentences fit whole
    assert summary == "The old miller sold his grey"
    assert check(summary, text, task="summarize", policy=POLICY).ok


def test_extractive_summary_is_not_the_first_sentence():
    summary = extractive_summary(CINDERELLA, max_chars=400)
    assert not _flat(CINDERELLA).startswith(summary[:60])


def test_extractive_summary_avoids_markup_when_prose_exists():
    text = RUST.read_text(encoding="utf-8")
    summary = extractive_summary(text, max_chars=300)
    assert "<" not in summary and "{{" not in summary and "```" not in summary
    assert check(summary, text, task="summarize", policy=POLICY).ok


def test_no_words_give_an_empty_summary():
    assert extractive_summary("  ... \n", max_chars=100) == ""
    assert summary_of_summaries([], max_chars=100) == ""


CHILDREN = [
    "The wife of a rich man fell sick and died, and the man took another wife with two daughters.",
    "The step-sisters took cinderella's clothes away and made her sleep by the hearth in the cinders.",
    "The father brought a hazel branch from the fair, and cinderella planted it on her mother's grave.",
    "The king gave orders for a festival of three days so that his son might choose himself a bride.",
    "The pigeons helped cinderella pick the lentils out of the ashes, but the step-mother still left her at home.",
    "The king's son danced with the beautiful maiden and would dance with no other maiden.",
]


def test_block_fallback_comes_from_the_childrens_summaries_and_spans_them():
    summary = summary_of_summaries(CHILDREN, max_chars=300)
    assert summary == summary_of_summaries(CHILDREN, max_chars=300)
    assert 0 < len(summary) <= 300
    used = [i for i, child in enumerate(CHILDREN) if child in summary]
    assert len(used) == 2, summary  # whole sentences of the children
    assert used[0] < 3 <= used[1]  # one from each half of the block, not the first child twice
    assert check(summary, CHILDREN, task="synthesize", policy=POLICY).ok


def test_root_overview_describes_the_whole_document_not_its_first_passage():
    overview = document_overview(CHILDREN, max_chars=400)
    used = [i for i, child in enumerate(CHILDREN) if child in overview]
    assert len(used) == 3, overview
    assert used[0] < 2 and 2 <= used[1] < 4 and used[2] >= 4  # beginning, middle and end
    assert check(overview, CHILDREN, task="overview", policy=POLICY).ok


def test_overview_fits_max_chars_by_dropping_the_least_central():
    overview = document_overview(CHILDREN, max_chars=200)
    assert 0 < len(overview) <= 200
    assert check(overview, CHILDREN, task="overview", policy=POLICY).ok


ISSUE_SLUGS = ["cantelope-1980s-256374", "snippet-of-text-2018-34-slash-sitemap", "cinderella-story1234567890",
               "cinderella-attends-the-ball-json-2"]
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@pytest.mark.parametrize("model_slug", ISSUE_SLUGS)
@pytest.mark.parametrize("passage", [0, 2, 5])
def test_the_issues_invented_slugs_are_replaced_by_grounded_ones(model_slug, passage):
    text = PASSAGES[passage]
    slug = grounded_slug(model_slug, text)
    assert slug != model_slug and SLUG.match(slug)
    assert 1 <= len(slug.split("-")) <= 6
    text_words = set(words(text))
    for word in slug.split("-"):
        assert word in text_words, (slug, word)
    for bad in ("json", "sitemap", "1980s", "2018", "256374", "story1234567890"):
        assert bad not in slug.split("-")


def test_a_grounded_model_slug_is_kept_with_plural_and_possessive_variants():
    text = PASSAGES[1]  # the hazel branch on the mother's grave
    assert grounded_slug("Cinderella's-Hazel-Branches", text) == "cinderellas-hazel-branches"
    assert grounded_slug("hazel-branch-on-mothers-grave", text) == "hazel-branch-on-mothers-grave"
    assert grounded_slug("the hazel branch on the mother's grave planted", text, max_words=4) == \
        "the-hazel-branch-on"


def test_keyphrase_slugs_never_take_file_type_words():
    text = ("The sitemap json file lists every page. The sitemap json file is rebuilt each night by the "
            "crawler, and the crawler reads the sitemap json file first.")
    slug = grounded_slug("page-index-2019", text)
    assert slug and not {"sitemap", "json", "2019"} & set(slug.split("-"))
    assert grounded_slug("sitemap-json-file", text) == "sitemap-json-file"  # the text's own words


def test_slug_numbers_must_be_the_texts():
    text = "In 1962 the mill closed and 300 workers left the town."
    assert grounded_slug("mill-closed-1962", text) == "mill-closed-1962"
    assert grounded_slug("mill-closed-1963", text) != "mill-closed-1963"


def test_keyphrase_slug_from_the_summary_when_given():
    summary = extractive_summary(PASSAGES[2], max_chars=300)
    slug = grounded_slug(None, PASSAGES[2], summary=summary)
    assert SLUG.match(slug)
    assert set(slug.split("-")) <= set(words(summary))


def test_advice_only_when_most_outputs_fell_back():
    counts = {"rewrite": TaskCounts(kept=0, fell_back=10), "summarize": TaskCounts(kept=6, fell_back=4),
              "synthesize": TaskCounts(kept=1, fell_back=3), "slug": TaskCounts(kept=0, fell_back=0)}
    assert fallback_advice(counts, model="local") == [
        "rewrite: 10 of 10 fell back to the original text; the model is too small for rewriting, "
        "try --model qwen3:8b",
        "synthesize: 3 of 4 fell back to the children's summaries; the model is too small for "
        "synthesising blocks, try --model qwen3:8b",
    ]


def test_advice_edge_cases():
    half = {"summarize": TaskCounts(kept=5, fell_back=5)}
    assert fallback_advice(half) == []  # half is not most
    assert fallback_advice(half, policy=GroundingPolicy(grounding_advice_min_share=0.4)) != []
    big = fallback_advice({"rewrite": TaskCounts(kept=1, fell_back=9)}, model="qwen3:8b")
    assert big == ["rewrite: 9 of 10 fell back to the original text; the model is too small for rewriting, "
                   "try a model larger than qwen3:8b"]
    assert fallback_advice({"weird": TaskCounts(kept=0, fell_back=2)}) == [
        "weird: 2 of 2 fell back to the fallback; the model is too small for weird, try --model qwen3:8b"]
