"""A deterministic chat model that answers every chunker task, and misbehaves on demand.

It reads the task from the JSON schema it is bound to and the document text from the
prompt's tags, so its answers are a pure function of (task, prompt text, seed): a run
that is interrupted and resumed gets exactly the answers an uninterrupted run got.

Faults are rates in [0, 1], decided per call by a hash of the prompt:
`paraphrase` (boundary phrase not verbatim), `paraphrase_retry` (the same on the
"copy EXACTLY" retry), `absent` (a phrase that is nowhere in the text; in candidates
mode a number that was not offered), `midword` (the phrase starts inside a word: its
first character is dropped, where a word character follows it), `early` (the phrase is the window's own opening words,
before the minimum size), `incomplete` (answers "not complete"), `invalid_json`,
`empty` (empty answer), `error` (raises a transient error, as a dropped connection),
`bad_groups` (an invalid grouping: singleton, skip, reorder or duplicate),
`oversize` (one group with everything). `fail_calls` raises on given call numbers
(1-based, per model instance), which is how tests inject a crash at the k-th call.
`raise_on=TEXT` raises a RuntimeError (not transient, so never retried by the graph) on
every call whose prompt contains TEXT: a document holding TEXT fails however often it is
tried, while the rest of a corpus goes on.

`MODE_FAULTS` says which faults act in which boundary mode. A number cannot be
misquoted, start inside a word or name a cut before the minimum (every offered cut is
a sentence end past it), so `paraphrase`, `paraphrase_retry`, `midword` and `early` act
in phrase mode only; in candidates mode they are ignored. `fired` counts the faults
that changed an answer, so that a test can prove the faults it sets did act.

Two environment variables reach across processes (CLI tests): with
`CHUNKER_SCRIPTED_COUNTER=FILE` every call appends a line to FILE and calls are
numbered by the lines in it; `CHUNKER_SCRIPTED_FAIL_AT=N` (or `N-M`) then fails calls N to M
of that global count, so that a resumed process goes past them.

Spec strings configure it from the CLI: `scripted:delay_ms=5,paraphrase=0.3,seed=2`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections import Counter
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr

from chunker.config.sections import LLMSettings
from chunker.document.tokens import count_tokens
from chunker.llm.structured import JsonSchemaChatModel, content_text
from chunker.testing.prompt_text import content_words, first_sentence, slugish, tag

_ANY_MODE_FAULTS = ("absent", "incomplete", "invalid_json", "empty", "error", "bad_groups", "oversize")
MODE_FAULTS = {"phrase": ("paraphrase", "paraphrase_retry", "midword", "early") + _ANY_MODE_FAULTS,
               "candidates": _ANY_MODE_FAULTS}
_FAULTS = MODE_FAULTS["phrase"]
_SCHEMA_NUMBERS = range(1, 10)  # CandidateBoundary.boundary: 1 to 9
_WORDS = re.compile(r"\S+")
_DEFINING = re.compile(r"(?:^|(?<=[.!?] ))(?:(?:An?|The) )?(?P<t>[A-Z][\w-]+(?: [a-z][\w-]+)?) "
                       r"(?:is|are|means) [^.!?\n]{3,200}[.!?]", re.M)


class ScriptedTransientError(ConnectionError):
    """Raised by the `error` fault and by `fail_calls`: looks like a dropped connection."""


class ScriptedPermanentError(RuntimeError):
    """Raised by `raise_on`: a failure that no retry mends."""


class ScriptedChatModel(JsonSchemaChatModel):
    """Deterministic stand-in for an LLM (tests, benchmarks, Studio demos)."""

    seed: int = 0
    delay_ms: float = 0.0
    """Sleep this long per call, so that a SIGKILL can land inside a call."""
    faults: dict[str, float] = Field(default_factory=dict)
    fail_calls: list[int] = Field(default_factory=list)
    complete_after_chars: int = 0
    """Answer "not complete" while the window is shorter than this."""
    group_size: int = 3
    slug: str | None = None
    """Answer this slug for every node (hostile-slug tests)."""
    summary: str | None = None
    """Answer this summary for every node (hostile-label tests)."""
    rewrite: str | None = None
    """Answer this context for every rewrite (unfaithful-rewrite tests)."""
    terms: list[dict] | None = None
    """Answer these proposals (`{"term", "definition"}`) for every terms call (grounding tests);
    None: the passages' "X is a ..." sentences, copied."""
    describe: str | None = None
    """As a vision model: answer this description for every figure shown (ungrounded-description
    tests); by default a figure is described in its caption's words. Without an image in the
    message the description is empty (a vision model sees the image, or nothing)."""
    counter_file: str | None = None
    """Append one line per call to this file, so a test can count calls across processes."""
    raise_on: str | None = None
    """Raise ScriptedPermanentError on every call whose prompt contains this text."""

    _calls: int = PrivateAttr(default=0)
    _fired: Counter = PrivateAttr(default_factory=Counter)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def fired(self) -> dict[str, int]:
        """How many answers each fault changed so far (a record only: answers never read it)."""
        with self._lock:
            return dict(self._fired)

    @property
    def _llm_type(self) -> str:
        return "chunker-scripted"

    @classmethod
    def from_spec(cls, spec: str) -> "ScriptedChatModel":
        """Build from `scripted` or `scripted:key=value,key=value`."""
        kwargs: dict[str, Any] = {"faults": {}}
        _, _, opts = spec.partition(":")
        for item in filter(None, opts.split(",")):
            key, _, value = item.partition("=")
            key = key.strip()
            if key in _FAULTS:
                kwargs["faults"][key] = float(value)
            elif key == "fail_calls":
                kwargs[key] = [int(v) for v in value.split("+") if v]
            elif key in ("seed", "group_size", "complete_after_chars"):
                kwargs[key] = int(value)
            elif key == "delay_ms":
                kwargs[key] = float(value)
            elif key in ("slug", "summary", "rewrite", "describe", "counter_file", "raise_on"):
                kwargs[key] = value
            else:
                raise ValueError(f"unknown scripted-model option {key!r}")
        return cls(**kwargs)

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        with self._lock:
            self._calls += 1
            number = self._calls
        schema = kwargs.get("json_schema") or {}
        task = schema.get("title", "")
        counter = self.counter_file or os.environ.get("CHUNKER_SCRIPTED_COUNTER")
        if counter:
            with open(counter, "a+", encoding="utf-8") as fh:
                fh.write(f"{task or 'call'}\n")  # written as the call starts
                fh.seek(0)
                global_number = sum(1 for _ in fh)
            first, _, last = os.environ.get("CHUNKER_SCRIPTED_FAIL_AT", "").partition("-")
            if first and int(first) <= global_number <= int(last or first):
                raise ScriptedTransientError(f"scripted failure on global call {global_number}")
        if self.delay_ms:
            time.sleep(self.delay_ms / 1000)
        prompt = "\n".join(str(m.content) for m in messages)
        if number in self.fail_calls:
            raise ScriptedTransientError(f"scripted failure on call {number}")
        if self.raise_on and self.raise_on in prompt:
            raise ScriptedPermanentError(f"scripted failure: the prompt holds {self.raise_on!r}")
        # the text parts of a multi-part message (text and page images)
        user = content_text(messages[-1].content) if messages else ""
        if task == "FigureDescription":
            content = messages[-1].content if messages else ""
            shown = isinstance(content, list) and any(
                isinstance(p, dict) and p.get("type") == "image_url" for p in content)
            text = json.dumps(self._figure(user, shown))
        else:
            text = self._answer(task, prompt, user)
        # Usage in the chunker's own token counts (cl100k), so that benchmark figures such
        # as prompt tokens per source token compare like with like.
        usage = {"input_tokens": count_tokens(prompt), "output_tokens": count_tokens(text)}
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        message = AIMessage(content=text, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])

    # -- deciding --------------------------------------------------------------------
    def _roll(self, fault: str, prompt: str) -> bool:
        rate = self.faults.get(fault, 0.0)
        if rate <= 0:
            return False
        digest = hashlib.sha256(f"{self.seed}|{fault}|{prompt}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < rate

    def _record(self, fault: str) -> None:
        with self._lock:
            self._fired[fault] += 1

    def answer(self, task: str, prompt: str, user: str) -> str:
        """The answer text to a prompt, for the schema titled `task`: what a call returns, for
        a stub serving the scripted model's answers over HTTP (`openai_stub --scripted`)."""
        return self._answer(task, prompt, user)

    def _answer(self, task: str, prompt: str, user: str) -> str:
        if self._roll("error", prompt):
            self._record("error")
            raise ScriptedTransientError("scripted transient error")
        if self._roll("empty", prompt):
            self._record("empty")
            return ""
        if self._roll("invalid_json", prompt):
            self._record("invalid_json")
            return '{"complete": tru'
        handler = {
            "Completeness": self._completeness,
            "CandidateBoundary": self._candidate,
            "Rewrite": self._rewrite,
            "RewriteWithSummary": self._rewrite_summary,
            "Summary": self._summary,
            "Grouping": self._grouping,
            "Synthesis": self._synthesis,
            "TermProposals": self._terms,
            "NavigateChoice": self._navigate_choice,
            "NavigateAnswer": self._navigate_answer,
        }.get(task)
        if handler is None:
            return json.dumps({"error": f"scripted model has no answer for schema {task!r}"})
        return json.dumps(handler(prompt, user))

    def _completeness(self, prompt: str, user: str) -> dict:
        window = tag(user, "window")
        lookahead = tag(user, "lookahead")
        if len(window) < self.complete_after_chars and lookahead.strip():
            return {"complete": False, "boundary_phrase": None}
        if self._roll("incomplete", prompt):
            self._record("incomplete")
            return {"complete": False, "boundary_phrase": None}
        # The first six words of the lookahead, sliced verbatim (line breaks included).
        head = lookahead.lstrip()
        words = list(_WORDS.finditer(head))[:6]
        if not words:
            return {"complete": True, "boundary_phrase": None}
        phrase = head[:words[-1].end()]
        retry = "copying EXACTLY" in user
        paraphrase = "paraphrase_retry" if retry else "paraphrase"
        if self._roll("absent", prompt):
            self._record("absent")
            phrase = "The next topic begins here"
        elif self._roll("midword", prompt) and phrase[:2].isalnum():
            self._record("midword")
            phrase = phrase[1:]
        elif self._roll("early", prompt):
            opening = list(_WORDS.finditer(window))[:6]
            if opening:
                self._record("early")
                phrase = window[:opening[-1].end()]
        elif self._roll(paraphrase, prompt):
            self._record(paraphrase)
            phrase = "Indeed, " + phrase.lower()
        return {"complete": True, "boundary_phrase": phrase}

    def _candidate(self, prompt: str, user: str) -> dict:
        """Candidates mode: the first number offered, so that scripted runs measure the
        candidate machinery alone. `absent` answers a number that was not offered."""
        window, lookahead = tag(user, "window"), tag(user, "lookahead")
        if len(window) < self.complete_after_chars and lookahead.strip():
            return {"complete": False, "boundary": None}
        if self._roll("incomplete", prompt):
            self._record("incomplete")
            return {"complete": False, "boundary": None}
        # every marker shown, the document's own "[n] " look-alikes included
        offered = [int(n) for n in re.findall(r"\[(\d)\] ", window + "\n" + lookahead)]
        if not offered:
            return {"complete": True, "boundary": None}
        if self._roll("absent", prompt):
            self._record("absent")
            # the instructions list every offered number (a cut at the lookahead's very
            # end is offered without a marker); any other number they show only adds to
            # the numbers avoided
            listed = re.findall(r"\d+", user[:user.find("<window>\n")])
            return {"complete": True, "boundary": _unoffered(set(offered) | {int(n) for n in listed})}
        return {"complete": True, "boundary": min(offered)}

    def _rewrite(self, prompt: str, user: str) -> dict:
        if self.rewrite is not None:
            return {"rewritten": self.rewrite}
        chunk = tag(user, "chunk")
        return {"rewritten": " ".join(chunk.split()) or "(empty passage)"}

    def _rewrite_summary(self, prompt: str, user: str) -> dict:
        return {**self._rewrite(prompt, user), **self._summary(prompt, user)}

    def _summary(self, prompt: str, user: str) -> dict:
        chunk = " ".join(tag(user, "chunk").split())
        return {"summary": self.summary if self.summary is not None else first_sentence(chunk),
                "slug": self.slug if self.slug is not None else slugish(chunk)}

    def _figure(self, user: str, shown: bool) -> dict:
        """A vision model's description: `describe` when set, else the caption's own words."""
        if not shown:
            return {"description": ""}
        if self.describe is not None:
            return {"description": self.describe}
        caption = " ".join(tag(user, "caption").split())
        body = re.sub(r"^(figure|fig\.)\s+[\w.\-]+\s*[:.\u2014\u2013-]\s*", "", caption, flags=re.IGNORECASE)
        return {"description": f"The figure shows {body.rstrip('.')}." if body and body != "(none)" else ""}

    def _grouping(self, prompt: str, user: str) -> dict:
        count = len(re.findall(r"^\[(\d+)\]", tag(user, "items"), re.MULTILINE))
        indices = list(range(count))
        if self._roll("oversize", prompt):
            self._record("oversize")
            return {"groups": [indices]}
        size = max(2, self.group_size)
        groups = [indices[i:i + size] for i in range(0, count, size)]
        if len(groups) > 1 and len(groups[-1]) < 2:
            groups[-2].extend(groups.pop())
        if self._roll("bad_groups", prompt) and count >= 2:
            self._record("bad_groups")
            kind = int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 4
            if kind == 0:
                groups = [[0]] + ([indices[1:]] if count > 1 else [])
            elif kind == 1:
                groups = [indices[1:]]
            elif kind == 2:
                groups = [list(reversed(indices))]
            else:
                groups = [indices + [0]]
        return {"groups": groups}

    def _synthesis(self, prompt: str, user: str) -> dict:
        parts = [" ".join(p.split()) for p in re.split(r"\[passage [^\]]*\]", tag(user, "children"))]
        firsts = [first_sentence(p) for p in parts if p]
        context = " ".join(firsts) or "(empty)"
        summary = self.summary if self.summary is not None else first_sentence(context)
        return {"rewritten": context, "summary": summary,
                "slug": self.slug if self.slug is not None else slugish(context)}

    def _terms(self, prompt: str, user: str) -> dict:
        """Each passage's definition sentences ("A Widget is a ...", "Borrowing means ..."),
        the term and the sentence copied verbatim: what a faithful model answers."""
        if self.terms is not None:
            return {"terms": self.terms}
        found = _DEFINING.finditer(tag(user, "passages"))
        return {"terms": [{"term": m.group("t"), "definition": m.group(0).strip()} for m in found][:20]}

    # -- navigation: word overlap with the question, so tests can steer a walk ----------
    def _navigate_choice(self, prompt: str, user: str) -> dict:
        """The child whose summary shares the most question words (the first on a tie)."""
        wanted = content_words(tag(user, "question"))
        lines = re.findall(r"^\[(\d+)\] (.*)$", tag(user, "children"), re.MULTILINE)
        best = max(lines, key=lambda line: len(wanted & content_words(line[1])), default=("1", ""))
        return {"choice": int(best[0])}

    def _navigate_answer(self, prompt: str, user: str) -> dict:
        """Found when the passage holds the question's quoted phrase (or, with no quote,
        half its content words); the answer is the passage's best-overlapping sentence."""
        question, passage = tag(user, "question"), " ".join(tag(user, "passage").split())
        quoted = re.findall(r'"([^"]+)"', question)
        wanted = content_words(question)
        if quoted:
            found = all(q.casefold() in passage.casefold() for q in quoted)
        else:
            found = len(wanted & content_words(passage)) * 2 >= max(1, len(wanted))
        if not found:
            return {"found": False, "answer": ""}
        sentences = re.split(r"(?<=[.!?])\s+", passage)
        return {"found": True,
                "answer": max(sentences, key=lambda t: len(wanted & content_words(t)))[:300]}


def _unoffered(shown: set[int]) -> int:
    """A number the prompt never shows, so surely not offered: the largest of the schema's
    range (9 unless the prompt shows it); 10, outside the range, when it shows all nine
    (the parser then rejects the answer, which ends in a fallback as well)."""
    return max((n for n in _SCHEMA_NUMBERS if n not in shown), default=_SCHEMA_NUMBERS[-1] + 1)


def make_scripted_model(spec: str, llm: LLMSettings) -> ScriptedChatModel:
    """The `scripted` entry of the `chunker.models` entry-point group (pyproject.toml):
    the test model is selected by name like any plugin model; `llm` is unused
    because its behaviour comes from the spec string (`scripted:key=value,...`)."""
    return ScriptedChatModel.from_spec(spec)
