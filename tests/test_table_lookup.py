"""The table route on a real tree (`--model scripted --embeddings lexical`) of statement-like
tables: which questions it answers, which row it picks when a label repeats, and what it
shows within 150 tokens (`chunker/structured/table_lookup.py`)."""

from __future__ import annotations

import json

import pytest

from chunker.graph.navigator_ask import ask
from chunker.navigation.settings import NavigatorSettings
from conftest import chunker

NAV = NavigatorSettings(embeddings="lexical", budget_tokens=150, cache_embeddings=False)
REPORT = """# Quarterly results

The following table summarizes the quarter's results:

| ($ in millions, except per share amounts) | Q1 FY25 | Q1 FY24 | Change |
|---|---|---|---|
| Diluted EPS | 1.40 | 1.04 | 35 % |
| Cash provided by operations | 3,205 | 2,185 | 47 % |
| Free cash flow | 739 | 886 | (17) % |

## Segments

Revenue and operating income for the segments were as follows:

| ($ in millions) | Q1 FY25 | Q1 FY24 | Change |
|---|---|---|---|
| Revenue | | | |
| Domestic | 6,432 | 6,297 | 2 % |
| International | 1,646 | 1,476 | 12 % |
| Operating income | | | |
| Domestic | 1,982 | 2,077 | (5) % |
| International | 420 | 328 | 28 % |

Domestic results reflected higher costs at the cruise line and lower attendance after the storms.

## Streaming

Streaming revenues and operating income (loss) were as follows:

| ($ in millions) | Q1 FY25 | Q1 FY24 | Change |
|---|---|---|---|
| Revenue | 6,072 | 5,546 | 9 % |
| Operating income (loss) | 293 | (138) | nm |

Streaming revenue grew because of higher prices and more subscribers.

## Sports

Sports revenues and operating income (loss) were as follows:

| ($ in millions) | Q1 FY25 | Q1 FY24 | Change |
|---|---|---|---|
| Revenue | | | |
| ESPN | | | |
| Domestic | 4,422 | 4,073 | 9 % |
| International | 389 | 363 | 7 % |
| Operating income (loss) | | | |
| ESPN | | | |
| Domestic | 231 | 255 | (9) % |
| International | (3) | (56) | 95 % |

## Studios

Studio revenues and operating income (loss) for the first quarter of fiscal 2025 and 2024 were
as follows:

| ($ in millions) | Q1 FY25 | Q1 FY24 | Change |
|---|---|---|---|
| Revenue | 2,183 | 1,632 | 34 % |
| Operating income (loss) | 312 | (224) | nm |

## Cash

Free cash flow is cash provided by operations less investments in parks, resorts and other
property. The following table reconciles cash provided by operations to free cash flow:

| ($ in millions) | Q1 FY25 | Q1 FY24 |
|---|---|---|
| Cash provided by operations | 3,205 | 2,185 |
| Investments in parks, resorts and other property | (2,466) | (1,299) |
| Free cash flow | 739 | 886 |

## Adjustments

| ($ in millions) | Q1 FY25 | Q1 FY24 |
|---|---|---|
| Amortization of intangible assets and fair value step-up on film and television costs | 397 | 451 |
| Restructuring charges | 143 | — |

## Symbols

| Symbol | Explanation |
|---|---|
| `_` | Ignored pattern binding |
| `::path` | Path relative to the crate root |
| `..` | Right-exclusive range literal |
| `{...}` | Block expression |
| `Type {...}` | Struct literal |
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    src = root / "report.md"
    src.write_text(REPORT, encoding="utf-8")
    out = root / "out"
    proc = chunker("run", src, "--model", "scripted", "--embeddings", "lexical", "-o", out, "--json", check=0)
    assert json.loads(proc.stdout.strip().splitlines()[-1])["stats"]["records.tables"] == 8
    return out


def answer(out, question: str):
    got = ask(str(out), question, NAV)
    text = "\n".join(p["text"] for p in got.passages)
    assert got.tokens_read <= 150
    return got.route, text


def rows_shown(text: str) -> list[str]:
    """The row lines of a table answer (after each `[table-N]` line, the line that is no cell)."""
    return [line for line in text.splitlines() if not line.startswith("[") and ": " not in line]


def test_group_labels_pick_the_row_and_a_period_asks_for_a_value(out):
    route, text = answer(out, "Segments' domestic operating income in Q1 FY24?")
    assert route == "table-lookup"
    assert rows_shown(text) == ["Operating income > Domestic"] and "2,077" in text and "6,297" not in text
    route, text = answer(out, "Segments' domestic operating income in fiscal 2024?")  # no column is named so
    assert route == "table-lookup" and "2,077" in text


def test_words_that_name_the_table_do_not_name_the_row(out):
    route, text = answer(out, "How much was cash provided by operations in the first quarter of fiscal 2024 in "
                              "the reconciliation of cash provided by operations to free cash flow table?")
    assert route == "table-lookup" and rows_shown(text) == ["Cash provided by operations"] and "2,185" in text


def test_a_label_the_question_does_not_tell_apart_shows_each_row(out):
    """Two tables' `Revenue`; a caption's words of a period ("first quarter of fiscal 2024")
    are the columns', they tell no table apart."""
    route, text = answer(out, "What was revenue in the first quarter of fiscal 2024?")
    assert route == "table-lookup" and "5,546" in text and "1,632" in text


def test_group_labels_outweigh_a_row_named_by_them(out):
    route, text = answer(out, "Give me the change in Domestic ESPN Operating income (loss) from the Sports table.")
    assert route == "table-lookup" and rows_shown(text)[0] == "Operating income (loss) > ESPN > Domestic"
    assert "(9) %" in text


def test_a_symbol_written_as_a_word_and_a_shortened_label_are_named(out):
    route, text = answer(out, "What is _ used for?")
    assert route == "table-lookup" and "Ignored pattern binding" in text
    route, text = answer(out, "What does Type {...} mean?")  # not `{...}`, nor `..` inside it
    assert route == "table-lookup" and rows_shown(text)[0] == "Type {...}" and "Struct literal" in text
    route, text = answer(out, "How much was amortization of intangible assets and fair in Q1 FY25?")
    assert route == "table-lookup" and "397" in text


def test_why_questions_and_definitions_go_to_the_search(out):
    assert answer(out, "Why did streaming revenue grow in Q1 FY25?")[0] == "collapsed"
    assert answer(out, "What is free cash flow?")[0] == "collapsed"
