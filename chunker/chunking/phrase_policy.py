"""The `phrase` boundary policy: the model copies the next topic's first words verbatim (the
round-1 behaviour). No embedding signal; the fallback and the valve cut at sentence ends."""

from __future__ import annotations

from chunker.chunking.boundary import BoundaryPolicy, Question, Window
from chunker.document.tokens import count_tokens
from chunker.state.schema import ChunkerState


def starts_word(text: str, pos: int) -> bool:
    """Whether a match at `pos` begins at a word boundary (not inside a word)."""
    return pos == 0 or not (text[pos - 1].isalnum() and text[pos].isalnum())


def find_phrase(text: str, phrase: str, lo: int, hi: int) -> int | None:
    """Start of the first verbatim occurrence of `phrase` wholly inside text[lo:hi] that
    begins at a word boundary ("hird closes the" never matches inside "third")."""
    pos = text.find(phrase, lo, hi)
    while pos >= 0:
        if starts_word(text, pos):
            return pos
        pos = text.find(phrase, pos + 1, hi)
    return None


class PhrasePolicy(BoundaryPolicy):
    name = "phrase"
    reads_signal = False

    def question(self, w: Window, task: str) -> Question:
        s, text = w.state, w.units.text
        return Question(task=task, window=text[s["cursor"]:s["window_end"]],
                        lookahead=text[s["window_end"]:s["shown_end"]], extra={})

    def retry_hint(self, state: ChunkerState) -> dict[str, str]:
        return {"bad_phrase": " ".join((state.get("phrase") or "(none)").split())[:300]}

    def answered_cut(self, w: Window, limit: int) -> tuple[int, str] | None:
        s, text = w.state, w.units.text
        phrase = (s.get("phrase") or "").strip()
        if s["window_end"] >= limit and not phrase:
            return limit, "end"  # the window holds the rest of the document
        # A null or blank phrase is a miss like any other: the boundary must be named.
        if len(phrase) < w.cfg.chunking.min_boundary_chars:
            return None
        pos = find_phrase(text, phrase, s["min_end"], s["shown_end"])
        if pos is not None and w.peel is not None and not w.peel.allows(pos):
            pos = None  # inside a table, code block, formula or heading
        cap = w.cfg.chunking.max_chunk_tokens
        if pos is not None and pos > s["cursor"] and count_tokens(text[s["cursor"]:pos]) <= cap:
            return pos, "match"
        return None  # a phrase not in the text past the minimum size
