"""Markup never reaches what people read: the readable copy of a Markdown text, and the
summaries, titles and signal that read it."""

from __future__ import annotations

import json
import subprocess
import sys

from chunker.document.readable import readable, readable_copy

FASTAPI_LIKE = """---
include_yaml:
  sponsors: data/sponsors.yml
---
# FastAPI { #fastapi }

<style>
.md-content .md-typeset h1 { display: none; }
</style>

<p align="center">
  <a href="https://fastapi.tiangolo.com"><img src="img/logo.png" alt="FastAPI"></a>
</p>

<!-- a comment nobody should read -->

FastAPI is a modern, fast web framework for building **APIs** with Python, based on
standard [type hints](https://docs.python.org/3/library/typing.html "typing").

/// tip | Tip

See ![the diagram](img/diagram.svg) and [[Other note|the other note]] for `details`.

///

{* ../../docs_src/first_steps/tutorial001.py hl[3] *}

{{#rustdoc_include ../listings/ch08/main.rs:here}}

| Name | Value |
|------|------:|
| a    | 1     |
"""


def test_the_copy_keeps_length_and_lines():
    copy = readable_copy(FASTAPI_LIKE)
    assert len(copy) == len(FASTAPI_LIKE)
    assert [i for i, c in enumerate(copy) if c == "\n"] == [i for i, c in enumerate(FASTAPI_LIKE) if c == "\n"]


def test_markup_is_gone_and_the_words_stay():
    text = readable(FASTAPI_LIKE)
    for markup in ("include_yaml", "sponsors.yml", "{ #fastapi }", "<style>", "display: none", "<p",
                   "href", "img/logo.png", "comment nobody", "**", "docs.python.org", "///", "img/diagram.svg",
                   "[[", "Other note", "{*", "tutorial001", "rustdoc_include", "|", "---", "`"):
        assert markup not in text, markup
    for words in ("FastAPI", "FastAPI is a modern, fast web framework for building APIs with Python",
                  "type hints", "the diagram", "the other note", "details", "Name", "Value"):
        assert words in text, words


def test_plain_prose_is_unchanged():
    prose = ("It was a cold day. Snake_case names and 3 * 4 = 12 stay; so does C# and a #hashtag.\n"
             "1990. The year went by.\n")
    assert readable_copy(prose) == prose


def test_a_code_span_keeps_what_looks_like_a_tag():
    text = "A `Vec<T>` grows; an `Option<String>` may be empty, and <b>bold</b> is markup.\n"
    assert readable(text) == "A Vec<T> grows; an Option<String> may be empty, and bold is markup."


def test_a_markdown_documents_summaries_and_titles_hold_no_markup(tmp_path):
    doc = tmp_path / "page.md"
    doc.write_text(FASTAPI_LIKE + "\n## Usage { #usage }\n\nRun the server with uvicorn and open "
                   "[the docs](http://127.0.0.1:8000/docs) in a browser to try every endpoint.\n",
                   encoding="utf-8")
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "chunker.cli.app", "run", str(doc), "--model", "scripted",
                    "--embeddings", "lexical", "--set", 'model_tasks=["boundary"]', "-o", str(out), "-q"],
                   check=True)
    nodes = {n["id"]: n for n in json.loads((out / "hierarchy.json").read_text())["nodes"]}
    shown = [n.get("summary") or "" for n in nodes.values()] + [n.get("title") or "" for n in nodes.values()]
    for text in shown:
        for markup in ("<", "{ #", "](", "include_yaml", "{*", "**", "///"):
            assert markup not in text, (markup, text)
    titles = {n.get("title") for n in nodes.values()}
    assert "Usage" in titles or any("Usage" == h for n in nodes.values() for h in (n.get("header_path") or []))


def test_a_models_summaries_lose_the_markup_it_copied(tmp_path):
    """The scripted model answers with the passage's first sentences as written (heading marks,
    code spans, emphasis): what it says is kept, its markup is not."""
    from conftest import invoke

    doc = tmp_path / "strings.md"
    doc.write_text("## Storing Text with `String`\n\nA `String` holds **UTF-8** text; see "
                   "[the reference](https://doc.rust-lang.org/std/string/) for `Vec<u8>`.\n\n"
                   "### Creating a New String\n\nMany operations of `Vec<T>` work on a `String` as well, "
                   "because it wraps a vector of bytes.\n", encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", doc, "--model", "scripted", "--embeddings", "lexical", "-o", out, "-q", check=0)
    summaries = [n["summary"] for n in json.loads((out / "hierarchy.json").read_text())["nodes"]]
    assert any("Vec<T>" in s for s in summaries), summaries
    for summary in summaries:
        for markup in ("#", "`", "**", "](", "https://"):
            assert markup not in summary, (markup, summary)


def test_an_extracted_summary_holds_no_code_block(tmp_path):
    """Fenced code is no prose, though a sentence splitter finds sentences in it: an extracted
    summary of fastapi's bigger-applications page (the embedded model's profile) once ended in
    its project tree's `py # makes "routers" a "Python subpackage" │ │ ├─`. A leaf of code alone
    still gets a summary, from its code."""
    from conftest import DATA, invoke

    out = tmp_path / "out"
    invoke("run", DATA / "folders" / "fastapi-docs" / "tutorial" / "bigger-applications.md",
           "--model", "local", "--embeddings", "lexical", "-o", out, "-q", check=0)
    nodes = json.loads((out / "hierarchy.json").read_text())["nodes"]
    assert all(node["summary"].strip() for node in nodes)
    for node in nodes:
        for code in ("├", "│", " # "):
            assert code not in node["summary"], (code, node["summary"])
