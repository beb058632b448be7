"""The consistency checks on statement-like tables (`structured.checks`, `structured.prose`):
a figure put one unit off is found, the untouched text raises nothing. The tables are laid out
as financial statements are: unlabelled subtotals, `..., net` rows, totals of totals, a total
that names its group, a total across an `Add (subtract):` label; sentences that name a row by
its label and its group labels."""

from __future__ import annotations

import pytest

from chunker.document.structure import parse_structure
from chunker.structured.extract import build_records

SEGMENTS = """# Results

Segment revenue and operating income were as follows:

| ($ in millions) | 2024 | 2023 | Change |
|---|---|---|---|
| Revenue | | | |
| Parks & Experiences | | | |
| Domestic | 6,432 | 6,297 | 2 % |
| International | 1,646 | 1,476 | 27 % |
| Consumer Products | 1,337 | 1,359 | (2) % |
|  | 9,415 | 9,132 | 3 % |
| Operating income | | | |
| Parks & Experiences | | | |
| Domestic | 1,982 | 2,077 | (5) % |
| International | 420 | 328 | 28 % |
| Sports | 708 | 700 | 1 % |
|  | 3,110 | 3,105 | — % |

International Parks & Experiences operating income increased 28%. Domestic Parks & Experiences
operating income declined 5%. Sports: Operating income rose to $708 million.

The segments' revenue was as follows:

| ($ in millions) | 2024 | 2023 | Change |
|---|---|---|---|
| Experiences | 9,415 | 9,132 | 3 % |
| Studios | 2,183 | 1,632 | 34 % |

# Balance sheet

| ($ in millions) | 2024 | 2023 |
|---|---|---|
| Borrowings | 38,688 | 38,970 |
| Other liabilities | 10,437 | 10,851 |
| Equity | | |
| Common stock | 58,868 | 58,592 |
| Retained earnings | 50,468 | 49,722 |
| Total shareholders' equity | 109,336 | 108,314 |
| Noncontrolling interests | 4,806 | 4,826 |
| Total equity | 114,142 | 113,140 |
| Total liabilities and equity | 163,267 | 162,961 |

# Other

| ($ in millions) | 2024 | 2023 |
|---|---|---|
| Sports | (1) | — |
| Experiences | | |
| Domestic | (1,786) | (571) |
| International | (293) | (244) |
| Total Experiences | (2,079) | (815) |

| ($ in millions) | 2024 | 2023 |
|---|---|---|
| Interest expense | (487) | (528) |
| Interest income | 120 | 282 |
| Interest expense, net | (367) | (246) |

| ($ in millions) | 2024 | 2023 |
|---|---|---|
| Income before income taxes | 3,660 | 2,871 |
| Add (subtract): | | |
| Corporate expenses | 460 | 308 |
| Amortization | 397 | 451 |
| Total segment operating income | 4,517 | 3,630 |
"""


def checks(text: str):
    return build_records(text, parse_structure(text)).checks


def test_the_untouched_statements_raise_nothing():
    assert checks(SEGMENTS) == []


@pytest.mark.parametrize("old, new", [
    ("|  | 9,415 | 9,132 | 3 % |", "|  | 9,416 | 9,132 | 3 % |"),  # an unlabelled subtotal
    ("| Total liabilities and equity | 163,267 |", "| Total liabilities and equity | 163,268 |"),  # totals of totals
    ("| Total Experiences | (2,079) |", "| Total Experiences | (2,080) |"),  # its group only: not + Sports (1)
    ("| Interest expense, net | (367) |", "| Interest expense, net | (368) |"),  # `..., net`
    ("| Total segment operating income | 4,517 |", "| Total segment operating income | 4,518 |"),  # across `Add:`
])
def test_a_total_one_unit_off_is_found_at_its_cell(old, new):
    assert old in SEGMENTS
    text = SEGMENTS.replace(old, new)
    found = [c for c in checks(text) if c.kind == "table-total"]
    at = text.index(new) + new.index(new.split("|")[2].strip())
    assert found and any(loc.span[0] == at for c in found for loc in c.locations)


@pytest.mark.parametrize("old, new, said", [
    ("increased 28%", "increased 29%", "29%"),  # the row of its label and its group labels, not `Experiences`
    ("declined 5%", "declined 6%", "6%"),  # a fall is the table's negative figure; one unit off is close
    ("rose to $708 million", "rose to $709 million", "$709 million"),  # a short label, its group label named
])
def test_a_prose_number_one_unit_off_is_found(old, new, said):
    text = SEGMENTS.replace(old, new)
    found = [c for c in checks(text) if c.kind == "table-mismatch"]
    assert [text[slice(*c.locations[0].span)] for c in found] == [said]


