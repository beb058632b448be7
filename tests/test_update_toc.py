"""A corpus whose table of contents alone changed: `chunker update` plans the upper levels
again (the sections and their order follow the new SUMMARY.md) and copies every document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from chunker.output.hierarchy import Hierarchy
from conftest import DATA, invoke

FASTAPI = DATA / "folders" / "fastapi-docs" / "tutorial"
FILES = ("first-steps.md", "path-params.md", "query-params.md")


def test_a_table_of_contents_added_then_reordered_replans_the_folders_only(tmp_path):
    src, out = tmp_path / "docs", tmp_path / "out"
    src.mkdir()
    for name in FILES:
        shutil.copyfile(FASTAPI / name, src / name)
    invoke("run", src, "-o", out, "--model", "scripted", "--embeddings", "lexical", "--quiet")
    before = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    (src / "SUMMARY.md").write_text("# Summary\n\n- [Query](query-params.md)\n- [First](first-steps.md)\n"
                                    "- [Path](path-params.md)\n", encoding="utf-8")

    plan = json.loads(invoke("update", out, "--dry-run", "--json").stdout)
    assert plan["toc"] == "table of contents: none -> SUMMARY.md"
    assert not plan["added"] and not plan["edited"] and plan["unchanged"] == 3  # SUMMARY.md is no document

    invoke("update", out, "--quiet")
    after = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    assert after.meta.corpus.toc == "SUMMARY.md"
    order = [n.source for n in after.in_order() if n.kind == "document"]
    assert order == ["query-params.md", "first-steps.md", "path-params.md"]  # the new table's order
    record = after.meta.updates[-1]
    assert record.reused["documents"] == 3 and "documents" not in record.redone
    leaves = lambda h: {n.id: (n.original, n.rewritten, n.summary) for n in h.nodes if n.level == 0}
    assert leaves(after) == leaves(before)  # every passage copied as it was

    (src / "SUMMARY.md").write_text("# Summary\n\n- [Path](path-params.md)\n- [First](first-steps.md)\n"
                                    "- [Query](query-params.md)\n", encoding="utf-8")
    plan = json.loads(invoke("update", out, "--dry-run", "--json").stdout)
    assert plan["toc"] == "table of contents SUMMARY.md edited"
    invoke("update", out, "--quiet")
    again = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    assert [n.source for n in again.in_order() if n.kind == "document"] == [
        "path-params.md", "first-steps.md", "query-params.md"]
    assert "up to date" in invoke("update", out).stdout
