"""A document read in regions (`graph/regions.py`): real runs of the CLI with the scripted
model (and the OpenAI-compatible stub, with latency and slots, for calls at once).

One book is chunked once for the module (three chapters of Emma, read as three regions); the
tests read its tree and its call log (`OUT/.chunker/calls.sqlite`: every prompt), or copy it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chunker.config.settings import ChunkerSettings
from chunker.testing.openai_stub import OpenAIStub
from conftest import EMMA, assert_lossless, chunker, leaves, run_text, tree_bytes

SMALL = {"min_chunk_tokens": 120, "max_chunk_tokens": 400, "region_min_tokens": 1500,
         "region_max_tokens": 6000, "embeddings": "lexical"}
OUTLINE = "[the document at a glance]"
PART = re.compile(r"the text you are given is in parts? (\d+)(?:-(\d+))? ")


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> dict:
    """Emma's first three chapters, chunked in regions and in one cursor (scripted, lexical)."""
    base = tmp_path_factory.mktemp("regions")
    text = EMMA.read_text(encoding="utf-8")
    text = text[:text.index("## VOLUME I. CHAPTER IV")]
    doc = base / "book.md"
    doc.write_text(text, encoding="utf-8")
    config = base / "settings.json"  # `--model scripted`'s settings, for the stub's runs too
    flat = ChunkerSettings(model="scripted", **SMALL).flat_dict()
    config.write_text(json.dumps({k: v for k, v in flat.items() if k not in ("model", "max_concurrency")}))
    for name, extra in (("regions", ()), ("one", ("--set", "reading=one_cursor"))):
        chunker("run", doc, "--model", "scripted", "-o", base / name, "--config", config, "-q", *extra, check=0)
    return {"base": base, "doc": doc, "text": text, "config": config,
            "regions": base / "regions", "one": base / "one"}


def _tree(out: Path) -> dict:
    return json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))


def _prompts(out: Path, after: int = 0) -> list[tuple[int, str, str]]:
    with sqlite3.connect(out / ".chunker" / "calls.sqlite") as db:
        return db.execute("SELECT id, task, prompt FROM calls WHERE id > ? ORDER BY id", (after,)).fetchall()


def _same(a: Path, b: Path) -> bool:
    """The same tree (nodes, and every node file) whatever model string wrote it."""
    files = {k: v for k, v in tree_bytes(a).items() if k not in ("hierarchy.json", "index.md")}
    return (files == {k: v for k, v in tree_bytes(b).items() if k not in ("hierarchy.json", "index.md")}
            and _tree(a)["nodes"] == _tree(b)["nodes"] and _tree(a)["root"] == _tree(b)["root"])


def _parts(prompt: str) -> tuple[int, int] | None:
    m = PART.search(prompt)
    return None if m is None else (int(m.group(1)), int(m.group(2) or m.group(1)))


def test_a_book_is_read_in_regions_its_leaves_and_ids_as_one_cursor_makes_them(book):
    tree, one = _tree(book["regions"]), _tree(book["one"])
    stats = tree["meta"]["stats"]
    assert stats["regions"] == 3 and stats["regions.sections"] == 1  # a chapter each
    assert_lossless(tree, book["text"])
    # ids global and in document order on every level, spans the document's
    for level in {n["level"] for n in tree["nodes"]}:
        nodes = sorted((n for n in tree["nodes"] if n["level"] == level), key=lambda n: n["id"])
        assert [n["id"] for n in nodes] == [f"L{level}-{i:05d}" for i in range(len(nodes))]
        assert [n["span"] for n in nodes] == sorted(n["span"] for n in nodes)
    # regions start at chapters: every leaf boundary is one cursor's, and so is the tree's shape
    assert [n["span"] for n in leaves(tree)] == [n["span"] for n in leaves(one)]
    assert {(n["id"], tuple(n["children"])) for n in tree["nodes"]} == {
        (n["id"], tuple(n["children"])) for n in one["nodes"]}
    # calls: the same count as one cursor's (no call is added by reading in regions)
    assert stats["calls.total"] == one["meta"]["stats"]["calls.total"]
    # a tree read in one cursor records no region setting (as every tree before regions)
    assert "reading" not in one["meta"]["config"] and "regions" not in one["meta"]["stats"]
    assert tree["meta"]["config"]["reading"] == "regions"


def test_every_call_is_shown_the_outline_with_its_place_marked(book):
    prompts = _prompts(book["regions"])
    assert all(OUTLINE in prompt for _, _, prompt in prompts)
    marked = [_parts(prompt) for _, _, prompt in prompts]
    assert all(m is not None for m in marked)
    # each region's calls mark it; the levels above the regions mark the parts they cover
    assert {m for m in marked if m[0] == m[1]} == {(k, k) for k in range(1, 4)}
    assert (1, 3) in marked  # the root's synthesis, over the whole book
    # a region's first passage is shown the source before it (its predecessor is another
    # region's); only the document's first passage is at the start
    firsts = [p for _, task, p in prompts if "the source text right before this part" in p]
    assert len(firsts) >= 2 and all(_parts(p)[0] > 1 for p in firsts)
    assert all(OUTLINE not in prompt for _, _, prompt in _prompts(book["one"]))


