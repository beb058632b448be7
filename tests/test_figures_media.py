"""Figures' images in OUT/media/ and their description by the vision model (issue 32).

Real runs (`--model scripted --embeddings lexical`) on small documents the tests write: a
Markdown file naming a local image, a remote one and one outside its folder; a DOCX and a PDF
with an embedded image. The vision model is the scripted one (`--vision-model scripted`): it
describes a figure in its caption's words (grounded), or says what `describe=` gives it
(ungrounded here), and describes nothing when it is not shown an image.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest

from chunker.graph.navigator_ask import ask
from chunker.navigation.settings import NavigatorSettings
from chunker.structured.media import local_image, stable_name
from conftest import check_markdown_tree, invoke

NAV = NavigatorSettings(embeddings="lexical", budget_tokens=150, cache_embeddings=False)
REPORT = """# Orchard

The orchard sold apples in March and April, and Figure 1 shows the apples sold by month.

![Bar chart of apples](img/chart.png)

Figure 1: Apples sold by month at the town market

A remote picture is never fetched, and nothing outside the document's folder is read.

![Remote](https://example.com/x.png)

![Outside](../secret.png)

The press stayed closed all spring.
"""
UNGROUNDED = "describe=A photograph of 47 unicorns grazing beside the Eiffel Tower"


def png(width: int = 80, height: int = 60, colour=(200, 30, 30)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


def tree_of(out: Path) -> dict:
    return json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))


def hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def markdown_source(tmp_path_factory):
    root = tmp_path_factory.mktemp("figures")
    (root / "secret.png").write_bytes(png(colour=(0, 0, 0)))
    src = root / "src"
    (src / "img").mkdir(parents=True)
    (src / "img" / "chart.png").write_bytes(png())
    (src / "report.md").write_text(REPORT, encoding="utf-8")
    return root, src


def run(src: Path, out: Path, *extra: str) -> dict:
    proc = invoke("run", src, "--model", "scripted", "--embeddings", "lexical", "-o", out, "--json", *extra,
                  check=0)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def plain(markdown_source):
    root, src = markdown_source
    before = hashes(root)
    out = root / "plain"
    report = run(src / "report.md", out)
    return root, src, out, report, before


@pytest.fixture(scope="module")
def described(markdown_source):
    root, src = markdown_source
    out = root / "described"
    return out, run(src / "report.md", out, "--vision-model", "scripted")


def test_a_local_image_is_copied_into_media_and_linked_remote_and_outside_ones_are_not(plain):
    root, src, out, report, before = plain
    figures = tree_of(out)["figures"]
    chart = next(f for f in figures if f["image"] == "img/chart.png")
    data = (src / "img" / "chart.png").read_bytes()
    assert chart["media"] == f"media/{stable_name('chart', data, '.png')}"
    assert (out / chart["media"]).read_bytes() == data
    assert chart["caption"] == "Figure 1: Apples sold by month at the town market"
    assert chart["description"] is None  # no vision model: no description, never an invented one
    assert [f["media"] for f in figures if f["image"] != "img/chart.png"] == [None, None]
    assert sorted(p.name for p in (out / "media").iterdir()) == [Path(chart["media"]).name]
    nodes = {n["id"]: n for n in tree_of(out)["nodes"]}
    page = (out / nodes[chart["parts"][0]]["filename"]).read_text(encoding="utf-8")
    assert f"![Bar chart of apples](../../{chart['media']})" in page
    assert (out / nodes[chart["parts"][0]]["filename"]).parent.joinpath("../..", chart["media"]).resolve().is_file()
    assert hashes(root) == {**before, **{k: v for k, v in hashes(root).items() if k.startswith("plain/")}}
    assert report["stats"]["records.figures"] == 3 and "calls.describe_figure" not in report["stats"]
    check_markdown_tree(out)


def test_local_image_refuses_urls_absolute_paths_and_escapes(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "a.png").write_bytes(b"x")
    (sub / "notes.txt").write_text("x")
    (tmp_path / "b.png").write_bytes(b"x")
    assert local_image("a.png", sub) == (sub / "a.png").resolve()
    assert local_image("./a%2Epng", sub) == (sub / "a.png").resolve()
    for src in ("https://example.com/a.png", "data:image/png;base64,AAAA", "file:///etc/passwd",
                str(sub / "a.png"), "//host/a.png", "../b.png", "notes.txt", "missing.png", ""):
        assert local_image(src, sub) is None, src


def test_the_vision_models_grounded_description_lands_in_the_record_the_page_and_the_lookup(described):
    out, report = described
    chart = next(f for f in tree_of(out)["figures"] if f["image"] == "img/chart.png")
    assert chart["description"] == "The figure shows Apples sold by month at the town market."
    assert report["stats"]["figures.described"] == 1
    assert report["stats"]["calls.describe_figure"] == 1  # figures without an image are not sent
    nodes = {n["id"]: n for n in tree_of(out)["nodes"]}
    page = (out / nodes[chart["parts"][0]]["filename"]).read_text(encoding="utf-8")
    assert "Description (vision model): The figure shows Apples sold by month" in page
    got = ask(str(out), "What does Figure 1 show?", NAV)
    assert got.route == "figure-lookup"
    assert "The figure shows Apples sold by month" in got.passages[0]["text"]
    assert chart["media"] in got.passages[0]["text"]


def test_an_ungrounded_description_is_replaced_by_nothing(markdown_source):
    root, src = markdown_source
    out = root / "ungrounded"
    report = run(src / "report.md", out, "--vision-model", f"scripted:{UNGROUNDED}")
    chart = next(f for f in tree_of(out)["figures"] if f["image"] == "img/chart.png")
    assert chart["description"] is None and chart["media"]
    assert report["stats"]["figures.description_rejected"] == 1
    assert any(k.startswith("grounding.figure_description.") for k in report["stats"])
    h = tree_of(out)
    assert "unicorns" not in json.dumps([h["figures"], [n["summary"] + n["rewritten"] for n in h["nodes"]]])
    pages = list((out / "content").rglob("*.md"))
    assert pages and all("Description (vision model)" not in p.read_text(encoding="utf-8") for p in pages)


def test_a_docx_picture_goes_into_media(tmp_path):
    import docx

    d = docx.Document()
    d.add_paragraph("The shop kept its shelves in order, as Figure 2 shows.")
    d.add_picture(io.BytesIO(png(colour=(0, 120, 0))))
    d.add_paragraph("Figure 2: The shelves of the shop", style="Caption")
    d.save(tmp_path / "shop.docx")
    report = run(tmp_path / "shop.docx", tmp_path / "docx-out")
    (fig,) = tree_of(tmp_path / "docx-out")["figures"]
    assert fig["media"] and (tmp_path / "docx-out" / fig["media"]).read_bytes() == png(colour=(0, 120, 0))
    assert report["stats"]["records.figures"] == 1
    check_markdown_tree(tmp_path / "docx-out", users=("source.md",))  # the extracted text


def reader_figures(path: Path, meta: Path):
    """What a run takes in from the file at `path`: its figures, pointed at their images."""
    from chunker.readers.base import ReadSettings
    from chunker.readers.source import Source
    from chunker.structured.extract import build_records
    from chunker.structured.media import attach, intake

    src = Source.open(path, ReadSettings())
    images = intake(meta, src.text, src.path, src.images)
    return src, attach(build_records(src.text, None, [i for i in images if i.figure]).figures, images)


def test_a_pdf_pages_embedded_image_is_a_figure_at_its_caption_and_an_icon_is_not(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "The barn held the harvest, as Figure 4 shows below.")
    page.insert_image(pymupdf.Rect(72, 100, 272, 250), stream=png(120, 90, (0, 0, 200)))
    page.insert_text((72, 280), "Figure 4: The barn in autumn")
    page.insert_image(pymupdf.Rect(72, 300, 80, 308), stream=png(8, 8))  # an icon: no figure
    doc.new_page().insert_text((72, 72), "The second page has no image.")
    doc.save(tmp_path / "barn.pdf")
    src, (fig,) = reader_figures(tmp_path / "barn.pdf", tmp_path / "meta")
    assert fig.caption == "Figure 4: The barn in autumn"
    assert src.text[fig.span[0]:].startswith("Figure 4")
    assert fig.media and (tmp_path / "meta" / "media" / fig.media.split("/")[1]).is_file()


def test_an_html_pages_local_image_is_read_from_its_folder(tmp_path):
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "chart.png").write_bytes(png())
    (tmp_path / "page.html").write_text(
        "<html><body><h1>Orchard</h1><p>Apples sold well, as Figure 1 shows.</p>"
        "<figure><img src='img/chart.png' alt='A bar chart'><figcaption>Figure 1: Apples by month"
        "</figcaption></figure><img src='http://example.com/x.png' alt='remote'></body></html>",
        encoding="utf-8")
    _, figures = reader_figures(tmp_path / "page.html", tmp_path / "meta")
    by_image = {f.image: f.media for f in figures}
    assert by_image["img/chart.png"] == f"media/{stable_name('chart', png(), '.png')}"
    assert by_image["http://example.com/x.png"] is None


def test_an_update_drops_a_removed_figures_image_and_never_touches_a_users_file(plain, tmp_path):
    import shutil

    _, src0, out0, _, _ = plain
    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(src0, src)
    shutil.copytree(out0, out)
    (out / "media" / "mine.png").write_bytes(b"the user's own file")
    (src / "report.md").write_text(REPORT.replace("![Bar chart of apples](img/chart.png)\n\n", ""), encoding="utf-8")
    invoke("update", out, "--source", src / "report.md", "--model", "scripted", check=0)
    assert all(f["media"] is None for f in tree_of(out)["figures"])
    assert sorted(p.name for p in (out / "media").iterdir()) == ["mine.png"]
    assert (out / "media" / "mine.png").read_bytes() == b"the user's own file"
    assert (src / "img" / "chart.png").is_file()


def test_an_update_reuses_the_vision_models_answer_for_an_unchanged_figure(markdown_source, described, tmp_path):
    import shutil

    _, src0 = markdown_source
    out0, _ = described
    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(src0, src)
    shutil.copytree(out0, out)
    (src / "report.md").write_text(REPORT + "\nA new closing line about the harvest festival.\n", encoding="utf-8")
    proc = invoke("update", out, "--source", src / "report.md", "--model", "scripted", "--json", check=0)
    stats = json.loads(proc.stdout.strip().splitlines()[-1])["stats"]
    assert stats["figures.descriptions_reused"] == 1 and "calls.describe_figure" not in stats
    chart = next(f for f in tree_of(out)["figures"] if f["image"] == "img/chart.png")
    assert chart["description"] == "The figure shows Apples sold by month at the town market."
