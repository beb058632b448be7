"""Nothing a model says can write outside OUT or break a link or a frontmatter block."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from chunker.runs.rundir import RunDir
from chunker.runs.runner import execute, new_record
from chunker.config.settings import ChunkerSettings
from chunker.output.slugs import SlugAllocator, is_valid_slug, sanitize
from conftest import CINDERELLA, check_markdown_tree, scripted

HOSTILE = ["../../etc/passwd", "/abs/path", "CON", "nul.txt", "", "a" * 300, "a/b\\c", "?!...;;",
           "\U0001f600\U0001f600", "..", ".", "index", " ", "\n", "com1", "-"]


@pytest.mark.parametrize("slug", HOSTILE)
def test_hostile_slugs_are_sanitised(slug):
    clean = sanitize(slug, None, "L0-00001", max_length=60)
    assert is_valid_slug(clean) and "/" not in clean and "\\" not in clean and ".." not in clean


def test_collisions_get_suffixes():
    alloc = SlugAllocator(12)
    names = [alloc.allocate("content/L0", "same-slug-long") for _ in range(12)]
    assert len(set(names)) == 12 and all(len(n) <= 12 for n in names)


def _run(tmp_path: Path, model: str) -> Path:
    out = tmp_path / "out"
    run = RunDir(out)
    run.prepare_new(force=False)
    ctx = ChunkerSettings(model=model, min_chunk_tokens=150, max_chunk_tokens=500)
    run.write_record(new_record(str(CINDERELLA), "0" * 64, ctx, "t"))
    execute(run, ctx, {"path": str(CINDERELLA)}, "t")
    return out


def _all_files(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*")}


@pytest.mark.slow  # twelve whole runs
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(slug=st.one_of(st.sampled_from(HOSTILE), st.text(max_size=300)),
       summary=st.one_of(st.sampled_from(["Alpha | beta ]] gamma [[delta", "line one\nline two here",
                                          "key: value\n- item list here", "---\nfake: frontmatter here\n---",
                                          "'quoted' \"double\" #hash tag", "Links ]]|[[ break here", ""]),
                         st.text(max_size=200)))
def test_no_file_outside_out_and_links_resolve(tmp_path_factory, slug, summary):
    base = tmp_path_factory.mktemp("safety")
    sentinel_parent = _all_files(base.parent)
    out = _run(base, scripted(slug=slug, summary=summary))
    created = _all_files(base.parent) - sentinel_parent
    assert all(Path(p).resolve().is_relative_to(base.resolve()) for p in created)
    check_markdown_tree(out)


def test_exported_schema_is_current():
    import json

    from chunker.output.hierarchy import SCHEMA_FILE, Hierarchy

    assert json.loads(SCHEMA_FILE.read_text()) == Hierarchy.model_json_schema()
