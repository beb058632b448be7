"""A folder of documents becomes one tree: each signal shapes the upper levels, bad files
are skipped with their reasons, OUT may live inside the source, every file is lossless,
and every link resolves."""

from chunker.output.hierarchy import SCHEMA_VERSION
import json
import shutil
from pathlib import Path

import pytest

from chunker.output.hierarchy import SCHEMA_VERSION
from conftest import CINDERELLA, RUST, check_markdown_tree, invoke

MODEL = "scripted"


def tree_of(out: Path) -> dict:
    return json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))


def by_kind(h: dict, kind: str) -> list[dict]:
    return [n for n in h["nodes"] if n["kind"] == kind]


def docs_under(h: dict, node_id: str) -> list[str]:
    nodes = {n["id"]: n for n in h["nodes"]}
    out, todo = [], [node_id]
    while todo:
        n = nodes[todo.pop(0)]
        if n["kind"] == "document":
            out.append(n["source"])
        elif n["kind"] == "folder":
            todo[:0] = n["children"]
    return out


def assert_lossless_per_file(h: dict, root: Path) -> None:
    """Each file's leaves, in reading order, concatenate to that file exactly."""
    nodes = {n["id"]: n for n in h["nodes"]}
    order, todo = [], [h["root"]]
    while todo:
        n = nodes[todo.pop()]
        order.append(n)
        todo.extend(reversed(n["children"]))
    for doc in h["meta"]["corpus"]["documents"]:
        leaves = [n for n in order if n["source"] == doc["source"] and not n["children"]]
        text = (root / doc["source"]).read_bytes().decode("utf-8")
        assert "".join(leaf["original"] for leaf in leaves) == text, doc["source"]
        pos = 0
        for leaf in leaves:
            assert leaf["span"][0] == pos
            pos = leaf["span"][1]


