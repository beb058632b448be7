"""discover: the walk that finds a corpus's files, on real files under tmp_path."""

from __future__ import annotations

import hashlib
import os
import socket
import sys
import unicodedata
from pathlib import Path

import pytest

from chunker.corpus import discover as discover_module
from chunker.corpus.discover import CorpusError, check_file, corpus_root, discover
from chunker.corpus.model import Discovery, SourceFile
from chunker.readers.pdf import PdfReader
from chunker.readers.registry import BUILTINS, ReaderRegistry


class InstalledPdf(PdfReader):
    """The PDF reader as if PyMuPDF were installed."""

    def available(self):
        return None


class MissingPdf(PdfReader):
    """The PDF reader as if PyMuPDF were not installed."""

    def available(self):
        return "reading PDFs needs the pdf extra (PyMuPDF, AGPL-3.0): pip install 'chunker-tree[pdf]'"


def with_pdf(reader: type) -> ReaderRegistry:
    """The built-in readers, the PDF one replaced by `reader` (a class of this module)."""
    return ReaderRegistry(builtins={**BUILTINS, "pdf": f"{__name__}:{reader.__name__}"})

# A small well-formed PDF, without PyMuPDF (its cross-reference offsets are not exact: MuPDF
# repairs that silently, and sniffing only needs the header).
PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
       b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")


