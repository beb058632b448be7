"""The grounding check on hand-made cases: faithful summaries kept, invented ones rejected
for the right reason (issue 11's examples against the Cinderella passage they were about)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunker.grounding import GroundingPolicy, Reason, check

CINDERELLA = (Path(__file__).resolve().parents[1] / "examples" / "cinderella.txt").read_text(encoding="utf-8")
LINES = CINDERELLA.splitlines()
OPENING = "\n".join(LINES[:25])  # the mother dies; the step-sisters; the cinders
BALL = "\n".join(LINES[43:96])  # the festival, the lentils, the first dance
POLICY = GroundingPolicy()

EMMA = ("Emma Woodhouse, handsome, clever, and rich, with a comfortable home and happy disposition, "
        "seemed to unite some of the best blessings of existence; and had lived nearly twenty-one years "
        "in the world with very little to distress or vex her. Sixteen years had Miss Taylor been in "
        "Mr. Woodhouse\u2019s family, less as a governess than a friend. In 1,000 days the estate "
        "earned 3.5 thousand pounds on its 2,500 acres.")

KEPT = [
    # (case, summary, evidence)
    ("faithful paraphrase", "A rich man's wife dies, and he takes another wife, whose two daughters "
                            "are beautiful but black of heart.", OPENING),
    ("names spelled as in the text", "Cinderella's step-sisters take her clothes and make her sleep "
                                      "in the cinders by the hearth.", OPENING),
    ("numbers kept", "The king's festival lasts three days, and the step-mother gives cinderella two "
                     "hours to pick the lentils out of the ashes.", BALL),
    ("multiword names and spelled numbers", "Miss Taylor spent sixteen years in Mr. Woodhouse's family, "
                                           "and Emma Woodhouse is nearly twenty-one.", EMMA),
    ("number formats normalised", "The estate of 2500 acres earned 3.5 thousand pounds in 1000 days.", EMMA),
    ("digits for spelled numbers", "Miss Taylor spent 16 years with the family of Mr. Woodhouse.", EMMA),
    ("a verbatim quote may keep its first person", "Is the stupid goose to sit in the parlor with us, they said.",
     OPENING),
    ("block evidence as a list", "The wife of a rich man dies and the man takes another wife.",
     ["The wife of a rich man fell sick and died.", "The man had taken another wife."]),
]


@pytest.mark.parametrize("case,summary,evidence", KEPT, ids=[c[0] for c in KEPT])
def test_faithful_summaries_are_kept(case, summary, evidence):
    verdict = check(summary, evidence, task="summarize", policy=POLICY)
    assert verdict.ok, verdict
    assert verdict.reasons == ()
    assert verdict.support >= POLICY.grounding_min_support


REJECTED = [
    # (case, summary, evidence, a reason it must carry)
    ("issue: the grandmother root summary", "The original version was told to me by my grandmother, who had "
     "it made for her when she first read it.", CINDERELLA, Reason.FIRST_PERSON),
    ("issue: the grandmother root summary is meta talk too", "The original version was told to me by my "
     "grandmother, who had it made for her when she first read it.", CINDERELLA, Reason.META_TALK),
    ("issue: nobody falls ill", "The story of the two sisters. It's about how they fell ill and needed to "
     "find ways out.", OPENING, Reason.LOW_SUPPORT),
    ("issue: 'it's about' is meta talk", "The story of the two sisters. It's about how they fell ill and "
     "needed to find ways out.", OPENING, Reason.META_TALK),
    ("invented name", "Cinderella's fairy godmother, Prince Charming and Anastasia go to the festival.",
     BALL, Reason.UNSUPPORTED_NAME),
    ("invented multiword name", "Emma Taylor had lived nearly twenty-one years with Mr. Woodhouse.",
     EMMA, Reason.UNSUPPORTED_NAME),
    ("invented year", "In 1812 the king gave orders for a festival to which the step-sisters were invited.",
     BALL, Reason.UNSUPPORTED_NUMBER),
    ("invented spelled number", "The king gave orders for a festival of seven days for his son.",
     BALL, Reason.UNSUPPORTED_NUMBER),
    ("wrong figure", "Miss Taylor had been sixteen years in the family and the estate earned 4.5 thousand "
     "pounds.", EMMA, Reason.UNSUPPORTED_NUMBER),
    ("summary of another passage", "The king's son dances with the beautiful maiden at the festival, and "
     "the step-mother empties lentils into the ashes.", OPENING, Reason.LOW_SUPPORT),
    ("meta talk", "This passage describes how the maiden wept at her mother's grave.", OPENING,
     Reason.META_TALK),
    ("the author", "The author tells how the maiden wept at her mother's grave.", OPENING, Reason.META_TALK),
    ("first person plural", "We learn that the maiden wept at her mother's grave every day.", OPENING,
     Reason.FIRST_PERSON),
    ("template placeholder", "{ document_content }", OPENING, Reason.PLACEHOLDER),
    ("ellipsis only", "...", OPENING, Reason.PLACEHOLDER),
    ("bracket placeholder", "[summary] The maiden wept at her mother's grave.", OPENING, Reason.PLACEHOLDER),
    ("lorem ipsum", "Lorem ipsum dolor sit amet, the maiden wept.", OPENING, Reason.PLACEHOLDER),
    ("json", '{"summary": "The maiden wept at her mother\'s grave."}', OPENING, Reason.MARKUP),
    ("html", "<p>The maiden wept at her mother's grave.</p>", OPENING, Reason.MARKUP),
    ("url and file name", "The maiden wept at the grave, see https://example.com/sitemap.xml", OPENING,
     Reason.MARKUP),
    ("file-type word", "Cinderella attends the ball json sitemap", BALL, Reason.MARKUP),
    ("too few words", "Cinderella.", OPENING, Reason.TOO_SHORT),
    ("empty", "   ", OPENING, Reason.EMPTY),
]


@pytest.mark.parametrize("case,summary,evidence,reason", REJECTED, ids=[c[0] for c in REJECTED])
def test_invented_summaries_are_rejected_for_the_right_reason(case, summary, evidence, reason):
    verdict = check(summary, evidence, task="summarize", policy=POLICY)
    assert not verdict.ok
    assert reason in verdict.reasons, verdict


def test_unsupported_names_and_numbers_are_listed_as_written():
    verdict = check("In 1812 Prince Charming and Mr. Knightley met cinderella at the festival after 2 hours.",
                    BALL, task="summarize", policy=POLICY)
    assert verdict.unsupported_names == ("Prince Charming", "Mr. Knightley")
    assert verdict.unsupported_numbers == ("1812",)  # "2 hours" is in the passage (spelled)


def test_a_meta_phrase_the_evidence_itself_uses_is_allowed():
    evidence = "In this chapter we define strings. This chapter covers String and &str."
    assert check("This chapter covers String and &str.", evidence, task="summarize", policy=POLICY).ok


def test_markup_the_evidence_contains_is_allowed():
    evidence = "Use `format!(\"{}\", s)` to build a `String` from parts; `push_str` appends a slice."
    assert check("`push_str` appends a slice to a `String`.", evidence, task="summarize", policy=POLICY).ok


def test_first_person_is_kept_in_a_rewrite_of_first_person_text_only():
    memoir = "I was born in Ohio in 1950. My father worked at the mill, and we moved to Chicago in 1962."
    rewrite = "I was born in Ohio in 1950; my father worked at the mill and we moved to Chicago in 1962."
    assert check(rewrite, memoir, task="rewrite", policy=POLICY).ok
    summary = check(rewrite, memoir, task="summarize", policy=POLICY)
    assert Reason.FIRST_PERSON in summary.reasons
    third = "The narrator was born in Ohio in 1950 and moved to Chicago in 1962."
    assert check(third, memoir, task="summarize", policy=POLICY).ok


def test_thresholds_come_from_the_policy():
    summary = "The maiden wept at her mother's grave and the man took a wife from the city."
    strict = GroundingPolicy(grounding_min_support=0.99)
    lenient = GroundingPolicy(grounding_min_support=0.5)
    assert Reason.LOW_SUPPORT in check(summary, OPENING, task="summarize", policy=strict).reasons
    assert check(summary, OPENING, task="summarize", policy=lenient).ok
    names = GroundingPolicy(grounding_max_unsupported_names=1)
    assert check("Anastasia wept at her mother's grave every day.", OPENING, task="summarize", policy=names).ok