@pytest.fixture
def mixed(tmp_path) -> Path:
    root = tmp_path / "notes"
    (root / "book").mkdir(parents=True)
    (root / "tales" / "grimm").mkdir(parents=True)
    for name in ("rust-book-ch03-02-data-types.md", "rust-book-ch08-02-strings.md"):
        shutil.copy(RUST / name, root / "book" / name)
    shutil.copy(CINDERELLA, root / "tales" / "grimm" / "cinderella.txt")
    (root / "short note.md").write_text("---\ntitle: A Short Note\ntags: [misc, tiny]\n---\n"
                                        "The meeting moved to Thursday. Bring the slides.\n", encoding="utf-8")
    (root / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (root / "empty.txt").write_text("")
    (root / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "workspace.json").write_text("{}")
    return root


def test_a_folder_becomes_one_tree(mixed, tmp_path):
    out = tmp_path / "out"
    proc = invoke("run", mixed, "--model", MODEL, "-o", out, "--json", check=0)
    report = json.loads(proc.stdout)
    h = tree_of(out)
    assert h["schema_version"] == SCHEMA_VERSION
    sources = sorted(d["source"] for d in h["meta"]["corpus"]["documents"])
    assert sources == ["book/rust-book-ch03-02-data-types.md", "book/rust-book-ch08-02-strings.md",
                       "short note.md", "tales/grimm/cinderella.txt"]
    # bad files are listed with their reasons, in the JSON report and in hierarchy.json
    skipped = {s["source"]: s["reason"].split(":")[0] for s in h["meta"]["corpus"]["skipped"]}
    assert skipped == {"bin.dat": "binary", "empty.txt": "empty", "latin1.txt": "invalid-utf8"}
    assert {s["source"] for s in report["skipped"]} == set(skipped)
    assert report["stats"]["documents"] == 4 and report["stats"]["skipped"] == 3
    # folders and files are the upper levels; a folder with one child adds no level
    root = next(n for n in h["nodes"] if n["id"] == h["root"])
    assert root["kind"] == "folder" and root["source"] is None and root["span"] is None
    folders = {n["title"]: n for n in by_kind(h, "folder")}
    assert sorted(docs_under(h, folders["Book"]["id"])) == sources[:2]
    assert not any(f["title"] in ("Tales", "Grimm") for f in folders.values())  # one child each
    docs = {n["source"]: n for n in by_kind(h, "document")}
    assert docs["short note.md"]["title"] == "A Short Note"  # front matter
    assert docs["short note.md"]["tags"] == ["misc", "tiny"]
    assert docs["short note.md"]["children"] == []  # a short file is one leaf
    assert docs["book/rust-book-ch03-02-data-types.md"]["title"] == "Data Types"  # first heading
    for n in h["nodes"]:
        assert n["kind"] in ("folder", "document", "block", "leaf")
        if n["kind"] != "folder":
            assert n["source"] in docs and n["span"] is not None
    assert_lossless_per_file(h, mixed)
    check_markdown_tree(out)
    # the nodes of a document lie together, beside its folder's file
    data_types = docs["book/rust-book-ch03-02-data-types.md"]
    inner = [n["filename"] for n in h["nodes"] if n["source"] == data_types["source"] and n is not data_types]
    folder = data_types["filename"][:-3] + "/"
    assert inner and all(f.startswith(folder) for f in inner)


def test_the_output_folder_may_live_inside_the_source(mixed):
    out = mixed / "tree"
    invoke("run", mixed, "--model", MODEL, "-o", out, "--quiet", check=0)
    first = tree_of(out)
    invoke("run", mixed, "--model", MODEL, "-o", out, "--quiet", "--force", check=0)
    again = tree_of(out)
    assert [d["source"] for d in again["meta"]["corpus"]["documents"]] == \
        [d["source"] for d in first["meta"]["corpus"]["documents"]]
    assert not any(d["source"].startswith("tree/") for d in again["meta"]["corpus"]["documents"])
    # nor found and then skipped: the first tree's files are never taken for documents
    assert again["meta"]["corpus"]["skipped"] == first["meta"]["corpus"]["skipped"]


def test_strict_refuses_a_corpus_with_a_bad_file_before_any_work(mixed, tmp_path):
    out = tmp_path / "out"
    proc = invoke("run", mixed, "--model", MODEL, "-o", out, "--strict", check=2)
    assert "--strict" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_include_exclude_and_chunkerignore(mixed, tmp_path):
    (mixed / ".chunkerignore").write_text("tales/\n")
    out = tmp_path / "out"
    invoke("run", mixed, "--model", MODEL, "-o", out, "--quiet", "--exclude", "*.dat",
            "--exclude", "*.txt", check=0)
    assert sorted(d["source"] for d in tree_of(out)["meta"]["corpus"]["documents"]) == [
        "book/rust-book-ch03-02-data-types.md", "book/rust-book-ch08-02-strings.md", "short note.md"]
    out2 = tmp_path / "out2"
    invoke("run", mixed, "--model", MODEL, "-o", out2, "--quiet", "--include", "book/**", check=0)
    assert len(tree_of(out2)["meta"]["corpus"]["documents"]) == 2


def test_a_table_of_contents_shapes_the_tree(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    for i, topic in enumerate(["install", "configure", "deploy", "monitor"]):
        (root / f"{topic}.md").write_text(f"# {topic.title()}\n\nHow to {topic} the service. "
                                          f"Step {i} of the guide explains it in detail.\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text("nav:\n- Setup:\n  - install.md\n  - configure.md\n"
                                     "- Operations:\n  - monitor.md\n  - deploy.md\n", encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", root, "--model", MODEL, "-o", out, "--quiet", check=0)
    h = tree_of(out)
    assert h["meta"]["corpus"]["toc"] == "mkdocs.yml"
    assert "mkdocs.yml" not in [d["source"] for d in h["meta"]["corpus"]["documents"]]
    folders = {n["title"]: n for n in by_kind(h, "folder")}
    assert docs_under(h, folders["Setup"]["id"]) == ["install.md", "configure.md"]
    assert docs_under(h, folders["Operations"]["id"]) == ["monitor.md", "deploy.md"]  # the toc's order
    check_markdown_tree(out)


def test_a_flat_folder_of_many_files_is_grouped_by_the_model(tmp_path):
    root = tmp_path / "flat"
    root.mkdir()
    words = ["apples", "pears", "plums", "cherries", "trains", "buses", "trams", "ferries",
             "violins", "cellos", "flutes", "drums", "oaks", "pines", "elms", "birches"]
    for word in words:
        (root / f"{word}.txt").write_text(f"This note is about {word}. People like {word} a lot.\n",
                                          encoding="utf-8")
    out = tmp_path / "out"
    proc = invoke("run", root, "--model", MODEL, "-o", out, "--json", "--set", "max_group_size=5",
                   check=0)
    stats = json.loads(proc.stdout)["stats"]
    h = tree_of(out)
    groups = [n for n in by_kind(h, "folder") if n["id"] != h["root"]]
    assert stats["signals.llm_groups"] == len(groups) >= 2
    assert stats["calls.group"] >= 1
    # each short file is wrapped whole: one leaf, its rewrite and summary, no boundary call
    assert stats["leaves"] == len(words) and not any(k.startswith("calls.completeness") for k in stats)
    # contiguous groups, in name order, each of at least two documents
    assert [s for g in groups for s in docs_under(h, g["id"])] == sorted(f"{w}.txt" for w in words)
    assert all(len(g["children"]) >= 2 for g in groups)
    check_markdown_tree(out)


def test_file_name_conventions_order_the_documents(tmp_path):
    root = tmp_path / "journal"
    root.mkdir()
    names = ["2023-11-02 visit.md", "2023-01-15 start.md", "10-late.md", "9-early.md"]
    for name in names:
        (root / name).write_text(f"# {name}\n\nNotes written for {name}. Nothing else happened.\n",
                                 encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", root, "--model", MODEL, "-o", out, "--quiet", check=0)
    h = tree_of(out)
    order = docs_under(h, h["root"])
    assert order.index("9-early.md") < order.index("10-late.md")
    assert order.index("2023-01-15 start.md") < order.index("2023-11-02 visit.md")


def test_awkward_names_are_handled(tmp_path):
    root = tmp_path / "names"
    (root / "sub dir").mkdir(parents=True)
    files = ["CON.md", "aux.txt", "caf\u00e9 cr\u00e8me.md", "\u65e5\u672c\u8a9e.md", "sub dir/a b.md"]
    for i, name in enumerate(files):
        (root / name).write_text(f"Note {i}: something about {name}. It is short.\n", encoding="utf-8")
    (root / "loop").mkdir()
    (root / "loop" / "back").symlink_to(root, target_is_directory=True)
    out = tmp_path / "out"
    proc = invoke("run", root, "--model", MODEL, "-o", out, "--json", check=0)
    h = tree_of(out)
    assert sorted(d["source"] for d in h["meta"]["corpus"]["documents"]) == sorted(files)
    assert any(s["reason"].startswith("symlink-loop") for s in json.loads(proc.stdout)["skipped"])
    for n in h["nodes"]:  # file names are safe on every system
        stem = Path(n["filename"]).stem
        assert stem.isascii() and stem.lower() not in ("con", "aux", "nul") and " " not in n["filename"]
    assert_lossless_per_file(h, root)
    check_markdown_tree(out)


def _start(root: Path, out: Path):
    from chunker.config.settings import ChunkerSettings
    from chunker.corpus.discover import discover
    from chunker.corpus.runner import corpus_record
    from chunker.runs.rundir import RunDir

    run = RunDir(out)
    ctx = ChunkerSettings(model=MODEL)
    discovery = discover([root], out_dir=run.path)
    run.prepare_new(False)
    run.write_record(corpus_record(discovery, ctx, {}, paths=[root]))
    return run, ctx


def test_a_file_that_vanishes_or_changes_after_it_was_found_is_skipped(mixed, tmp_path):
    from chunker.corpus.runner import execute_corpus

    run, ctx = _start(mixed, tmp_path / "out")
    (mixed / "short note.md").write_text("Rewritten while the run was going.\n", encoding="utf-8")
    (mixed / "tales" / "grimm" / "cinderella.txt").unlink()
    result = execute_corpus(run, ctx)
    reasons = {s.rel: s.reason.split(":")[0] for s in result.skipped}
    assert reasons["short note.md"] == "changed" and reasons["tales/grimm/cinderella.txt"] == "vanished"
    h = result.hierarchy
    assert sorted(h.sources()) == ["book/rust-book-ch03-02-data-types.md", "book/rust-book-ch08-02-strings.md"]
    assert {s.source for s in h.meta.corpus.skipped} >= {"short note.md", "tales/grimm/cinderella.txt"}
    # run again over the same OUT (as a resume does): each file is skipped once, nothing redone
    run.update_record(status="running")
    again = execute_corpus(run, ctx)
    assert again.skipped == result.skipped
    assert again.stats == result.stats and again.hierarchy.nodes == h.nodes


def test_a_pdf_in_a_corpus_is_one_document_over_its_extracted_text(tmp_path):
    import pymupdf as fitz
    root = tmp_path / "papers"
    root.mkdir()
    pdf = fitz.open()
    for words in ("The first page talks about rivers and their banks.",
                  "The second page talks about mountains and their snow."):
        pdf.new_page().insert_text((72, 72), words)
    pdf.save(root / "report.txt")  # a PDF by its content, whatever its name
    (root / "readme.md").write_text("# Papers\n\nA folder of papers about landscapes.\n", encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", root, "--model", MODEL, "-o", out, "--quiet", check=0)
    h = tree_of(out)
    docs = {d["source"]: d for d in h["meta"]["corpus"]["documents"]}
    assert docs["report.txt"]["kind"] == "pdf"
    extracted = (out / ".chunker" / "docs" / docs["report.txt"]["node"].split(".")[0] / "source.md").read_text(
        encoding="utf-8")
    leaves = [n for n in h["nodes"] if n["source"] == "report.txt" and not n["children"]]
    assert "".join(n["original"] for n in sorted(leaves, key=lambda n: n["span"][0])) == extracted
    assert "rivers" in extracted and all(n.get("pages") for n in leaves)
    check_markdown_tree(out)


def test_several_paths_are_one_corpus_under_their_common_folder(mixed, tmp_path):
    out = tmp_path / "out"
    invoke("run", mixed / "book", mixed / "short note.md", "--model", MODEL, "-o", out, "--quiet", check=0)
    h = tree_of(out)
    assert Path(h["meta"]["corpus"]["root"]) == mixed
    assert sorted(d["source"] for d in h["meta"]["corpus"]["documents"]) == [
        "book/rust-book-ch03-02-data-types.md", "book/rust-book-ch08-02-strings.md", "short note.md"]
    check_markdown_tree(out)


def test_a_moved_corpus_resumes_from_its_new_place(mixed, tmp_path):
    out = tmp_path / "out"
    _start(mixed, out)  # found, not yet run: as if killed before the first document
    moved = tmp_path / "moved"
    mixed.rename(moved)
    proc = invoke("resume", out, "--quiet", "--source", tmp_path / "nowhere", check=2)
    assert "not a folder" in proc.stderr
    invoke("resume", out, "--quiet", "--source", moved, check=0)
    h = tree_of(out)
    assert Path(h["meta"]["corpus"]["root"]) == moved and len(h["meta"]["corpus"]["documents"]) == 4
    assert_lossless_per_file(h, moved)


def test_too_many_folders_side_by_side_are_grouped_each_kept_whole(tmp_path):
    root = tmp_path / "many"
    topics = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
    for topic in topics:
        (root / topic).mkdir(parents=True)
        for n in (1, 2):
            (root / topic / f"{n}.md").write_text(f"# {topic} {n}\n\nNotes on {topic}, part {n}. "
                                                  f"They are short.\n", encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", root, "--model", MODEL, "-o", out, "--quiet", "--set", "max_group_size=4", check=0)
    h = tree_of(out)
    nodes = {n["id"]: n for n in h["nodes"]}
    assert len(nodes[h["root"]]["children"]) <= 4
    folders = {n["title"]: n for n in by_kind(h, "folder")}
    for topic in topics:  # every source folder is still one node holding exactly its files
        assert sorted(docs_under(h, folders[topic.title()]["id"])) == [f"{topic}/1.md", f"{topic}/2.md"]
    assert all(len(n["children"]) <= 4 for n in by_kind(h, "folder"))
    check_markdown_tree(out)
