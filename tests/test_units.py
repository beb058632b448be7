import re

from chunker.document import units as units_module
from chunker.document.tokens import count_tokens, prefix_within
from chunker.document.units import Units, detection_copy, sentence_ends

_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*$")


def sentences(text: str) -> list[str]:
    ends = sentence_ends(text)
    return [text[a:b] for a, b in zip([0] + ends[:-1], ends)]


def assert_real_sentence_ends(text: str, ends: list[int]) -> None:
    """Offsets strictly increase to len(text); each end keeps its trailing whitespace and
    follows terminal punctuation or a paragraph break (never a hard line wrap)."""
    assert ends == sorted(set(ends)) and ends[0] > 0 and ends[-1] == len(text)
    for e in ends[:-1]:
        assert text[e - 1].isspace() and not text[e].isspace(), repr(text[e - 30:e + 10])
        before = text[:e].rstrip()
        assert _SENTENCE_END.search(before) or "\n\n" in text[len(before):e], repr(text[e - 30:e + 10])


def test_sentence_ends_on_a_hand_checked_text():
    text = ("Mr. Smith went to\nWashington. He came back! Did he stay?  No.\n\n"
            "A heading\n\nThe end")
    assert sentences(text) == ["Mr. Smith went to\nWashington. ", "He came back! ", "Did he stay?  ",
                               "No.\n\n", "A heading\n\n", "The end"]
    text = "Dr. Watson met Mrs. Hudson at 3.5 km from the U.S. border. They talked."
    assert sentences(text) == ["Dr. Watson met Mrs. Hudson at 3.5 km from the U.S. border. ",
                               "They talked."]


def test_hard_wrapped_lines_are_not_sentence_ends(cinderella):
    ends = sentence_ends(cinderella)
    assert_real_sentence_ends(cinderella, ends)
    assert len(ends) < cinderella.count("\n") / 2  # far fewer sentences than wrapped lines
    first = cinderella[:ends[0]]
    assert first.count("\n") >= 3  # the first sentence spans four wrapped lines
    assert first.rstrip().endswith("you.")


def test_detection_copy_keeps_length_and_paragraphs():
    text = "One line\nwrapped.\r\n\r\nNew para.\n"
    copy = detection_copy(text)
    assert len(copy) == len(text)
    assert "\n \n" in copy and "line wrapped" in copy


class SpySegmenter:
    """Records what pysbd is given; pysbd is quadratic on a long span without a sentence end."""

    def __init__(self, real):
        self.real, self.inputs = real, []

    def segment(self, block):
        self.inputs.append(len(block))
        return self.real.segment(block)


def _spy(monkeypatch) -> SpySegmenter:
    sentence_ends("Warm up. The segmenter.")  # build this thread's real segmenter once
    spy = SpySegmenter(units_module._LOCAL.segmenter)
    monkeypatch.setattr(units_module._LOCAL, "segmenter", spy)
    return spy


def test_no_punctuation_is_one_sentence_and_never_reaches_pysbd(monkeypatch):
    spy = _spy(monkeypatch)
    text = "word " * 20000
    assert sentence_ends(text) == [len(text)]  # one sentence: no end at a block cut
    assert spy.inputs == []  # blocks without terminal punctuation skip the segmenter


def test_pysbd_only_sees_bounded_blocks(monkeypatch, cinderella):
    """The structural half of "fast": pysbd's input never exceeds the block size, so the
    cost is linear in the document (timings live in bench/, not in tests)."""
    spy = _spy(monkeypatch)
    text = ("word " * 3000 + "End. ") * 6 + cinderella
    ends = sentence_ends(text)
    assert spy.inputs and max(spy.inputs) <= units_module._BLOCK_CHARS
    assert sum(spy.inputs) <= len(text)  # every character is segmented at most once
    assert_real_sentence_ends(text, ends)


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
