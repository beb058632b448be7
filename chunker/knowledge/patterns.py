"""Where a text defines a term, found without a model: a glossary entry (`**X**: ...`, a
definition list), a definition sentence ("X is a ...", "X means / refers to / stands for ...",
"X, defined as ..."), an acronym and its expansion ("Large Language Model (LLM)", an
`<abbr title="...">`), a heading that asks for the term ("What is a Stream?"), and the first
bold or italic use of a term (italic: always, the convention of books; bold: in a sentence
that defines).

Each finding is a `Candidate`: the term as written, its span, the definition's span (a span of
the text: definitions are always extractive here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunker.knowledge.syntax import CodeMap, Heading

STOP = frozenset("""a an the this that these those it its they them there here then than and or
but not no nor so to of in on at by for with from as is are was were be been being do does did
has have had all any some each every only very just also more most less least much many few
one two first last next note tip warning info danger example examples important see yes
now new other same such own i you we he she me my your our his her their why what how when
where which who whom whose if else true false none null can may must should would could will
shall might done well really actually exactly always never something anything everything
nothing even else still already again""".split())

SENT_START = r"(?:(?<=\n)|(?<=[.!?:] )|(?<=[.!?]\) )|\A)"
QUOTED = r"(?:\*\*|__|\*|_|\"|\u201c)(?P<t>[^*_\"\u201d\n]{2,60}?)(?:\*\*|__|\*|_|\"|\u201d)"
VERB = r"(?:is|are|means|refers to|stands for|is defined as|are defined as|is short for|describes)"
SENTENCE_QUOTED = re.compile(SENT_START + r"(?:(?:An?|The)\s+)?(?:term\s+)?" + QUOTED
                             + r"(?:\s*\([^)\n]{1,40}\))?(?:\s+\w+)?,?\s+" + VERB + r"\b")
SENTENCE_GENERIC = re.compile(SENT_START + r"(?:An?)\s+(?P<t>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})"
                              r"\s+(?:is|are)\s+(?:a|an|the|any|one)\b")
ADVERB = r"(?:\s+(?:just|simply|here|also|basically|actually|normally|commonly|usually|generally))?"
SENTENCE_ACRONYM = re.compile(SENT_START + r"(?P<t>[A-Z][A-Z0-9]{1,7})s?\s+(?:is|are)\s+(?:a|an|the)\b")
SENTENCE_MEANS = re.compile(SENT_START + r"(?:(?:An?|The)\s+)?(?P<t>[A-Z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}?)"
                            + ADVERB + r"\s+(?:means|refers to|stands for|is defined as|is short for)\b")
DEFINED_AS = re.compile(r"(?:" + QUOTED + r"|(?P<t2>\b[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})),\s+"
                        r"(?:defined as|also called|also known as)\b")
CALLED = re.compile(r"\b(?:is|are)\s+(?:called|known as|named)\s+(?:an?\s+|the\s+)?" + QUOTED)
GLOSSARY = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)(?P<t>[^*_\n]{1,60}?)(?::)?(?:\*\*|__)"
                      r"[ \t]*(?::|\u2014|\u2013| - )[ \t]*(?P<d>\S[^\n]*)", re.M)
DEFLIST = re.compile(r"^(?P<t>[^\n:]{1,60})\n:[ \t]+(?P<d>\S[^\n]*)", re.M)
GLOSSARY_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+(?P<t>[^\n:*]{1,60}?)[ \t]*(?::|\u2014|\u2013| - )"
                           r"[ \t]*(?P<d>\S[^\n]*)", re.M)
GLOSSARY_HEADING = re.compile(r"\b(?:glossary|definitions?|terms|terminology|vocabulary|key concepts)\b", re.I)
WHAT_IS = re.compile(r"^(?:what\s+(?:is|are)\s+(?:an?\s+|the\s+)?)(?P<t>.+?)\??$", re.I)
ITALIC = re.compile(r"(?<![\w*_\\])(?P<m>\*|_)(?P<t>[A-Za-z][\w'\u2019 -]{1,50}?)(?P=m)(?![\w*_])")
BOLD = re.compile(r"(?<![\w*_\\])(?P<m>\*\*|__)\"?(?P<t>[A-Za-z][\w'\u2019 .-]{1,50}?)\"?(?P=m)(?![\w*_])")
DEFINING_WORDS = re.compile(r"\b(?:is|are|means|refers? to|called|stands? for|defined?|known as)\b")
ACRONYM_AFTER = re.compile(r"\((?P<acr>[A-Z][A-Za-z0-9&/]{1,9}?)(?P<pl>s)?\)")
ACRONYM_BEFORE = re.compile(r"\b(?P<acr>[A-Z][A-Z0-9&/]{1,9})(?P<pl>s)?\s+\((?P<exp>[A-Za-z][\w -]{3,80})\)")
ABBR = re.compile(r"<abbr\s+title=\"(?P<exp>[^\"]+)\"\s*>(?P<acr>[^<]{1,40})</abbr>", re.I)
WORD = re.compile(r"[A-Za-z][\w-]*")


@dataclass(frozen=True)
class Candidate:
    term: str
    term_span: tuple[int, int]
    definition: tuple[int, int]
    how: str
    alias: str | None = None  # an acronym's expansion, or the acronym of an expansion


SENT_END = re.compile(r"[.!?][\"\u201d)]?\s+")
SENT_STOP = re.compile(r"[.!?](?=[\"\u201d)]?(?:\s|$))|\n\s*\n")


def sentence_at(text: str, start: int, limit: int = 400) -> tuple[int, int]:
    """The sentence holding `start`: back to the previous sentence end or blank line, on to
    the next sentence end (at most `limit` characters on)."""
    lo = text.rfind("\n\n", 0, start)
    lo = 0 if lo < 0 else lo + 2
    for m in SENT_END.finditer(text, lo, start):
        lo = m.end()
    m = SENT_STOP.search(text, start)
    hi = len(text) if m is None else (m.end() if m.group().startswith((".", "!", "?")) else m.start())
    return lo, min(hi, start + limit)


def clean(term: str) -> str:
    term = " ".join(term.replace("\u2019", "'").strip(" \t\"'\u201c\u201d*_`.,:;").split())
    return re.sub(r"\s+(?:for|about|used for|good for|in|of)$", "", term)


def plausible(term: str) -> bool:
    words = WORD.findall(term)
    if not words or len(words) > 5 or len(term) > 60 or re.search(r"[\[\](){}<>=|\\`]|://", term):
        return False
    if all(w.casefold() in STOP for w in words):
        return False
    if words[0].casefold() in STOP and len(words) == 1:
        return False
    return len(term) >= 2 and not term[0].isdigit() and any(len(w) > 1 for w in words)


class Finder:
    """Every candidate of one file's text."""

    def __init__(self, text: str, code: CodeMap, headings: list[Heading]):
        self.text, self.code, self.headings = text, code, headings

    def _ok(self, start: int, end: int) -> bool:
        return not self.code.in_code(start, end)

    def all(self) -> list[Candidate]:
        return [*self.glossary(), *self.sentences(), *self.acronyms(), *self.what_is(), *self.emphasis()]

    def glossary(self) -> list[Candidate]:
        out = []
        for m in GLOSSARY.finditer(self.text):
            if self._ok(m.start(), m.end()) and plausible(clean(m.group("t"))):
                out.append(Candidate(clean(m.group("t")), m.span("t"), (m.start("t"), m.end("d")), "glossary"))
        for m in DEFLIST.finditer(self.text):
            if self._ok(m.start(), m.end()) and plausible(clean(m.group("t"))):
                out.append(Candidate(clean(m.group("t")), m.span("t"), (m.start("t"), m.end("d")), "glossary"))
        for start, end in self._glossary_sections():
            for m in GLOSSARY_ITEM.finditer(self.text, start, end):
                if self._ok(m.start(), m.end()) and plausible(clean(m.group("t"))):
                    out.append(Candidate(clean(m.group("t")), m.span("t"), (m.start("t"), m.end("d")),
                                         "glossary"))
        return out

    def _glossary_sections(self) -> list[tuple[int, int]]:
        out = []
        for i, h in enumerate(self.headings):
            if GLOSSARY_HEADING.search(h.text):
                end = next((n.start for n in self.headings[i + 1:] if n.level <= h.level), len(self.text))
                out.append((h.start, end))
        return out

    def sentences(self) -> list[Candidate]:
        out = []
        for pattern in (SENTENCE_QUOTED, SENTENCE_GENERIC, SENTENCE_ACRONYM, SENTENCE_MEANS, DEFINED_AS, CALLED):
            for m in pattern.finditer(self.text):
                group = "t" if m.group("t") is not None else "t2"
                term = clean(m.group(group))
                if not self._ok(m.start(group), m.end(group)) or not plausible(term):
                    continue
                out.append(Candidate(term, m.span(group), sentence_at(self.text, m.start(group)), "sentence"))
        return out

    def acronyms(self) -> list[Candidate]:
        out = []
        for m in ACRONYM_AFTER.finditer(self.text):
            if not self._ok(m.start(), m.end()):
                continue
            acr = m.group("acr")
            found = _expansion_before(self.text, m.start(), acr)
            if found:
                (es, ee), expansion = found
                sentence = sentence_at(self.text, es)
                out.append(Candidate(expansion, (es, ee), sentence, "acronym", alias=acr))
        for m in ACRONYM_BEFORE.finditer(self.text):
            exp = m.group("exp").strip()
            if self._ok(m.start(), m.end()) and _initials_match(exp.split(), m.group("acr")):
                out.append(Candidate(exp, m.span("exp"), sentence_at(self.text, m.start()), "acronym",
                                     alias=m.group("acr")))
        for m in ABBR.finditer(self.text):
            if not self._ok(m.start(), m.end()):
                continue
            acr = clean(re.sub(r"<[^>]+>", "", m.group("acr")))
            expansion = m.group("exp").split(":")[0].strip()
            if not plausible(acr):
                continue
            if acr.endswith("s") and acr[:-1].isupper():
                acr = acr[:-1]
            out.append(Candidate(acr, m.span("acr"), m.span("exp"), "acronym",
                                 alias=expansion if plausible(expansion) else None))
        return out

    def what_is(self) -> list[Candidate]:
        out = []
        for i, h in enumerate(self.headings):
            m = WHAT_IS.match(h.text)
            if not m or not plausible(clean(m.group("t"))):
                continue
            line_end = self.text.find("\n", h.start)
            body = re.compile(r"\n\s*\n(?P<p>[^\n#`<{|>-][^\n]*)").search(self.text, line_end if line_end >= 0 else h.start)
            if body is None:
                continue
            start = body.start("p")
            span = sentence_at(self.text, start)
            term = clean(m.group("t"))
            at = self.text.find(term, h.start)
            out.append(Candidate(term, (at, at + len(term)) if 0 <= at < line_end else (h.start, line_end),
                                 span, "heading"))
        return out

    def emphasis(self) -> list[Candidate]:
        out = []
        seen: set[str] = set()
        for pattern, how in ((ITALIC, "emphasis"),):  # bold marks stress too often: only italic
            for m in pattern.finditer(self.text):
                term = clean(m.group("t"))
                key = term.casefold()
                if key in seen or not plausible(term) or not self._ok(m.start(), m.end()):
                    continue
                words = key.split()
                if words[0] in STOP or words[-1] in STOP or (len(words) == 1 and key.endswith("ly")):
                    continue  # stress ("*also* works", "*literally*"), not a term
                if _in_heading_or_table(self.text, m.start()):
                    continue
                sentence = sentence_at(self.text, m.start())
                if pattern is BOLD and not DEFINING_WORDS.search(self.text, m.end(), sentence[1]):
                    continue
                seen.add(key)
                out.append(Candidate(term, m.span("t"), sentence, how))
        return out