def test_regions_at_concurrency_1_and_8_make_the_same_tree(book, tmp_path):
    seen, trees = {}, {}
    for n in (1, 8):
        with OpenAIStub(latency_ms=25, slots=8, scripted=True) as stub:
            out = tmp_path / f"c{n}"
            chunker("run", book["doc"], "-o", out, "--model", "openai:stub-model", "--config", book["config"],
                    "-q", "--max-concurrency", n, env=stub.env(), check=0)
            seen[n] = stub.stats()["max_in_flight"]
            trees[n] = tree_bytes(out)
    assert seen[1] == 1 and 1 < seen[8] <= 8  # regions at once, never over the cap
    assert trees[1] == trees[8]
    assert _same(tmp_path / "c8", book["regions"])  # the stub answers as the scripted model


def _finished_regions(out: Path) -> set[int]:
    db = out / ".chunker" / "store.sqlite"
    if not db.exists():
        return set()
    try:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT prefix FROM store WHERE prefix LIKE '%.region_result'").fetchall()
    except sqlite3.OperationalError:
        return set()
    return {int(prefix.split(".")[-2]) for (prefix,) in rows}


@pytest.mark.parametrize("cap", [3])
def test_a_killed_run_resumes_every_region_from_its_own_last_step(book, tmp_path, cap):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "chunker.cli.app", "run", str(book["doc"]), "-o", str(out),
           "--model", "scripted:delay_ms=40", "--config", str(book["config"]), "-q", "--max-concurrency", str(cap)]
    proc = subprocess.Popen(cmd, env={**os.environ})
    deadline = time.time() + 240
    while proc.poll() is None and time.time() < deadline and not _finished_regions(out):
        time.sleep(0.01)
    time.sleep(0.3)  # into the next regions' calls
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = _finished_regions(out)
    assert 1 <= len(finished) < 3, finished  # killed with regions done and regions in flight
    with sqlite3.connect(out / ".chunker" / "checkpoints.sqlite") as db:
        namespaces = [ns for (ns,) in db.execute("SELECT DISTINCT checkpoint_ns FROM checkpoints")]
    # the pruning saver keeps the running regions' namespaces (and their inner subgraphs') only
    assert any("region:" in ns for ns in namespaces) and len(namespaces) <= 2 + 4 * cap, namespaces
    before = max(i for i, _, _ in _prompts(out)) if (out / ".chunker" / "calls.sqlite").exists() else 0
    chunker("resume", out, "-q", check=0)
    assert _same(out, book["regions"])
    again = _prompts(out, after=before)
    parts = [_parts(prompt) for _, _, prompt in again]
    # no call of a region that had finished is made again
    assert not [p for p in parts if p[0] == p[1] and p[0] - 1 in finished], (finished, parts)
    calls = len(_prompts(out))
    assert calls <= _tree(book["regions"])["meta"]["stats"]["calls.total"] + cap  # at most one per region in flight


def test_an_edit_in_one_chapter_redoes_calls_in_that_chapter_only(book, tmp_path):
    out = tmp_path / "updated"
    shutil.copytree(book["regions"], out)
    text = book["text"]
    chapter = text.index("## VOLUME I. CHAPTER II")
    at = text.index("\n\n", chapter + 3000)
    edited = tmp_path / "book.md"
    edited.write_text(text[:at] + " Mr. Weston wrote a long letter that evening." + text[at:], encoding="utf-8")
    before = max(i for i, _, _ in _prompts(out))
    chunker("update", out, "--source", edited, "-q", check=0)
    tree = _tree(out)
    assert_lossless(tree, edited.read_text(encoding="utf-8"))
    calls = _prompts(out, after=before)
    assert calls, "the edit was redone"
    parts = [_parts(prompt) for _, _, prompt in calls]
    # which part chapter II is: the region holding the edit
    region = next(p for (_, task, prompt), p in zip(calls, parts) if task != "synthesize")
    assert all(p == region for (_, task, _), p in zip(calls, parts) if task != "synthesize"), parts
    assert all(p[0] <= region[0] <= p[1] for p in parts)  # syntheses: blocks above the edit only
    stats = tree["meta"]["updates"][-1]
    assert stats["reused"]["leaves"] >= len(leaves(tree)) - 4


def test_source_context_reads_regions_too(book):
    out, _ = run_text(book["text"][:40_000], structure="markdown", background_context="source",
                      return_tree=True, **SMALL)
    assert out["stats"]["regions"] >= 2
    assert_lossless(out["tree"], book["text"][:40_000])
