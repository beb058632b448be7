"""A deterministic folder of small notes for the corpus benchmark (`bench/corpus.py notes`).

Note i (1-based) has its own seed, so the first N notes are the same whatever the size
asked: 300 to 1,500 bytes of English-like sentences on one of 40 topics, one folder per
topic; 40 % carry front matter (a title and tags), some start with a heading.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

SEED = 20240601
NOTE_FOLDERS = 40

TOPICS = ("astronomy beekeeping cycling databases economics fermentation gardening geology "
          "harbours ironwork jazz knitting lighthouses maps navigation orchards pottery "
          "quarries railways sailing typography volcanoes weaving woodland archery baking "
          "chess dentistry estuaries falconry glaciers heraldry irrigation juggling kites "
          "libraries masonry nutrition opera printing").split()
WORDS = {
    "adj": "quiet careful early bright heavy narrow patient sudden steady rough plain "
           "distant curious practical".split(),
    "noun": "method season record problem tool pattern workshop question measure habit "
            "surface signal journey lesson".split(),
    "verb": "changes reveals shapes follows supports limits explains improves".split(),
    "place": "in the northern valley|after the long winter|near the old market|"
             "during the first week|along the river|at the edge of town".split("|"),
    "tag": "draft reference howto history idea review log".split(),
}


def _sentence(rng: random.Random, topic: str) -> str:
    pick = {k: rng.choice(v) for k, v in WORDS.items()}
    forms = (
        "The {adj} {noun} of {topic} {verb} the way people work {place}.",
        "Most notes on {topic} agree that a {adj} {noun} matters more than speed.",
        "{Place}, every {noun} {verb} what we expected from {topic}.",
        "A {adj} approach to {topic} rarely {verb} the whole {noun}, but it helps.",
        "Nobody writing about {topic} should forget the {noun} that {verb} it.",
        "Is the {noun} {adj} enough to matter for {topic}, or only {place}?",
    )
    text = rng.choice(forms).format(topic=topic, Place=pick["place"].capitalize(), **pick)
    text = re.sub(r"\b([Aa]) (?=[aeiou])", r"\1n ", text)  # 'an early', not 'a early'
    return text[0].upper() + text[1:]


def note_text(i: int) -> tuple[str, str]:
    """Note number i (1-based): (rel path, text). Its own seed: the first N never change."""
    rng = random.Random(SEED * 10_007 + i)
    topic = TOPICS[(i - 1) % NOTE_FOLDERS]
    target = rng.randint(300, 1500)
    head = ""
    if rng.random() < 0.4:
        tags = ", ".join(rng.sample(WORDS["tag"], rng.randint(1, 3)))
        head = f"---\ntitle: {topic.capitalize()} note {i}\ntags: [{tags}]\n---\n\n"
    elif rng.random() < 0.5:
        head = f"# On {topic}, part {i}\n\n"
    paragraphs: list[str] = []
    while True:
        para = " ".join(_sentence(rng, topic) for _ in range(rng.randint(2, 5)))
        grown = len(_assembled(head, [*paragraphs, para]))
        if grown > target and len(_assembled(head, paragraphs)) >= 300:
            break
        if grown <= 1500:  # too long for the cap: try a shorter one
            paragraphs.append(para)
    return f"{(i - 1) % NOTE_FOLDERS + 1:02d}-{topic}/note-{i:04d}.md", _assembled(head, paragraphs)


def _assembled(head: str, paragraphs: list[str]) -> str:
    return head + "\n\n".join(paragraphs) + "\n"  # ASCII only: characters are bytes


def write_notes(dest: Path, count: int) -> int:
    total = 0
    for i in range(1, count + 1):
        rel, text = note_text(i)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        total += (dest / rel).write_bytes(text.encode()) or 0
    return total
