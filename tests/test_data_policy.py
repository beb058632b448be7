"""What the tests read stays inside the repository: no test file names the shared corpus beside
the checkout, tests/data stays small, and each of its entries has its provenance line in
tests/data/README.md. (.ci/run proves the first by running the suite in a clone with nothing
beside it; this test says which file broke the rule before a whole run does.)"""

from __future__ import annotations

import re

from conftest import DATA, ROOT

SHARED_PATH = re.compile(r"""["']shared["']\s*/|\.\./shared|/work/shared|parents\[2\]""")
LIMIT_BYTES = 10 * 1024 * 1024
ALLOWED = {"test_bench_corpus_path.py",  # checks the benchmarks' default, reads nothing there
           "test_data_policy.py"}  # names the pattern


def test_no_test_reads_the_shared_corpus():
    offenders = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tests").glob("*.py"))
                 if path.name not in ALLOWED
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if SHARED_PATH.search(line)]
    assert not offenders, f"copy what the test needs into tests/data instead: {offenders}"


def test_test_data_is_small_and_every_entry_has_its_provenance():
    size = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file())
    assert size < LIMIT_BYTES, f"tests/data holds {size / 2**20:.1f} MB"
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for top in sorted(DATA.iterdir()):
        if top.name in {"README.md", "regenerate.py", "__pycache__"}:
            continue
        entries = [top] if top.is_file() else sorted(top.iterdir())
        for entry in entries:
            rel = entry.relative_to(DATA).as_posix()
            assert f"`{rel}" in readme or f"`{rel}/" in readme, f"tests/data/README.md has no line for {rel}"