def _in_heading_or_table(text: str, at: int) -> bool:
    line_start = text.rfind("\n", 0, at) + 1
    line = text[line_start:text.find("\n", at) if text.find("\n", at) >= 0 else len(text)]
    stripped = line.lstrip()
    return stripped.startswith(("#", "<", "/// ", "!!!"))


def _initials_match(words: list[str], acronym: str) -> bool:
    letters = [c for c in acronym.upper() if c.isalpha()]
    initials = [w[0].upper() for w in words if w and w.casefold() not in ("of", "and", "for", "the", "to", "in", "on", "&", "a")]
    if initials == letters:
        return True
    # an expansion may spell a letter twice ("JavaScript Object Notation" for JSON: J, O, N)
    joined = "".join(w for w in words).upper()
    return len(words) >= 2 and initials[:1] == letters[:1] and _subsequence(letters, joined) and len(initials) <= len(letters)


def _subsequence(letters: list[str], text: str) -> bool:
    it = iter(text)
    return all(c in it for c in letters)


def _expansion_before(text: str, paren: int, acronym: str) -> tuple[tuple[int, int], str] | None:
    """The words just before "(ACR)" whose initials spell it: the shortest such run."""
    window = text[max(0, paren - 120):paren]
    base = paren - len(window)
    words = list(re.finditer(r"[A-Za-z][\w'-]*", window))
    if window.rstrip() != window[:len(window.rstrip())] or not words:
        return None
    if paren - (base + words[-1].end()) > 2:
        return None
    for n in range(1, min(len(words), 9) + 1):
        run = words[-n:]
        gap = window[run[0].start():run[-1].end()]
        if "\n\n" in gap or re.search(r"[.;:!?()]", gap):
            break
        if _initials_match([w.group() for w in run], acronym) and n >= len([c for c in acronym if c.isalpha()]) - 1:
            return (base + run[0].start(), base + run[-1].end()), gap
    return None