RECONCILED = """# Earnings per share

The following table reconciles reported diluted EPS to diluted EPS excluding certain items:

| ($ in millions except EPS) | Pre-Tax Income | Tax Expense | After-Tax Income | Diluted EPS |
|---|---|---|---|---|
| As reported | 3,660 | (1,016) | 2,644 | 1.40 |
| Exclude: | | | | |
| Restructuring charges | 143 | 213 | 356 | 0.20 |
| Amortization of intangible assets | 397 | (93) | 304 | 0.16 |
| Excluding certain items | 4,200 | (896) | 3,304 | 1.76 |

| Per share | 2024 | 2023 |
|---|---|---|
| Basic | 1.41 | 1.04 |
| Diluted | 1.40 | 1.04 |

Diluted earnings per share increased to $1.40 from $1.04.

# Capital expenditures

Investments in property were as follows:

| ($ in millions) | 2024 | 2023 |
|---|---|---|
| Parks | (2,079) | (815) |
| Corporate | (387) | (484) |
| Total investments in property | (2,466) | (1,299) |

Capital expenditures increased to $2.5 billion from $1.3 billion. Visits rose from 5 to 6 per year.

# Visitors

| Region | Visitors (thousands) | Average stay (days) |
|---|---|---|
| North | 100 | 10.0 |
| South | 200 | 15.0 |
| All regions | 300 | 12.5 |
"""


def test_untouched_reconciliations_and_period_pairs_raise_nothing():
    # `All regions` adds up its visitors but not its average stay: an average, not a failed sum
    assert checks(RECONCILED) == []


@pytest.mark.parametrize("old, new", [
    ("| Excluding certain items | 4,200 |", "| Excluding certain items | 4,201 |"),  # three other columns add up
    ("| Excluding certain items | 4,200 | (896) | 3,304 | 1.76 |", "| Excluding certain items | 4,200 | (896) | 3,304 | 1.77 |"),
    ("| All regions | 300 |", "| All regions | 301 |"),  # no column adds up any more: nothing to read it as a sum
])
def test_a_sum_without_a_total_label_is_checked_when_its_other_columns_add_up(old, new):
    text = RECONCILED.replace(old, new)
    found = [c for c in checks(text) if c.kind == "table-total"]
    changed = new.split("|")[-2].strip()
    at = text.index(new) + new.rindex(changed)
    if "All regions" in old:
        assert found == []
    else:
        assert [loc.span[0] for c in found for loc in c.locations[:1]] == [at]


@pytest.mark.parametrize("old, new, said", [
    ("increased to $2.5 billion from", "increased to $2.6 billion from", "$2.6 billion"),  # named by its section
    ("increased to $1.40 from", "increased to $1.41 from", "$1.41"),  # `Basic` holds both, `Diluted` is named
    ("from $1.3 billion.", "from $1.4 billion.", "$1.4 billion"),  # the earlier period off
])
def test_a_from_to_pair_is_read_as_one_rows_two_periods(old, new, said):
    assert old in RECONCILED
    text = RECONCILED.replace(old, new)
    found = [c for c in checks(text) if c.kind == "table-mismatch"]
    assert {text[slice(*c.locations[0].span)] for c in found} == {said}


NAMED = """# Subscribers

Paid subscribers at:

| (in millions) | 2024 | 2023 |
|---|---|---|
| Streaming | | |
| Domestic | 56.8 | 56.0 |
| International | 67.8 | 69.3 |
| Total Streaming | 124.6 | 125.3 |
| Equity in the income of investees | 13 | 12 |
| Other | 1.1 | 1.2 |

Highlights:
◦ 125 million Streaming subscribers, a decrease of 0.7 million vs. the prior year
◦ Operating income rose to $60 million
◦ 1.0 other markets were added
◦ Domestic advertising revenue up 15% vs. the prior year

We began recognizing our share in “Equity in the income of investees.” Results include 14 new parks.
Equity in the income of investees was positive after November 14, 2024.

# Results

| ($ in millions) | 2024 | 2023 |
|---|---|---|
| Operating income | 5,000 | 4,000 |
| Equity in the loss of the Nordic joint venture | (33) | — |
| Restructuring and impairment charges | (143) | — |
| Net income | 4,824 | 4,000 |

Equity loss from the Nordic JV of $33 million reflects purchase accounting.

# Restructuring and Impairment Charges

In the current year, the Company recorded a $143 million loss in connection with the sale of Nordic
Pictures. Costs of $150 million and $140 million are expected next year.
"""


def test_untouched_prose_naming_rows_otherwise_raises_nothing():
    # `$60 million` / `◦ Domestic ...`: a label on the next line of a list is not the number's;
    # `investees.” Results ...`: a sentence ends there; `November 14`: a day, not the row's `13`;
    # `1.0 other markets`: a short one-word label (`Other`) names too much prose to count alone
    assert checks(NAMED) == []


@pytest.mark.parametrize("old, new, said", [
    ("◦ 125 million Streaming", "◦ 126 million Streaming", "126 million"),  # the label after the number, a total named by its group
    ("Nordic JV of $33 million", "Nordic JV of $34 million", "$34 million"),  # the label's words, `JV` its initials
    ("Nordic JV of $33 million", "Nordic joint venture of $34 million", "$34 million"),  # the words in another order
    ("recorded a $143 million loss", "recorded a $144 million loss", "$144 million"),  # the section's heading
])
def test_prose_naming_a_row_otherwise_is_found(old, new, said):
    assert old in NAMED
    text = NAMED.replace(old, new)
    found = [c for c in checks(text) if c.kind == "table-mismatch"]
    assert {text[slice(*c.locations[0].span)] for c in found} == {said}


def test_the_heading_names_the_row_of_a_sentence_with_one_number_only():
    # several figures in one sentence speak of more than the heading's quantity
    text = NAMED.replace("Costs of $150 million and $140 million", "Costs of $150 million and $145 million")
    assert checks(text) == []
