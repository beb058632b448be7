"""run.json of every earlier shape still reads, resumes and updates (issue 34, the typed run record).

`tests/fixtures/run_json/` holds run.json files as rounds 1-3 wrote them (made by the code at
2931c7f, f29af2a and 701e0c9: a document running, finished, updated, an update interrupted;
a PDF; a corpus running, updated, an update interrupted). Their checkpoints are of no use to
today's graph, so each test makes today's checkpoints (a run stopped by a failing call), then
puts the old record in place of today's, with the values that name this run (its file, hash,
thread, corpus key, documents) and the old record's own shape and settings, and lets
`chunker resume` and `chunker update` go on from it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import CINDERELLA, DATA, assert_lossless, invoke

from chunker.runs import record as records
from chunker.runs.record import CorpusRun, DocumentRun
from chunker.runs.rundir import RunDir

OLD = Path(__file__).resolve().parent / "fixtures" / "run_json"
NAMES = ("source", "source_sha256", "thread_id")
"""What names the run a document's record describes (its shape and settings stay the old record's)."""
CORPUS_NAMES = ("root", "paths", "corpus_key", "documents", "settings")


def old(name: str) -> dict:
    return json.loads((OLD / f"{name}.json").read_text(encoding="utf-8"))


def run_json(out: Path) -> dict:
    return json.loads((out / ".chunker" / "run.json").read_text(encoding="utf-8"))


def put(out: Path, record: dict) -> None:
    (out / ".chunker" / "run.json").write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")


def named(shape: dict, now: dict, names=NAMES) -> dict:
    """The old `shape`, naming the run `now` describes (a name the shape lacks stays out)."""
    return {**shape, **{k: now[k] for k in names if k in shape}}


def failing(tmp_path: Path, name: str, at: str) -> dict:
    """The environment of a scripted model whose calls `at` (N or N-M) fail, counted apart."""
    return {"CHUNKER_SCRIPTED_COUNTER": str(tmp_path / f"{name}.calls"), "CHUNKER_SCRIPTED_FAIL_AT": at}


def test_every_earlier_shape_reads_as_todays_record(tmp_path):
    run = RunDir(tmp_path)
    for path in sorted(OLD.glob("*.json")):
        run.meta_dir.mkdir(exist_ok=True)
        shutil.copyfile(path, run.meta_file)
        rec = run.read_record()
        assert isinstance(rec, CorpusRun if "corpus" in path.name else DocumentRun), path.name
        # what it says is kept, under today's names: written and read again, the same record
        run.write_record(rec)
        assert run.read_record() == rec, path.name
    r1 = records.parse((OLD / "round1-document-running.json").read_bytes())
    assert r1.source_sha256 is None and "context_budget_tokens" not in r1.config
    assert r1.config["background_budget_tokens"] == 300 and r1.config["model_window"] == 8192
    assert r1.to_settings().background.budget_tokens == 300
    pdf = records.parse((OLD / "round3-pdf-finished.json").read_bytes())
    assert pdf.extracted and pdf.original == "/old/lect.pdf" and pdf.original_sha256.startswith("37bf13")
    doc = records.parse((OLD / "round3-document-updating.json").read_bytes())
    assert doc.update.mode == "patch" and doc.update.thread_id.endswith("-u1")
    corpus = records.parse((OLD / "round3-corpus-updating.json").read_bytes())
    assert corpus.update.corpus.corpus_key != corpus.corpus_key == corpus.update.previous
    assert [d.rel for d in corpus.update.corpus.documents][-1] == "b/rust-book-ch08-02-strings.md"
    assert corpus.update.corpus.changes["added"] == ["b/rust-book-ch03-02-data-types.md"]
    done = records.parse((OLD / "round3-corpus-finished.json").read_bytes())
    assert done.updates[0].previous and done.deleted == 0 and done.stale == {}


@pytest.fixture(scope="module")
def stopped(tmp_path_factory) -> Path:
    """Cinderella stopped at its 5th call (its checkpoints today's)."""
    tmp = tmp_path_factory.mktemp("stopped")
    src = tmp / "cinderella.txt"
    shutil.copyfile(CINDERELLA, src)
    invoke("run", src, "--model", "scripted", "-o", tmp / "out", "--quiet", "--set", "llm_max_attempts=1",
           env=failing(tmp, "base", "5"), check=1)
    return tmp


@pytest.mark.parametrize("round_", [1, 2, 3])
def test_a_document_record_of_each_round_resumes_and_updates(round_, stopped, tmp_path):
    src, out = tmp_path / "cinderella.txt", tmp_path / "out"
    shutil.copyfile(stopped / "cinderella.txt", src)
    shutil.copytree(stopped / "out", out)
    now = {**run_json(out), "source": str(src)}
    shape = named(old(f"round{round_}-document-running"), now)
    if round_ == 1:  # round 1's names of two settings: read as today's, with their values
        shape["config"] = {**shape["config"], "context_budget_tokens": 250, "context_window": 16384}
    put(out, shape)
    invoke("resume", out, "--quiet", check=0)
    record = run_json(out)
    assert record["kind"] == "document" and record["status"] == "finished"
    assert record["source_sha256"] == now["source_sha256"]  # round 1 had none: recorded now
    tree = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert_lossless(tree, src.read_text(encoding="utf-8"))
    if round_ == 1:
        assert record["config"]["background_budget_tokens"] == tree["meta"]["config"]["background_budget_tokens"] == 250
        assert tree["meta"]["config"]["model_window"] == 16384
        assert not {"context_budget_tokens", "context_window"} & set(record["config"])

    # the finished record of that round, then an edit: the update takes it from there
    finished = named(old(f"round{round_}-document-finished"), record)
    before = len(finished.get("updates", []))
    put(out, finished)
    text = src.read_text(encoding="utf-8").replace("Cinderella", "Ashputtel", 3)
    src.write_text(text, encoding="utf-8")
    invoke("update", out, "--quiet", check=0)
    record = run_json(out)
    assert record["status"] == "finished" and "update" not in record
    assert len(record["updates"]) == before + 1 and record["source_sha256"] != now["source_sha256"]
    assert_lossless(json.loads((out / "hierarchy.json").read_text(encoding="utf-8")), text)


def test_an_interrupted_update_of_round_3_resumes(stopped, tmp_path):
    src, out = tmp_path / "cinderella.txt", tmp_path / "out"
    shutil.copyfile(stopped / "cinderella.txt", src)
    shutil.copytree(stopped / "out", out)
    invoke("resume", out, "--source", src, "--quiet", check=0)  # the copy: the same text
    text = src.read_text(encoding="utf-8").replace("Cinderella", "Ashputtel", 3)
    src.write_text(text, encoding="utf-8")
    invoke("update", out, "--quiet", "--set", "llm_max_attempts=1", env=failing(tmp_path, "update", "1"),
           check=1)
    now = run_json(out)
    shape = named(old("round3-document-updating"), now)
    shape["update"] = named(shape["update"], now["update"], (*NAMES, "reuse_key", "mode", "config"))
    put(out, shape)
    invoke("resume", out, "--quiet", check=0)
    record = run_json(out)
    assert record["status"] == "finished" and "update" not in record and len(record["updates"]) == 1
    assert record["thread_id"] == now["update"]["thread_id"]
    assert_lossless(json.loads((out / "hierarchy.json").read_text(encoding="utf-8")), text)


def test_a_corpus_record_of_round_3_resumes_updates_and_continues_an_update(tmp_path):
    root, out = tmp_path / "corpus", tmp_path / "out"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    shutil.copyfile(CINDERELLA, root / "a" / "one.txt")
    shutil.copyfile(DATA / "markdown" / "rust-book-ch08-02-strings.md", root / "b" / "strings.md")
    flags = ("--model", "scripted", "--embeddings", "lexical", "--quiet")
    invoke("run", root, "-o", out, *flags, "--set", "llm_max_attempts=1",
           env=failing(tmp_path, "base", "12"), check=1)
    now = run_json(out)
    put(out, named(old("round3-corpus-running"), now, CORPUS_NAMES))
    invoke("resume", out, "--quiet", check=0)
    record = run_json(out)
    assert record["status"] == "finished" and record["corpus_key"] == now["corpus_key"]
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert sorted(d["source"] for d in h["meta"]["corpus"]["documents"]) == ["a/one.txt", "b/strings.md"]

    # an update stopped halfway, its record as round 3 wrote it; resumed
    (root / "a" / "one.txt").write_text(CINDERELLA.read_text(encoding="utf-8").replace("Cinderella", "Ashputtel", 3),
                                        encoding="utf-8")
    invoke("update", out, "--quiet", "--set", "llm_max_attempts=1", env=failing(tmp_path, "update", "1"), check=1)
    now = run_json(out)
    shape = named(old("round3-corpus-updating"), now, CORPUS_NAMES)
    shape["update"] = {**shape["update"], "previous": now["update"]["previous"], "updates": now["update"]["updates"],
                       "corpus": named(shape["update"]["corpus"], now["update"]["corpus"],
                                       (*CORPUS_NAMES, "changes", "stale", "deleted", "deleted_nodes"))}
    put(out, shape)
    invoke("resume", out, "--quiet", check=0)
    record = run_json(out)
    assert "update" not in record and record["corpus_key"] == now["update"]["corpus"]["corpus_key"]
    assert len(record["updates"]) == 1 and record["updates"][0]["previous"] == now["corpus_key"]

    # the finished record of an updated corpus (round 3: its earlier update listed), then a file added
    finished = named(old("round3-corpus-finished"), record, CORPUS_NAMES)
    put(out, finished)
    shutil.copyfile(DATA / "markdown" / "rust-book-appendix-02-operators.md", root / "b" / "operators.md")
    invoke("update", out, "--quiet", check=0)
    record = run_json(out)
    assert record["status"] == "finished" and len(record["updates"]) == 2
    assert record["updates"][-1]["changes"]["added"] == ["b/operators.md"]
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert len(h["meta"]["corpus"]["documents"]) == 3
