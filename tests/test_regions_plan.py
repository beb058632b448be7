"""Regions planned from the document alone (`chunker/chunking/regions.py`): from headings
(merged while small, split at subsections while large, never at a fold) and from the
signal's dips (deepest first, each stretch at least the minimum); the outline every call
sees (`chunker/background/outline.py`); and the settings that keep a run in one cursor."""

from __future__ import annotations

from chunker.background.outline import render
from chunker.chunking.outline import outline_of
from chunker.chunking.regions import SentenceTokens, plan_from_dips, plan_from_sections
from chunker.config.settings import ChunkerSettings, as_recorded
from chunker.document.structure import parse_structure
from chunker.document.tokens import count_tokens
from chunker.state.records import Region, RegionPlan
from chunker.update.signature import signature_of, stale


def _book(chapters: list[int], title: str = "# Book\n\nby Someone\n\n") -> str:
    """A title that folds into its first chapter, then chapters of n paragraphs each."""
    parts = [title]
    for i, n in enumerate(chapters, start=1):
        parts.append(f"## Chapter {i}\n\n")
        parts.extend(f"Paragraph {k} of chapter {i} tells a story about the river and the mill. " * 3 + "\n\n"
                     for k in range(n))
    return "".join(parts)


def _sections(text: str, min_tokens: int, max_tokens: int):
    structure = parse_structure(text)
    return plan_from_sections(structure, outline_of(structure, text), lambda a, b: count_tokens(text[a:b]),
                              min_tokens, max_tokens)


def test_a_large_section_is_split_at_its_subsections_and_small_ones_merged():
    text = _book([6, 1, 1, 6, 6])  # one chapter is 6 paragraphs, about 280 tokens
    starts = [text.index(f"## Chapter {i}") for i in range(1, 6)]
    regions = _sections(text, min_tokens=200, max_tokens=600)
    # the book's section is too large: split at its chapters; its title folds into chapter 1
    # (no region may start where a folded heading runs into its subsection); chapters 2 and 3
    # are small: merged with the next until the region holds the minimum
    assert [(r.start, r.end) for r in regions] == [(0, starts[1]), (starts[1], starts[4]), (starts[4], len(text))]
    assert regions[0].titles == ("Book", "Chapter 1")
    assert regions[1].titles == ("Chapter 2", "Chapter 3", "Chapter 4")
    # regions tile the text
    assert regions[0].start == 0 and regions[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(regions, regions[1:]))


def test_a_section_under_the_maximum_is_one_region_and_a_small_rest_joins_the_one_before():
    text = _book([6, 6, 1])
    assert len(_sections(text, min_tokens=200, max_tokens=10_000)) == 1  # the book fits: one region
    regions = _sections(text, min_tokens=200, max_tokens=600)
    assert len(regions) == 2 and regions[-1].titles == ("Chapter 2", "Chapter 3")


def test_dips_are_cut_deepest_first_while_each_stretch_keeps_the_minimum():
    # ten sentences of ten tokens each (a token per character here), a gap after each
    ends = [10 * (i + 1) for i in range(10)]
    tokens = lambda a, b: b - a  # noqa: E731
    depths = [0.1, 0.2, 0.9, 0.1, 0.3, 0.8, 0.1, 0.2, 0.95, 0.0]
    regions = plan_from_dips(100, ends, depths, tokens, min_tokens=25)
    # 0.95 at 90 leaves 10 after it: refused; 0.9 at 30, then 0.8 at 60; 0.3 at 50 would
    # leave 10 before 60: refused; 0.2 at 80: 20 left after it: refused
    assert [(r.start, r.end) for r in regions] == [(0, 30), (30, 60), (60, 100)]
    # the same inputs, the same plan; a minimum larger than the text: one region
    assert plan_from_dips(100, ends, depths, tokens, min_tokens=25) == regions
    assert len(plan_from_dips(100, ends, depths, tokens, min_tokens=60)) == 1
    # a cut that is not allowed (inside a table, say) is never taken
    assert (30, 60) not in [(r.start, r.end) for r in
                            plan_from_dips(100, ends, depths, tokens, min_tokens=25, allowed=lambda at: at != 30)]


def test_sentence_tokens_add_up_exactly_between_sentence_ends():
    text = "One short sentence. Another one here. And a third, longer than the others."
    ends = [19, 37, len(text)]
    counted = SentenceTokens(text, ends, count_tokens)
    assert counted(0, len(text)) == sum(count_tokens(text[a:b]) for a, b in zip([0, *ends], ends))
    assert counted(19, 37) == count_tokens(text[19:37])


def _plan(n: int) -> RegionPlan:
    return RegionPlan(by="sections", regions=[
        Region(index=i, span=(100 * i, 100 * (i + 1)), titles=[f"Chapter {i + 1}"],
               summary=f"What happens in chapter {i + 1}, told in one sentence of some length.")
        for i in range(n)])


def test_the_outline_marks_the_calls_place_and_shows_both_sides_within_its_budget():
    plan = _plan(30)
    whole = render(plan, range(14, 15), budget=10_000)
    assert whole.count("\n") == 30 and "» 15. Chapter 15: What happens in chapter 15" in whole
    assert "in part 15 (»)" in whole.splitlines()[0]
    small = render(plan, range(14, 15), budget=120)
    assert count_tokens(small) <= 120
    # its own part and both neighbours in full, further ones by heading, the rest counted
    assert "» 15. Chapter 15: What" in small and "14. Chapter 14: What" in small and "16. Chapter 16: What" in small
    assert "more)" in small and "1. Chapter 1" not in small
    # the same call, the same outline (a prompt prefix the server can cache)
    assert render(plan, range(14, 15), budget=120) == small
    # a block above the regions marks every part it covers
    assert "in parts 3-5" in render(plan, range(2, 5), budget=400)


def test_an_old_record_reads_in_one_cursor_and_a_one_cursor_tree_records_no_region_setting():
    regions = ChunkerSettings(model="scripted")
    one = regions.with_(reading="one_cursor")
    assert regions.regions.reading == "regions"  # the default
    assert ChunkerSettings(model="scripted", **as_recorded({"min_chunk_tokens": 100})).regions.reading == "one_cursor"
    assert as_recorded({"reading": "regions"}) == {"reading": "regions"}
    # a tree read in one cursor says nothing of regions: its settings and signature are those
    # of a version without them, so it stays byte for byte what it was, and updates in one cursor
    assert not {"reading", "region_min_tokens", "outline_share"} & set(one.public_dict())
    assert {"reading", "region_min_tokens", "outline_share"} <= set(regions.public_dict())
    old = {k: v for k, v in one.public_dict().items()}
    assert stale(old, signature_of(old), one.public_dict()) == {"boundaries": [], "leaf_text": [], "blocks": []}
    # reading it in regions instead redoes what regions shape
    assert "reading: (absent) -> regions" in stale(old, signature_of(old), regions.public_dict())["boundaries"]
