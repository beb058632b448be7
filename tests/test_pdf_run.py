"""`chunker run` on PDFs generated here with PyMuPDF: the extracted source.md and its page map,
detection by content, refused files, scanned pages, page images to a vision model (through the
Ollama stub), the page unit, and resume. Commands run in-process (conftest.invoke) except where a
process is the point (an import blocked through PYTHONPATH, a failure resumed by the next process)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

import pymupdf

from conftest import CINDERELLA, chunker, invoke, tree_bytes  # noqa: E402

from chunker.document.units import Units, register_page_ends  # noqa: E402
from chunker.testing.ollama_stub import OllamaStub  # noqa: E402

FAST = ["--min-chunk-tokens", "150", "--max-chunk-tokens", "500", "--embeddings", "lexical"]
SENTENCES = ["The festival sold {n} tickets in its first week, more than any year before.",
             "Attendance rose in every region, and the northern venues grew fastest.",
             "Costs stayed flat while revenue grew, so the margin improved by {m} points.",
             "The board approved a new stage for the coming season.",
             "Volunteers handled most of the catering and the night shuttle buses."]
ROWS = [("Segment", "2024", "2025"), ("Cinema", "120", "135"), ("Parks", "300", "310")]


def _body(page, y: float, k: int, lines: int = 10) -> float:
    for i in range(lines):
        page.insert_text((72, y), SENTENCES[(i + k) % 5].format(n=1000 + 37 * k + i, m=k % 7 + 1), fontsize=10)
        y += 13
    return y + 12


def _table(page, y: float) -> float:
    for r, row in enumerate(ROWS):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(72 + c * 120, y + r * 20, 72 + (c + 1) * 120, y + (r + 1) * 20)
            page.draw_rect(rect, color=(0, 0, 0), width=0.8)
            page.insert_text((rect.x0 + 4, rect.y1 - 6), cell, fontsize=10)
    return y + 84


def make_pdf(path: Path, pages: int = 3, *, headings: bool = True, table: bool = True,
             scanned_at: int | None = None) -> Path:
    """Pages of body text; with `headings`, a 20 pt chapter and a 14 pt section heading a page;
    with `table`, a ruled table on page 1; `scanned_at`: an image-only page at that 1-based place."""
    doc = pymupdf.open()
    for k in range(pages):
        page = doc.new_page()
        y = 72
        if headings:
            page.insert_text((72, y), f"Chapter {k + 1}: Season report", fontsize=20)
            y += 28
        y = _body(page, y, k)
        if headings:
            page.insert_text((72, y + 4), f"Section {k + 1}.1 Regional results", fontsize=14)
            y += 26
        y = _body(page, y, k + 2)
        if table and k == 0:
            y = _table(page, y)
        _body(page, y, k + 3, lines=6)
    if scanned_at is not None:
        page = doc.new_page(pno=scanned_at - 1)
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
        pix.set_rect(pix.irect, (200, 200, 200))
        page.insert_image(pymupdf.Rect(72, 72, 400, 400), pixmap=pix)
    doc.save(path)
    doc.close()
    return path


def leaves(h: dict) -> list[dict]:
    return sorted((n for n in h["nodes"] if n["level"] == 0), key=lambda n: n["span"][0])


def frontmatter(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


def test_pdf_named_txt_becomes_source_md_with_pages_everywhere(tmp_path):
    doc = make_pdf(tmp_path / "report.pdf")
    disguised = tmp_path / "report.txt"  # detection is by content, not by name
    disguised.write_bytes(doc.read_bytes())
    out = tmp_path / "out"
    invoke("run", disguised, "--model", "scripted", "-o", out, "--quiet", *FAST, check=0)
    source = (out / "source.md").read_text(encoding="utf-8")
    assert "# Chapter 1: Season report" in source and "## Section 1.1 Regional results" in source
    assert "|Segment|2024|2025|" in source
    h = json.loads((out / "hierarchy.json").read_text())
    assert "".join(n["original"] for n in leaves(h)) == source  # lossless against source.md
    table = source[source.index("|Segment|"):source.index("|Parks|300|310|") + len("|Parks|300|310|")]
    assert sum(table in n["original"] for n in leaves(h)) == 1  # the table is whole in one leaf
    for node in h["nodes"]:
        first, last = node["pages"]
        assert 1 <= first <= last <= 3
        assert frontmatter(out / node["filename"])["pages"] == [first, last]
    assert leaves(h)[0]["pages"][0] == 1 and leaves(h)[-1]["pages"][1] == 3
    assert h["meta"]["config"]["split_unit"] == "page"
    index = (out / "index.md").read_text()
    assert "(page" in index
    meta = json.loads((out / ".chunker" / "run.json").read_text())
    assert meta["source_kind"] == "pdf" and meta["original"] == str(disguised.resolve())
    assert len(meta["original_sha256"]) == 64 and meta["source"] == str(out.resolve() / "source.md")


def test_text_named_pdf_is_read_as_text(tmp_path):
    fake = tmp_path / "tale.pdf"
    fake.write_text(CINDERELLA.read_text())
    out = tmp_path / "out"
    invoke("run", fake, "--model", "scripted", "-o", out, "--quiet", *FAST, check=0)
    assert not (out / "source.md").exists()
    h = json.loads((out / "hierarchy.json").read_text())
    assert all("pages" not in n for n in h["nodes"])  # text trees are as they were
    assert "pages" not in frontmatter(out / leaves(h)[0]["filename"])
    wrong = invoke("run", fake, "--model", "scripted", "-o", tmp_path / "o2", "--split-unit", "page",
                   check=2)
    assert "PDF" in wrong.stderr and not (tmp_path / "o2").exists()


def test_encrypted_and_truncated_pdfs_are_refused_in_one_line(tmp_path):
    plain = make_pdf(tmp_path / "plain.pdf", pages=1)
    locked = tmp_path / "locked.pdf"
    with pymupdf.open(plain) as d:
        d.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(plain.read_bytes()[: plain.stat().st_size // 2])
    for bad, word in ((locked, "encrypted"), (cut, "damaged")):
        out = tmp_path / f"out-{bad.stem}"
        proc = invoke("run", bad, "--model", "scripted", "-o", out, *FAST, check=2)
        assert word in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert not out.exists()


def test_missing_pdf_extra_names_it(tmp_path):
    blocker = tmp_path / "block"
    (blocker / "pymupdf").mkdir(parents=True)
    (blocker / "pymupdf" / "__init__.py").write_text("raise ImportError('no pymupdf here')\n")
    doc = make_pdf(tmp_path / "r.pdf", pages=1)
    # a child process: the blocker must come before site-packages on its path
    proc = chunker("run", doc, "--model", "scripted", "-o", tmp_path / "out", *FAST, check=2,
                   env={"PYTHONPATH": f"{blocker}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert "pip install 'chunker-tree[pdf]'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_scanned_page_is_a_flagged_leaf_with_a_warning(tmp_path):
    doc = make_pdf(tmp_path / "scan.pdf", pages=3, scanned_at=2)
    out = tmp_path / "out"
    proc = invoke("run", doc, "--model", "scripted", "-o", out, *FAST, check=0)
    assert "scanned" in proc.stderr and "--vision-model" in proc.stderr
    h = json.loads((out / "hierarchy.json").read_text())
    source = (out / "source.md").read_text(encoding="utf-8")
    assert "".join(n["original"] for n in leaves(h)) == source
    flagged = [n for n in leaves(h) if n.get("scanned_pages")]
    assert [n["scanned_pages"] for n in flagged] == [[2]]
    assert "[Page 2 is a scanned image without a text layer.]" in flagged[0]["original"]
    assert flagged[0]["pages"][0] <= 2 <= flagged[0]["pages"][1]
    assert frontmatter(out / flagged[0]["filename"])["scanned_pages"] == [2]
    assert h["meta"]["stats"]["pdf.scanned_pages"] == 1


def test_vision_model_gets_page_images_in_rewrite_requests_only(tmp_path):
    doc = make_pdf(tmp_path / "plain.pdf", pages=3, headings=False, table=False)
    out = tmp_path / "out"
    # pages smaller than the window, cut at sentences: the boundary question is asked too
    with OllamaStub(models=["qwen2.5vl:7b"]) as stub:
        invoke("run", doc, "--model", "ollama:qwen2.5vl:7b", "--vision-model", "ollama:qwen2.5vl:7b",
               "-o", out, "--quiet", *FAST, "--min-chunk-tokens", "60", "--split-unit", "sentence",
               env={"OLLAMA_HOST": stub.url}, check=0)
        requests = stub.chat_requests()
    by_task: dict[str, list[dict]] = {}
    for r in requests:
        by_task.setdefault(r["format"]["title"], []).append(r)
    rewrites = by_task.get("Rewrite", []) + by_task.get("RewriteWithSummary", [])
    others = [r for title, rs in by_task.items() if not title.startswith("Rewrite") for r in rs]
    assert rewrites and by_task.get("CandidateBoundary"), sorted(by_task)
    for r in rewrites:
        user = r["messages"][-1]
        assert user["images"] and all(len(img) > 1000 for img in user["images"])  # base64 PNGs
        assert "transcribe every table" in user["content"].lower()
    assert all(not m.get("images") for r in others for m in r["messages"])
    h = json.loads((out / "hierarchy.json").read_text())
    assert h["meta"]["stats"]["pdf.images"] >= len(leaves(h))


def test_page_unit_grows_by_whole_pages():
    text = "One. Two.\n\nThree. Four.\n\nFive.\n\n"
    ends = [11, 25, len(text)]
    register_page_ends(text, ends)
    units = Units.of(text)
    assert units.next_end(0, "page") == 11 and units.next_end(11, "page") == 25
    assert units.next_end(12, "page") == 25 and units.next_end(25, "page") == len(text)
    assert units.next_end(0, "sentence") == 5  # sentences stay the candidate cuts
    with pytest.raises(ValueError):
        Units.of("Another text. Without a page map.").next_end(0, "page")


def test_resume_of_a_killed_pdf_run_gives_the_same_tree(tmp_path):
    doc = make_pdf(tmp_path / "report.pdf", pages=3)
    out = tmp_path / "out"
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("llm_max_attempts: 2\nllm_retry_initial_s: 0.01\n")
    invoke("run", doc, "--model", "scripted", "-o", out, "--quiet", "--config", cfg, *FAST, check=0)
    reference = tree_bytes(out)  # the same OUT, so that every path in the tree is the same
    counter = tmp_path / "calls.txt"
    env = {"CHUNKER_SCRIPTED_COUNTER": str(counter), "CHUNKER_SCRIPTED_FAIL_AT": "4-5"}
    failed = chunker("run", doc, "--model", "scripted", "-o", out, "--quiet", "--force", "--config", cfg,
                     *FAST, env=env, check=1)  # fails in a process; resumed in another (this one)
    assert "chunker resume" in failed.stderr
    assert not (out / "hierarchy.json").exists() and (out / "source.md").exists()
    (out / "source.md").unlink()  # gone: the resume extracts the PDF again, to the same text
    invoke("resume", out, "--quiet", env=env, check=0)
    assert tree_bytes(out) == reference


def test_force_never_overwrites_a_users_source_md(tmp_path):
    doc = make_pdf(tmp_path / "report.pdf", pages=2)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "source.md").write_text("my own notes about sources")
    proc = invoke("run", doc, "--model", "scripted", "-o", vault, "--quiet", "--force", *FAST, check=2)
    assert "source.md" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert (vault / "source.md").read_text() == "my own notes about sources"
    # chunker's own source.md (in the manifest) is replaced by a forced re-run
    out = tmp_path / "out"
    invoke("run", doc, "--model", "scripted", "-o", out, "--quiet", *FAST, check=0)
    first = (out / "source.md").read_bytes()
    invoke("run", doc, "--model", "scripted", "-o", out, "--quiet", "--force", *FAST, check=0)
    assert (out / "source.md").read_bytes() == first
    files = json.loads((out / ".chunker" / "manifest.json").read_text())["files"]
    assert "source.md" in files and "index.md" in files