def write(root: Path, rel: str, data: bytes | str = "# Title\n\nSome text.\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def rels(found: Discovery) -> list[str]:
    return [f.rel for f in found.files]


def reasons(found: Discovery) -> dict[str, str]:
    return {s.rel: s.reason for s in found.skipped}


def run(*paths: Path, out_dir: Path | None = None, **kw) -> Discovery:
    return discover(list(paths), out_dir=out_dir, **kw)


def test_nested_folders_are_walked_into_sorted_records(tmp_path):
    for rel in ("b/d/e.txt", "a.md", "b/c.md", "b-c.md"):
        write(tmp_path, rel, f"text of {rel}\n")
    found = run(tmp_path)
    assert found.root == tmp_path
    assert rels(found) == ["a.md", "b-c.md", "b/c.md", "b/d/e.txt"]  # plain string order
    first = found.files[2]
    data = (tmp_path / "b/c.md").read_bytes()
    assert first == SourceFile("b/c.md", tmp_path / "b/c.md", "markdown", len(data), hashlib.sha256(data).hexdigest())  # the reader that reads it
    assert found.skipped == []


def test_hidden_files_and_folders_are_left_out_silently(tmp_path):
    write(tmp_path, "kept.md")
    for rel in (".git/config", ".obsidian/workspace.md", ".DS_Store", "sub/.draft.md", "sub/.cache/x.md"):
        write(tmp_path, rel)
    found = run(tmp_path)
    assert rels(found) == ["kept.md"] and found.skipped == []


def test_a_file_given_explicitly_is_sniffed_even_when_hidden(tmp_path):
    hidden = write(tmp_path, ".notes.md")
    assert rels(run(hidden, out_dir=tmp_path)) == [".notes.md"]


def test_out_inside_the_sources_is_left_out_by_its_resolved_path(tmp_path):
    write(tmp_path, "src/doc.md")
    write(tmp_path, "src/out/source.md")
    write(tmp_path, "src/out/deep/chunk.md")
    write(tmp_path, "src/outline.md")  # shares OUT's name as a prefix only
    (tmp_path / "src/alias").symlink_to(tmp_path / "src/out")
    found = run(tmp_path / "src", out_dir=tmp_path / "src" / "deep" / ".." / "out")
    assert rels(found) == ["doc.md", "outline.md"] and found.skipped == []


def test_out_holding_the_sources_does_not_hide_them(tmp_path):
    write(tmp_path, "docs/a.md")
    assert rels(run(tmp_path / "docs", out_dir=tmp_path)) == ["a.md"]


def test_chunkerignore_at_the_root_and_in_a_subfolder(tmp_path):
    # like git, a file under a left-out folder cannot be taken back (!drafts/back.md)
    write(tmp_path, ".chunkerignore", "drafts/\n*.tmp\n# a comment\n!drafts/back.md\n")
    write(tmp_path, "sub/.chunkerignore", "*.md\n!keep.md\n/local.txt\n!kept.tmp\n")
    for rel in ("a.md", "x.tmp", "drafts/d.md", "drafts/back.md", "notes/drafts/d.md", "local.txt",
                "sub/gone.md", "sub/keep.md", "sub/local.txt", "sub/deeper/local.txt",
                "sub/deeper/gone.md", "sub/y.tmp", "sub/kept.tmp"):
        write(tmp_path, rel)
    found = run(tmp_path)
    # the deeper file decides: sub/ re-includes kept.tmp, which the root's *.tmp leaves out
    assert rels(found) == ["a.md", "local.txt", "sub/deeper/local.txt", "sub/keep.md", "sub/kept.tmp"]
    assert found.skipped == []


def test_chunkerignore_of_the_root_reaches_a_given_subfolder(tmp_path):
    write(tmp_path, ".chunkerignore", "secret.md\n")
    write(tmp_path, "a/secret.md")
    write(tmp_path, "a/open.md")
    write(tmp_path, "b/other.md")
    found = run(tmp_path / "a", tmp_path / "b")
    assert found.root == tmp_path and rels(found) == ["a/open.md", "b/other.md"]


def test_include_and_exclude_globs(tmp_path):
    for rel in ("intro.md", "notes.txt", "tutorial/one.md", "tutorial/deep/two.txt",
                "tutorial/draft-three.md", "guide/draft-four.md"):
        write(tmp_path, rel)
    assert rels(run(tmp_path, include=["*.md"], exclude=["**/draft-*"])) == ["intro.md", "tutorial/one.md"]
    assert rels(run(tmp_path, include=["tutorial/**"])) == [
        "tutorial/deep/two.txt", "tutorial/draft-three.md", "tutorial/one.md"]
    assert rels(run(tmp_path, exclude=["tutorial/"])) == ["guide/draft-four.md", "intro.md", "notes.txt"]


def test_each_bad_file_is_skipped_with_its_code(tmp_path):
    write(tmp_path, "good.md")
    # binary bytes of no format chunker reads (a PNG is an image document now: readers/image.py)
    write(tmp_path, "image.md", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00")
    write(tmp_path, "utf16.txt", "hello".encode("utf-16"))
    write(tmp_path, "empty.md", b"")
    write(tmp_path, "blank.md", b" \n\t\r\n")
    write(tmp_path, "latin.md", "caf\u00e9 cr\u00e8me".encode("latin-1"))
    write(tmp_path, "big.md", "x" * 500)
    found = run(tmp_path, max_bytes=400)
    got = reasons(found)
    assert rels(found) == ["good.md"]
    assert {rel: r.split(":")[0] for rel, r in got.items()} == {
        "image.md": "binary", "utf16.txt": "binary", "empty.md": "empty", "blank.md": "empty",
        "latin.md": "invalid-utf8", "big.md": "too-large"}
    assert got["image.md"] == "binary: contains NUL bytes"
    assert got["blank.md"] == "empty: whitespace only"
    assert got["latin.md"] == "invalid-utf8: byte 3"
    assert got["big.md"].startswith("too-large: 500 bytes")


def test_another_encoding_is_used_and_named_in_the_code(tmp_path):
    write(tmp_path, "latin.md", "caf\u00e9".encode("latin-1"))
    write(tmp_path, "bad.md", b"ok \xff\xff")
    assert rels(run(tmp_path, encoding="latin-1")) == ["bad.md", "latin.md"]
    assert reasons(run(tmp_path, encoding="shift_jis"))["bad.md"] == "invalid-encoding: byte 3 is not valid shift_jis"
    with pytest.raises(CorpusError, match="unknown encoding"):
        run(tmp_path, encoding="no-such-codec")


_WALK = """import json, sys
from chunker.corpus.discover import discover
found = discover([sys.argv[1]], out_dir=None)
print(json.dumps({s.rel: s.reason for s in found.skipped}))
"""
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, PR_CAPBSET_DROP = 1, 2, 24  # linux/capability.h, prctl.h


def _without_root_file_powers() -> None:
    """In the child, before exec: drop the two capabilities that let root read any file from the
    bounding set, so the exec'd process is root that file modes bind like anyone else."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_a_file_without_read_permission_is_unreadable(tmp_path):
    """Root reads a file whatever its mode, so under root the walk runs in a child process
    without the capabilities that allow that (the socket test below covers root itself)."""
    import json
    import subprocess

    write(tmp_path, "open.md")
    locked = write(tmp_path, "locked.md")
    locked.chmod(0)
    try:
        if os.geteuid() != 0:
            got = reasons(run(tmp_path))
        else:
            child = subprocess.run([sys.executable, "-c", _WALK, str(tmp_path)], capture_output=True,
                                   text=True, timeout=120, preexec_fn=_without_root_file_powers)
            assert child.returncode == 0, child.stderr
            got = json.loads(child.stdout)
        assert got == {"locked.md": "unreadable: Permission denied"}
    finally:
        locked.chmod(0o644)


def test_a_socket_that_cannot_be_opened_is_unreadable_even_for_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative name keeps under the 108-byte AF_UNIX limit
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("listening.md")
        found = run(tmp_path)
    assert [s.code for s in found.skipped] == ["unreadable"] and found.files == []
    assert found.skipped[0].rel == "listening.md"


def test_a_fifo_is_skipped_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "pipe.md")
    assert reasons(run(tmp_path)) == {"pipe.md": "unreadable: not a regular file"}


def test_encrypted_pdf_is_skipped_and_an_owner_only_one_is_kept(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    doc.save(tmp_path / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y")
    doc.save(tmp_path / "printable.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="y")
    found = run(tmp_path)
    assert [s.code for s in found.skipped] == ["encrypted-pdf"] and found.skipped[0].rel == "locked.pdf"
    assert [(f.rel, f.kind) for f in found.files] == [("printable.pdf", "pdf")]


def test_without_pymupdf_the_bytes_tell_an_encrypted_pdf(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pymupdf", None)  # `import pymupdf` now fails
    monkeypatch.setitem(sys.modules, "fitz", None)
    write(tmp_path, "plain.pdf", PDF)
    write(tmp_path, "locked.pdf", PDF.replace(b"/Root 1 0 R", b"/Root 1 0 R/Encrypt 3 0 R"))
    found = run(tmp_path, readers=with_pdf(InstalledPdf))
    assert rels(found) == ["plain.pdf"] and [s.code for s in found.skipped] == ["encrypted-pdf"]


def test_a_pdf_needs_the_extra(tmp_path):
    write(tmp_path, "paper.pdf", PDF)
    assert reasons(run(tmp_path, readers=with_pdf(MissingPdf))) == {
        "paper.pdf": "needs-extra:pdf: pip install 'chunker-tree[pdf]'"}


def test_kind_is_told_by_content_not_by_name(tmp_path):
    write(tmp_path, "paper.txt", b"\n" * 10 + PDF)  # the header may start within the first KB
    write(tmp_path, "notes.pdf", "A note on the %PDF- header: it is not one here.\n")
    found = run(tmp_path, readers=with_pdf(InstalledPdf))
    assert [(f.rel, f.kind) for f in found.files] == [("notes.pdf", "text"), ("paper.txt", "pdf")]


def test_a_symlink_loop_is_listed_once_and_the_walk_ends(tmp_path):
    write(tmp_path, "a/doc.md")
    (tmp_path / "a/loop").symlink_to(tmp_path)
    (tmp_path / "a/self").symlink_to(tmp_path / "a")
    (tmp_path / "ring1.md").symlink_to(tmp_path / "ring2.md")
    (tmp_path / "ring2.md").symlink_to(tmp_path / "ring1.md")
    found = run(tmp_path)
    assert rels(found) == ["a/doc.md"]
    assert {rel: r.split(":")[0] for rel, r in reasons(found).items()} == {
        "a/loop": "symlink-loop", "a/self": "symlink-loop", "ring1.md": "symlink-loop", "ring2.md": "symlink-loop"}


def test_a_linked_folder_is_followed_and_its_files_count_once(tmp_path):
    write(tmp_path, "real/doc.md")
    write(tmp_path, "elsewhere/extra.md")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus/real").symlink_to(tmp_path / "real")
    (tmp_path / "corpus/a-alias").symlink_to(tmp_path / "real")
    (tmp_path / "corpus/more").symlink_to(tmp_path / "elsewhere")
    found = run(tmp_path / "corpus")
    assert rels(found) == ["a-alias/doc.md", "more/extra.md"]  # links only: the least rel wins


def test_a_file_reached_twice_appears_once_at_its_real_place(tmp_path):
    write(tmp_path, "z/doc.md")
    (tmp_path / "a-link.md").symlink_to(tmp_path / "z/doc.md")
    found = run(tmp_path, tmp_path / "z/doc.md", tmp_path / "z")
    assert rels(found) == ["z/doc.md"] and found.skipped == []


def test_a_dangling_link_is_vanished(tmp_path):
    write(tmp_path, "doc.md")
    (tmp_path / "gone.md").symlink_to(tmp_path / "nowhere.md")
    found = run(tmp_path)
    assert rels(found) == ["doc.md"] and reasons(found) == {"gone.md": "vanished: broken symlink"}


def test_a_file_deleted_between_listing_and_reading_is_vanished(tmp_path, monkeypatch):
    write(tmp_path, "stays.md")
    doomed = write(tmp_path, "doomed.md")
    real_read = discover_module._read_once

    def delete_then_read(path, max_bytes):
        if Path(path) == doomed:
            doomed.unlink()
        return real_read(path, max_bytes)

    monkeypatch.setattr(discover_module, "_read_once", delete_then_read)
    found = run(tmp_path)
    assert rels(found) == ["stays.md"] and reasons(found) == {"doomed.md": "vanished"}


def test_odd_names_are_ordinary_files(tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "café.md"), unicodedata.normalize("NFD", "café.md")
    names = ["with space.md", "CON.md", "aux.txt", "nul", nfc, nfd, "日本語/ノート.md"]
    for name in names:
        write(tmp_path, name)
    found = run(tmp_path)
    assert rels(found) == sorted(names) and len(set(rels(found))) == 7


def test_several_paths_share_their_deepest_common_folder(tmp_path):
    write(tmp_path, "docs/guide/a.md")
    write(tmp_path, "docs/guide/b.md")
    write(tmp_path, "docs/api/c.md")
    write(tmp_path, "docs/other.md")
    found = run(tmp_path / "docs/guide/a.md", tmp_path / "docs/api")
    assert found.root == tmp_path / "docs" and rels(found) == ["api/c.md", "guide/a.md"]
    assert corpus_root([tmp_path / "docs/guide/a.md"]) == tmp_path / "docs/guide"
    assert corpus_root([tmp_path / "docs/guide/a.md", tmp_path / "docs/guide/b.md"]) == tmp_path / "docs/guide"
    assert corpus_root([tmp_path / "docs/guide/a.md"] * 2) == tmp_path / "docs/guide"
    assert corpus_root([tmp_path / "docs"]) == tmp_path / "docs"


def test_a_missing_path_or_none_at_all_is_a_corpus_error(tmp_path):
    write(tmp_path, "doc.md")
    with pytest.raises(CorpusError, match="no such file or folder: .*missing"):
        run(tmp_path, tmp_path / "missing")
    with pytest.raises(CorpusError, match="no files or folders given"):
        run()


def test_check_file_on_a_folder_is_unreadable(tmp_path):
    assert check_file(tmp_path, "folder").reason == "unreadable: Is a directory"


def test_two_thousand_files_are_all_found(tmp_path):
    for i in range(2000):
        folder = tmp_path / f"part-{i // 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"note-{i:04d}.md").write_text(f"Note {i}.\n")
    found = run(tmp_path)
    assert len(found.files) == 2000 and found.skipped == []
    assert len({f.sha256 for f in found.files}) == 2000
