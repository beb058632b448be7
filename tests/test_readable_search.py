"""The readable copy changes how an extracted summary reads, not which sentences it prefers, nor
what search finds: sentences are still judged clean by the text as written, and the collapsed
search reads an extracted summary in its source's words (a tooltip's definition, a link's target)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from chunker.document.readable import readable_copy, sentence_markup, tidy
from chunker.grounding import extractive_summary
from chunker.navigation.as_written import summary_as_written
from chunker.navigation.context_index import context_lines
from chunker.navigation.tree import open_tree

CAVEAT = """## Caveat { #caveat }

If you need to run heavy background computation in other processes, you might benefit from using bigger tools like [Celery](https://docs.celeryq.dev/en/stable/background/tasks.html).

They tend to require more complex configurations and a message queue manager, like RabbitMQ or Redis, but they run background tasks in many processes.

For small background tasks in the same process, like sending an email notification, the built-in background tasks are enough.
"""

TOOLTIP = """# Dependencies with yield { #dependencies-with-yield }

FastAPI supports dependencies that do some <dfn title="also called teardown code or cleanup code">extra steps after finishing their work</dfn>.
"""


def test_sentences_are_judged_clean_by_the_text_as_written():
    copy = readable_copy(CAVEAT, headings=False)
    # the copy alone: the sentence around the link looks like plain prose and, most central, wins
    assert "like Celery" in tidy(extractive_summary(copy, max_chars=400, max_sentences=1))
    summary = tidy(extractive_summary(copy, max_chars=400, max_sentences=1, written=sentence_markup(CAVEAT)))
    assert summary.startswith("They tend to require more complex configurations and a message queue manager")
    for markup in ("](", "{ #", "##", "https"):
        assert markup not in summary


def test_the_sentence_markup_view_keeps_a_sentences_markup_in_place():
    view = sentence_markup(CAVEAT)
    assert len(view) == len(CAVEAT) == len(readable_copy(CAVEAT, headings=False))
    assert "Caveat" not in view and "[Celery](https://docs.celeryq.dev" in view
    lines = ["Call it so:", "", "```python", "results = await some_library(with_many_arguments=True)", "```", ""]
    assert sentence_markup("\n".join(lines)) == "\n".join(lines[:2] + ["`" * len(x) for x in lines[2:]])


def test_a_code_blocks_lines_are_no_summary_sentence():
    text = ("## Results\n\n```python\nresults = await some_library(the_first_argument, the_second_argument, "
            "and_the_third_argument, with_more)\n```\n\nA library without support for await is "
            "called from a normal function, declared with def.\n")
    summary = extractive_summary(readable_copy(text, headings=False), max_chars=400, max_sentences=1,
                                 written=sentence_markup(text))
    assert tidy(summary).startswith("A library without support")


def test_search_reads_an_extracted_summary_in_its_sources_words():
    summary = tidy(readable_copy(TOOLTIP, headings=False))
    assert "cleanup" not in summary
    written = summary_as_written(summary, TOOLTIP)
    assert "teardown code or cleanup code" in written and "extra steps after finishing" in written
    assert summary_as_written("A model wrote this sentence itself.", TOOLTIP) == "A model wrote this sentence itself."


@pytest.fixture(scope="module")
def tooltip_tree(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tooltip")
    doc = tmp / "yield.md"
    doc.write_text(TOOLTIP, encoding="utf-8")
    out = tmp / "out"
    subprocess.run([sys.executable, "-m", "chunker.cli.app", "run", str(doc), "--model", "scripted",
                    "--embeddings", "lexical", "--set", 'model_tasks=["boundary"]', "-o", str(out), "-q"],
                   check=True)  # the embedded model's profile: every summary extracted
    return open_tree(out)


def test_a_tooltips_words_reach_the_index_and_not_the_summary(tooltip_tree):
    leaf = tooltip_tree.hierarchy.leaves()[0]
    assert "cleanup" not in (leaf.summary or "") and "<dfn" not in (leaf.summary or "")
    indexed = "\n".join(context_lines(tooltip_tree, leaf.id, ("summary",), 48))
    assert "cleanup code" in indexed
