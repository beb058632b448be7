"""bench/corpus_path.py: a benchmark finds its corpus from an argument or $CHUNKER_CORPUS, and
a missing one is one line on stderr and exit code 2, before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import DATA, ROOT

BENCH = ROOT / "bench"


def bench(script: str, *args: str, corpus: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True,
                          env={**os.environ, "CHUNKER_CORPUS": str(corpus)}, timeout=300, cwd=ROOT)


def test_a_missing_corpus_is_one_line_and_exit_2(tmp_path):
    for script, args in (("grounding_cost.py", ()), ("update.py", ("emma",)), ("topic_lengths.py", ("generate",))):
        proc = bench(script, *args, corpus=tmp_path / "nowhere")
        assert proc.returncode == 2, (script, proc.stderr)
        assert proc.stdout == "" and proc.stderr.count("\n") == 1, (script, proc.stderr)
        assert f"{tmp_path / 'nowhere'} is missing" in proc.stderr and "CHUNKER_CORPUS" in proc.stderr


def test_the_corpus_comes_from_the_environment_or_an_argument(tmp_path, monkeypatch):
    sys.path.insert(0, str(BENCH))
    try:
        from corpus_path import DEFAULT, corpus_root, default_root
    finally:
        sys.path.remove(str(BENCH))
    monkeypatch.delenv("CHUNKER_CORPUS", raising=False)
    assert default_root() == DEFAULT == ROOT.parent / "shared" / "corpus"
    monkeypatch.setenv("CHUNKER_CORPUS", str(DATA))
    assert corpus_root(needs=["emma/emma.md"]) == DATA
    assert corpus_root(tmp_path) == tmp_path  # an argument wins over the environment
    (tmp_path / "emma").mkdir()
    proc = bench("emma_lumberchunker.py", corpus=tmp_path)  # emma/ but not its files
    assert proc.returncode == 2 and f"{tmp_path / 'emma' / 'emma.md'} is missing" in proc.stderr
