"""`chunker update` on real office files: an edited DOCX or EPUB is noticed by its fingerprint,
only the passages whose text changed are redone, and the same file written again (new bytes,
the same text) redoes nothing (issue 31: "update notices an edited DOCX or EPUB by its
fingerprint and redoes only what changed in its text")."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import docx
import pytest
from ebooklib import epub

from conftest import invoke

FAST = ["--model", "scripted", "--embeddings", "lexical", "--min-chunk-tokens", "120",
        "--max-chunk-tokens", "400", "--quiet"]
SECTIONS = ("Harbour", "Lighthouse", "Ferries", "Markets")


def _paragraphs(section: str, edited: bool) -> list[str]:
    paras = [f"The {section.lower()} note {i} records what the town kept about the {section.lower()} "
             f"in the year {1800 + i}, with the names of the keepers and the tolls they took."
             for i in range(9)]
    if edited and section == "Ferries":
        paras[4] = "The ferries note 4 was rewritten: the crossing closed in winter and reopened in May."
    return paras


def write_docx(path: Path, edited: bool = False, revision: int = 1) -> Path:
    d = docx.Document()
    d.core_properties.title = "Town records"
    d.core_properties.revision = revision
    for section in SECTIONS:
        d.add_heading(section, level=1)
        for para in _paragraphs(section, edited):
            d.add_paragraph(para)
    d.save(str(path))
    return path


def write_epub(path: Path, edited: bool = False, revision: int = 1) -> Path:
    book = epub.EpubBook()
    book.set_identifier(f"town-records-{revision}")
    book.set_title("Town records")
    book.set_language("en")
    chapters = []
    for n, section in enumerate(SECTIONS):
        item = epub.EpubHtml(title=section, file_name=f"text/c{n}.xhtml", lang="en")
        body = "".join(f"<p>{p}</p>" for p in _paragraphs(section, edited))
        item.content = f"<html><head><title>{section}</title></head><body><h1>{section}</h1>{body}</body></html>"
        book.add_item(item)
        chapters.append(item)
    book.toc = [epub.Link(c.file_name, c.title, f"c{n}") for n, c in enumerate(chapters)]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    epub.write_epub(str(path), book)
    return path


WRITERS = {"docx": write_docx, "epub": write_epub}


@pytest.fixture(scope="module", params=sorted(WRITERS))
def built(request, tmp_path_factory):
    """A tree of the unedited file, built once per format; each test copies it."""
    kind = request.param
    base = tmp_path_factory.mktemp(f"update-{kind}")
    doc = WRITERS[kind](base / f"records.{kind}")
    out = base / "out"
    invoke("run", doc, *FAST, "-o", out, check=0)
    return kind, base


def copy_of(built, tmp_path: Path) -> tuple[str, Path, Path]:
    kind, base = built
    shutil.copytree(base, tmp_path / "w")
    doc, out = tmp_path / "w" / f"records.{kind}", tmp_path / "w" / "out"
    return kind, doc, out  # run.json names the first place: each update passes --source


def leaves(out: Path) -> dict[str, str]:
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    return {n["id"]: n["original"] for n in h["nodes"] if not n["children"]}


def test_an_edited_file_redoes_only_the_changed_passages(built, tmp_path):
    kind, doc, out = copy_of(built, tmp_path)
    before = leaves(out)
    WRITERS[kind](doc, edited=True)
    invoke("update", out, "--source", doc, "--quiet", check=0)
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    record = h["meta"]["updates"][-1]
    after = {n["id"]: n["original"] for n in h["nodes"] if not n["children"]}
    kept = [i for i, text in after.items() if before.get(i) == text]
    redone = [i for i in after if i not in kept]
    assert record["reused"]["leaves"] == len(kept) >= len(after) - 2, record
    assert record["redone"]["leaves"] == len(redone) >= 1
    assert redone and all("Ferries" in after[i] or "ferries" in after[i] for i in redone)
    assert any("crossing closed in winter" in after[i] for i in redone)
    source = (out / "source.md").read_text(encoding="utf-8")
    assert "".join(after[n["id"]] for n in h["nodes"] if not n["children"]) == source
    run = json.loads((out / ".chunker" / "run.json").read_text(encoding="utf-8"))
    assert run["original_sha256"] == hashlib.sha256(doc.read_bytes()).hexdigest()


def test_the_same_text_in_new_bytes_redoes_nothing(built, tmp_path):
    kind, doc, out = copy_of(built, tmp_path)
    before = leaves(out)
    old_bytes = doc.read_bytes()
    WRITERS[kind](doc, revision=2)  # written again: other bytes (a new revision), the same text
    result = invoke("update", out, "--source", doc, check=0)
    said = " ".join(result.stdout.split())  # the console wraps long paths
    assert "is up to date" in said and "nothing to do" in said, said
    assert leaves(out) == before
    assert doc.read_bytes() != old_bytes
