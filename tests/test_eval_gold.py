"""The gold parser (separators, blank lines, trailing separators) and snapping to sentence units."""


import pytest
from chunker.evaluation.gold import gold_from_text, load_gold, parse_segments

from conftest import GOLD

SET = GOLD / "3-5"  # Choi-style documents of 3-5-sentence topics, from public-domain prose
SEP = "=========="


def test_separators_blank_lines_and_trailing_separators():
    raw = f"{SEP}\nA one.\n\nA two.\n{SEP}\n{SEP}\n\n  \nB one.\n{SEP}\nC one.\nC two.\n{SEP}\n\n"
    assert parse_segments(raw) == [["A one.", "A two."], ["B one."], ["C one.", "C two."]]


def test_no_separator_is_one_segment_and_crlf_is_handled():
    assert parse_segments("x\ny\n") == [["x", "y"]]
    assert parse_segments(f"x\r\n{SEP}\r\ny\r\n") == [["x"], ["y"]]
    # a line of '=' shorter than ten is text, not a separator
    assert parse_segments("a\n=====\nb") == [["a", "=====", "b"]]


def test_empty_gold_is_refused():
    with pytest.raises(ValueError):
        gold_from_text(f"{SEP}\n\n{SEP}\n")


def test_text_units_and_masses():
    doc = gold_from_text(f"{SEP}\nA1 .\nA2 .\n{SEP}\nB1 .\n{SEP}\nC1 .\nC2 .\nC3 .\n{SEP}\n")
    assert doc.text == "A1 .\nA2 .\nB1 .\nC1 .\nC2 .\nC3 .\n"
    assert doc.masses == [2, 1, 3] and doc.boundaries == [2, 3] and doc.n_units == 6
    assert doc.offsets == [0, 5, 10, 15, 20, 25, 30]
    assert "".join(doc.units) == doc.text
    assert "".join(doc.segment_texts(doc.masses)) == doc.text
    assert doc.segment_texts([2, 1, 3])[1] == "B1 .\n"


def test_snapping_to_the_nearest_unit_boundary():
    doc = gold_from_text("aaaa\nbbbb\ncccc\ndddd\n")  # unit starts 0, 5, 10, 15; end 20
    bounds, moved = doc.snap([0, 5, 7, 8, 12, 13, 19, 20])
    # 7 -> 5 (2 vs 3), 8 -> 10, 12 -> 10, 13 -> 15, 19 -> 20 (the end: dropped); 0 and 20 ignored
    assert bounds == [1, 2, 3]
    assert moved == [0, 2, 2, 2, 2, 1]
    # a tie goes to the earlier boundary
    odd = gold_from_text("aaaa\nbbbbb\ncc\n")  # unit starts 0, 5, 11; end 14
    assert odd.snap([8]) == ([1], [3])  # 3 from 5, 3 from 11: the earlier one
    masses, _ = doc.masses_from_chars([0, 9])
    assert masses == [2, 2]


def test_choi_style_document():
    [doc] = load_gold([SET / "0.ref"])
    assert len(doc.masses) == 10 and all(3 <= m <= 5 for m in doc.masses)
    lines = [l for l in (SET / "0.ref").read_text().splitlines()
             if l.strip() and l.strip() != SEP]
    assert doc.n_units == len(lines) and doc.corpus == "3-5" and doc.name == "0"


def test_folder_natural_order_limit_and_pysbd_units():
    docs = load_gold([SET], limit=3)
    assert [d.name for d in docs] == ["0", "1", "2"]
    [by_line] = load_gold([SET / "1.ref"])
    [by_sbd] = load_gold([SET / "1.ref"], units="pysbd")
    assert by_sbd.n_units >= by_line.n_units and len(by_sbd.masses) == len(by_line.masses)
    # gold boundaries fall on the same characters either way
    assert [by_sbd.offsets[b] for b in by_sbd.boundaries] == [by_line.offsets[b] for b in by_line.boundaries]
    assert by_sbd.text == by_line.text
    with pytest.raises(FileNotFoundError):
        load_gold([GOLD / "no-such-folder"])
