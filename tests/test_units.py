from chunker.document.tokens import count_tokens, prefix_within
from chunker.document.units import Units, detection_copy, sentence_ends


def tiles(text, ends):
    starts = [0] + ends[:-1]
    return "".join(text[a:b] for a, b in zip(starts, ends)) == text and ends[-1] == len(text)


def test_hard_wrapped_lines_are_not_sentence_ends(cinderella):
    ends = sentence_ends(cinderella)
    assert tiles(cinderella, ends)
    first = cinderella[:ends[0]]
    assert first.count("\n") >= 3  # the first sentence spans four wrapped lines
    assert first.rstrip().endswith("you.")


def test_detection_copy_keeps_length_and_paragraphs():
    text = "One line\nwrapped.\r\n\r\nNew para.\n"
    copy = detection_copy(text)
    assert len(copy) == len(text)
    assert "\n \n" in copy and "line wrapped" in copy


def test_no_punctuation_is_one_sentence_and_fast():
    text = "word " * 20000
    ends = sentence_ends(text)
    assert tiles(text, ends)


def test_units_next_end_each_kind():
    text = "First one. Second one.\n\nThird para here.  Fourth."
    u = Units.of(text)
    assert text[:u.next_end(0, "sentence")] == "First one. "
    assert text[:u.next_end(0, "paragraph")] == "First one. Second one.\n\n"
    assert text[:u.next_end(0, "word")] == "First "
    assert u.next_end(len(text), "word") == len(text)
    assert u.last_sentence_end(0, 15) == 11


def test_word_ends_ignore_a_word_cut_by_the_limit():
    u = Units.of("alpha beta gamma")
    assert u.word_ends(0, 13) == [6, 11]
    assert u.word_ends(0, 16) == [6, 11, 16]


def test_tokens_offline_and_prefix():
    assert count_tokens("hello world") == 2
    text = "naïve café " * 50
    n = prefix_within(text, 10)
    assert count_tokens(text[:n]) <= 10 and text.startswith(text[:n]) and n > 0
