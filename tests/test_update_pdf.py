"""`chunker update` on a one-PDF run: the PDF extracted again, the pages that did not change
copied, the tree lossless over the new extraction; a source.md the user edited is never
overwritten (exit 2, nothing touched)."""

from __future__ import annotations

from chunker.output.hierarchy import Hierarchy
from conftest import invoke
from test_pdf_run import FAST, make_pdf


def test_a_pdf_with_a_page_added_keeps_the_other_pages_passages(tmp_path):
    pdf, out = tmp_path / "report.pdf", tmp_path / "out"
    make_pdf(pdf, pages=3, table=False)
    invoke("run", pdf, "--model", "scripted", "-o", out, "--quiet", *FAST, check=0)
    before = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    make_pdf(pdf, pages=4, table=False)  # the same three pages, and a fourth

    invoke("update", out, "--quiet", check=0)
    after = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    text = (out / "source.md").read_text(encoding="utf-8")
    assert "".join(n.original for n in after.leaves()) == text  # lossless over the new extraction
    assert "Chapter 4" in text
    record = after.meta.updates[-1]
    assert record.reused.get("leaves", 0) >= 1 and record.calls < before.meta.stats["calls.total"]
    old = {n.id: n.original for n in before.leaves()}
    kept = [n for n in after.leaves() if old.get(n.id) == n.original]
    assert kept and kept[0].id == before.leaves()[0].id  # the first page's passages kept their ids


def test_a_source_md_the_user_edited_stops_a_pdf_update(tmp_path):
    pdf, out = tmp_path / "report.pdf", tmp_path / "out"
    make_pdf(pdf, pages=2, table=False)
    invoke("run", pdf, "--model", "scripted", "-o", out, "--quiet", *FAST, check=0)
    (out / "source.md").write_text("my own notes\n", encoding="utf-8")
    tree = (out / "hierarchy.json").read_bytes()
    make_pdf(pdf, pages=3, table=False)
    done = invoke("update", out, "--quiet", check=2)
    assert "source.md is in the way" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert (out / "source.md").read_text(encoding="utf-8") == "my own notes\n"
    assert (out / "hierarchy.json").read_bytes() == tree
