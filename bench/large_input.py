"""Peak memory on a large input: a 20 MB text with the scripted model.

    python bench/large_input.py [MEGABYTES]

Builds a document of the given size (default 20 MB) by repeating Emma, runs the full
pipeline through the CLI code path into a temporary OUT, and prints wall time, leaves,
peak RSS and the sizes of the run's SQLite files. Memory must stay bounded: the state
is constant-size, payloads live in SQLite, and only the text and its sentence offsets
are held in memory.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
EMMA = default_root() / "emma" / "emma.md"


def main() -> None:
    from chunker.runs.rundir import RunDir
    from chunker.runs.runner import execute, new_record
    from chunker.config.settings import ChunkerSettings

    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    corpus_root(needs=["emma/emma.md"])
    base = EMMA.read_text(encoding="utf-8")
    target = int(megabytes * 1_000_000)
    text = (base * (target // len(base.encode()) + 1))[:target]
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "large.md"
        doc.write_text(text, encoding="utf-8")
        del text, base
        run = RunDir(Path(tmp) / "out")
        run.prepare_new(force=False)
        ctx = ChunkerSettings(model="scripted")
        run.write_record(new_record(str(doc), "0" * 64, ctx, "large"))
        started = time.perf_counter()
        values = execute(run, ctx, {"path": str(doc)}, "large")
        wall = time.perf_counter() - started
        sizes = {p.name: p.stat().st_size for p in (run.path / ".chunker").glob("*.sqlite*")}
        source = doc.stat().st_size
    result = {
        "source_bytes": source, "wall_s": round(wall, 1), "leaves": values["stats"]["leaves"],
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "sqlite_bytes": sizes,
        "checkpoint_and_store_bytes_per_source_byte": round(
            sum(v for k, v in sizes.items() if k.startswith(("checkpoints", "store"))) / source, 2),
    }
    print(json.dumps(result, indent=1))
    out = ROOT / "bench" / "results" / "large_input.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
