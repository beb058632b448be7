"""Every format behind one interface, end to end: a corpus mixing formats (a plugin's among
them) with broken files and a format whose extra is missing finishes, skipping those with
their reasons; a single file that cannot be read is one line and exit 2, nothing written;
nodes say where they lie in the original (hierarchy.json, frontmatter, navigation)."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from chunker.output.hierarchy import SCHEMA_VERSION

from conftest import CINDERELLA, chunker, parse_frontmatter

FAST = ["--model", "scripted", "--embeddings", "lexical", "--min-chunk-tokens", "150",
        "--max-chunk-tokens", "500"]

# A plugin distribution with two readers: `memo` (a made-up format of paragraphs, with
# locations) and `vault` (a format whose extra is never installed).
PLUGIN = '''
from pathlib import Path

from chunker.readers.base import Reader
from chunker.readers.model import Extracted, Place, ReaderError


class MemoReader(Reader):
    id = "memo"
    label = "memo"
    extra = "memo"

    def sniff(self, head, path):
        return head.startswith(b"MEMO\\n")

    def check(self, data, path, settings):
        if b"LOCKED" in data[:64]:
            raise ReaderError("it is password-protected", reason="password-memo")

    def read(self, path, settings):
        body = Path(path).read_text(encoding="utf-8")[5:]
        if not body.strip():
            raise ReaderError(f"{path} is a memo without text", reason="empty")
        places, pos = [], 0
        for i, para in enumerate(body.split("\\n\\n")):
            end = min(len(body), pos + len(para) + 2)
            places.append(Place(pos, end, part="memo.txt", paragraph=i))
            pos = end
        if pos < len(body):
            places.append(Place(pos, len(body), part="memo.txt", paragraph=len(places)))
        return Extracted(body, tuple(places))


class VaultReader(Reader):
    id = "vault"
    label = "vault file"
    extra = "vault"

    def sniff(self, head, path):
        return head.startswith(b"VAULT")

    def available(self):
        return "reading vault files needs the vault extra: pip install 'chunker-tree[vault]'"

    def read(self, path, settings):  # never reached
        raise AssertionError("read without its extra")
'''


@pytest.fixture
def plugin_env(tmp_path) -> dict:
    site = tmp_path / "site"
    site.mkdir()
    (site / "acme_formats.py").write_text(PLUGIN)
    info = site / "acme_formats-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-formats\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[chunker.readers]\nmemo = acme_formats:MemoReader\nvault = acme_formats:VaultReader\n")
    return {"PYTHONPATH": f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def _memo(count: int = 12) -> str:
    paras = [f"Paragraph {i} of the memo says the harbour crane {i} needs new cables before winter, "
             f"and the night shift keeps a log of every lift it makes near pier {i}." for i in range(count)]
    return "MEMO\n" + "\n\n".join(paras) + "\n"


def _pdf(path: Path, pages: int = 2) -> Path:
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    for k in range(pages):
        page = doc.new_page()
        for line in range(8):
            page.insert_text((72, 72 + 14 * line), f"Page {k + 1} line {line}: the rivers rise in spring.")
    doc.save(path)
    return path


def _truncated_docx(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>" * 50)
        z.writestr("word/document.xml", "<w:document/>" * 200)
    path.write_bytes(path.read_bytes()[:120])  # cut before the central directory
    return path


def test_a_corpus_mixes_formats_and_skips_what_it_cannot_read(tmp_path, plugin_env):
    root = tmp_path / "papers"
    (root / "sub").mkdir(parents=True)
    (root / "tale.txt").write_bytes(CINDERELLA.read_bytes())
    (root / "notes.md").write_text("# Notes\n\nThe crane log is kept by the night shift.\n", encoding="utf-8")
    _pdf(root / "sub" / "report.pdf")
    (root / "sub" / "harbour.memo").write_text(_memo(), encoding="utf-8")
    (root / "locked.memo").write_text("MEMO\nLOCKED\nsecret words\n", encoding="utf-8")
    (root / "blank.memo").write_text("MEMO\n\n\n", encoding="utf-8")  # its reader refuses it at read time
    (root / "safe.vault").write_bytes(b"VAULT\x00\x01")
    _truncated_docx(root / "cut.docx")
    out = tmp_path / "out"
    proc = chunker("run", root, *FAST, "-o", out, "--json", env=plugin_env, check=0)
    report = json.loads(proc.stdout)
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    docs = {d["source"]: d["kind"] for d in h["meta"]["corpus"]["documents"]}
    assert docs == {"tale.txt": "text", "notes.md": "markdown", "sub/report.pdf": "pdf",
                    "sub/harbour.memo": "memo"}
    skipped = {s["source"]: s["reason"] for s in h["meta"]["corpus"]["skipped"]}
    assert skipped["safe.vault"] == "needs-extra:vault: pip install 'chunker-tree[vault]'"
    assert skipped["locked.memo"] == "password-memo: it is password-protected"
    assert skipped["cut.docx"].startswith("broken-zip: ")
    assert skipped["blank.memo"].startswith("empty")
    assert set(skipped) == {"safe.vault", "locked.memo", "cut.docx", "blank.memo"}
    assert {s["source"] for s in report["skipped"]} == set(skipped)
    # each extracted file's leaves tile its extraction, and know where they lie
    memo_leaves = sorted((n for n in h["nodes"] if n["source"] == "sub/harbour.memo" and not n["children"]),
                         key=lambda n: n["span"][0])
    assert memo_leaves and all(n["location"]["parts"] == ["memo.txt"] for n in memo_leaves)
    assert memo_leaves[0]["location"]["paragraphs"][0] == 0
    assert memo_leaves[-1]["location"]["paragraphs"][1] == 11
    pdf_nodes = [n for n in h["nodes"] if n["source"] == "sub/report.pdf"]
    assert all(n["location"]["pages"] == n["pages"] for n in pdf_nodes)
    assert all("location" not in n for n in h["nodes"] if n["source"] in ("tale.txt", "notes.md"))
    front = parse_frontmatter((out / memo_leaves[0]["filename"]).read_text(encoding="utf-8"))
    assert front["paragraphs"] == memo_leaves[0]["location"]["paragraphs"]
    assert front["parts"] == ["memo.txt"]


@pytest.mark.parametrize("make, word", [
    (_truncated_docx, "damaged zip"),
    (lambda p: (p.write_bytes(b"%PDF-1.7\n1 0 obj<<>>\n"), p)[1], "damaged PDF"),
])
def test_a_single_file_that_cannot_be_read_is_one_line_and_exit_2(tmp_path, plugin_env, make, word):
    bad = make(tmp_path / "bad.bin")
    out = tmp_path / "out"
    proc = chunker("run", bad, *FAST, "-o", out, env=plugin_env, check=2)
    assert word in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not out.exists()


def test_a_file_whose_extra_is_missing_names_it_and_exits_2(tmp_path, plugin_env):
    doc = tmp_path / "safe.vault"
    doc.write_bytes(b"VAULT\x00\x01")
    out = tmp_path / "out"
    proc = chunker("run", doc, *FAST, "-o", out, env=plugin_env, check=2)
    assert "pip install 'chunker-tree[vault]'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not out.exists()


def test_a_single_extracted_file_records_its_locations(tmp_path, plugin_env):
    doc = tmp_path / "harbour.memo"
    doc.write_text(_memo(), encoding="utf-8")
    out = tmp_path / "out"
    chunker("run", doc, *FAST, "-o", out, "--quiet", env=plugin_env, check=0)
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert h["schema_version"] == SCHEMA_VERSION
    source = (out / "source.md").read_text(encoding="utf-8")
    leaves = sorted((n for n in h["nodes"] if not n["children"]), key=lambda n: n["span"][0])
    assert "".join(n["original"] for n in leaves) == source == _memo()[5:]
    root = next(n for n in h["nodes"] if n["id"] == h["root"])
    assert root["location"] == {"parts": ["memo.txt"], "paragraphs": [0, 11]}
    run = json.loads((out / ".chunker" / "run.json").read_text())
    assert run["source_kind"] == "memo" and run["original"] == str(doc.resolve())
    from chunker.navigation.tree import open_tree

    tree = open_tree(out)
    view = tree.open_node(leaves[0]["id"])
    assert view.location == leaves[0]["location"] and "paragraph" in view.render()
    passage = tree.read_original(leaves[0]["id"])
    assert passage.location == leaves[0]["location"]


def test_update_redoes_only_what_changed_in_an_extracted_text(tmp_path, plugin_env):
    doc = tmp_path / "harbour.memo"
    doc.write_text(_memo(60), encoding="utf-8")
    out = tmp_path / "out"
    chunker("run", doc, *FAST, "-o", out, "--quiet", env=plugin_env, check=0)
    edited = _memo(60).replace("Paragraph 58 of the memo says", "Paragraph 58 of the memo, revised, says")
    doc.write_text(edited, encoding="utf-8")
    before = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    chunker("update", out, "--quiet", env=plugin_env, check=0)
    after = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    record = after["meta"]["updates"][-1]
    assert record["reused"].get("leaves", 0) >= 1 and record["calls"] < before["meta"]["stats"]["calls.total"]
    old = {n["id"]: n["original"] for n in before["nodes"] if not n["children"]}
    assert any(old.get(n["id"]) == n["original"] for n in after["nodes"] if not n["children"])
    assert (out / "source.md").read_text(encoding="utf-8") == edited[5:]
    import hashlib

    run = json.loads((out / ".chunker" / "run.json").read_text())
    assert run["original_sha256"] == hashlib.sha256(doc.read_bytes()).hexdigest()
